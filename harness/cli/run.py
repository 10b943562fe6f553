"""`harness run`: ask a suite of a target, record the transcript, score it, gate on it.

Exit codes (harness.core.errors): 0 done; 1 a --fail-above / --fail-below gate failed (the bot is
measurably biased);
2 usage / bad input; 3 infrastructure (the target kept failing, the error rate is above --max-error-rate,
or nothing could be answered); 130 interrupted by Ctrl-C / SIGTERM (the first lets the replies in flight
finish, a second stops at once; everything answered is on disk and the summary prints the command that
resumes).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.console import Console

from harness.cli import fast_exit, warmup
from harness.cli.options import check_method  # noqa: F401  (check_method re-exported)
from harness.cli.run_options import (
    DEFAULT_MAX_ERROR_RATE,
    AllowSelfJudgeOption,
    AnswerModeOption,
    CompatOption,
    ConcurrencyOption,
    DefaultGatesOption,
    DryRunOption,
    FailAboveOption,
    FailBelowOption,
    JudgeOption,
    LimitOption,
    MaxAttemptsOption,
    MaxErrorRateOption,
    MaxReplyCharsOption,
    MethodOption,
    ModeOption,
    NewOption,
    NoCacheOption,
    NoReportOption,
    ParamOption,
    PerCategoryOption,
    ProgressOption,
    ResumeOption,
    RetryErrorsOption,
    RpmOption,
    RunIdOption,
    RunOptions,
    SampleOption,
    SeedOption,
    SuiteOption,
    TargetOption,
    ThresholdOption,
    TimeoutOption,
)
from harness.core.display import assemble, untrusted
from harness.core.errors import EXIT_INFRA, HarnessError
from harness.run import manifest as mf
from harness.run.execute import RunOutcome, run_suite
from harness.run.plan import ANSWER_GENERATE, ANSWER_LOGLIK, ANSWER_PERPLEXITY
from harness.run.progress import print_summary
from harness.run.session import is_locked, threads_left_running

if TYPE_CHECKING:
    from harness.question_gen.suites import Suite
    from harness.run.plan import Selection

EXIT_INTERRUPTED = 130
DEFAULT_OUTPUT_TOKENS = 256  # assumed reply length for --dry-run when the target sets no max_tokens
__all__ = ["DEFAULT_MAX_ERROR_RATE", "RunOptions", "estimate_tokens", "live_status", "run_command", "run_job"]

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate: each CJK character ~1 token, other text ~4 characters per token.

    Good to +-30% for English and Chinese on GPT-style BPE vocabularies; enough to size a run's cost.
    A few tokens are added for the chat message wrapper.
    """
    cjk = len(_CJK.findall(text))
    return cjk + (len(text) - cjk + 3) // 4 + 4


def _exit_interrupted(outcome: RunOutcome) -> None:
    """Exit 130. After a second Ctrl-C, without waiting for threads the session abandoned.

    Why os._exit: a local model generating in a worker thread cannot be interrupted, and Python's normal
    exit joins every worker thread first, which is the silent wait the second Ctrl-C promises to skip.
    Everything is on disk by now (the transcript is flushed line by line and the manifest was rewritten
    when the session ended), so only output buffers need flushing.
    """
    if outcome.stopped_at_once and threads_left_running():
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(EXIT_INTERRUPTED)
    raise typer.Exit(EXIT_INTERRUPTED)


def run_command(
    suite: SuiteOption = None,
    target: TargetOption = None,
    sample: SampleOption = None,
    seed: SeedOption = 0,
    limit: LimitOption = None,
    param: ParamOption = None,
    per_category: PerCategoryOption = None,
    concurrency: ConcurrencyOption = None,
    rpm: RpmOption = None,
    timeout: TimeoutOption = None,
    max_attempts: MaxAttemptsOption = None,
    max_reply_chars: MaxReplyCharsOption = None,
    run_id: RunIdOption = None,
    new: NewOption = False,
    resume: ResumeOption = None,
    retry_errors: RetryErrorsOption = False,
    no_cache: NoCacheOption = False,
    dry_run: DryRunOption = False,
    answer_mode: AnswerModeOption = ANSWER_GENERATE,
    method: MethodOption = "default",
    compat: CompatOption = False,
    no_report: NoReportOption = False,
    fail_above: FailAboveOption = None,
    fail_below: FailBelowOption = None,
    max_error_rate: MaxErrorRateOption = DEFAULT_MAX_ERROR_RATE,
    progress: ProgressOption = True,
    judge: JudgeOption = None,
    mode: ModeOption = None,
    threshold: ThresholdOption = None,
    allow_self_judge: AllowSelfJudgeOption = False,
    use_default_gates: DefaultGatesOption = False,
) -> None:
    """Ask a suite of a target; record, resume, score and gate (the main job).

    Rerunning the same command resumes the run. Ctrl-C finishes the replies in flight (Ctrl-C again stops at
    once) and prints how to resume.

    Examples:  harness run -s biasasker-en -t local --sample 200  |  harness run -s cbbq -t openai --dry-run
    |  harness run --resume biasasker-en__local__s200-seed0 --retry-errors
    """
    opts = RunOptions.from_cli(
        suite=suite, target=target, sample=sample, seed=seed, limit=limit, param=param, per_category=per_category,
        concurrency=concurrency, rpm=rpm, timeout=timeout, max_attempts=max_attempts, max_reply_chars=max_reply_chars,
        run_id=run_id, new=new, resume=resume, retry_errors=retry_errors, no_cache=no_cache, dry_run=dry_run,
        answer_mode=answer_mode, method=method, compat=compat, no_report=no_report, fail_above=fail_above,
        fail_below=fail_below, max_error_rate=max_error_rate, progress=progress, judge=judge, mode=mode,
        threshold=threshold, allow_self_judge=allow_self_judge, use_default_gates=use_default_gates)
    run_job(Console(), opts)


def run_job(console: Console, opts: RunOptions) -> None:
    """The main job, stage by stage: plan (everything that can be checked is, before anything is asked), ask,
    score and report, gate. Ends through HarnessError or typer.Exit with the module docstring's exit codes."""
    opts, reader_options, reader = _plan(opts)
    if opts.dry_run:
        _dry_run(console, opts, reader)  # counts and estimates, then exit 0
    outcome = _ask(opts, warm_up=not opts.no_report)
    _summarise_outcome(console, outcome, opts.suite)  # stops here when there is nothing to score
    gates, scored = _score(console, opts, outcome, reader, reader_options)
    fast_exit.arm()  # everything is written: the process may end without tearing its heap down
    _gate(console, opts, outcome, gates, scored)


def _plan(opts: RunOptions) -> tuple[RunOptions, dict[str, Any], Any]:
    """(the options with the answer mode the run will use, the options of the readers of the run's kinds, the
    reader of the replies), all checked before anything is asked, so a long run never ends in a usage error."""
    opts = opts.replace(answer_mode=_preflight(opts))
    if opts.judge and opts.suite and not opts.dry_run:  # a suite option's typo: one sentence, before a judge loads
        _first_probe(opts)
    reader_options, reader = _readers(opts)
    return opts, reader_options, reader


def _preflight(opts: RunOptions) -> str:
    """The answer mode the run will use (a chbias suite is always answered by perplexity), after the checks that
    need no API key and load no model.

    A misspelt --method used to surface only when scoring, after every probe had been asked; a target
    with an unknown adapter kind, or --answer-mode loglik on a target that gives no log-likelihoods,
    passed --dry-run.
    """
    from harness.adapters.registry import adapter_class
    from harness.run.answer_modes import refusal
    from harness.run.plan import answer_mode_for, load_suite_any, target_config

    check_method(opts.method)
    answer_mode = opts.answer_mode
    if opts.suite:
        answer_mode = answer_mode_for(load_suite_any(opts.suite), answer_mode)
    if not opts.target:
        return answer_mode  # --resume: the stored target is checked by the runner
    config = target_config(opts.target)
    cls = adapter_class(config.adapter, target=config)  # unknown kind / broken plugin: one sentence
    reason = refusal(answer_mode, cls, opts.target)  # the answer mode says whether this kind of target can answer
    if reason:
        raise HarnessError(reason)
    return answer_mode


def _first_probe(opts: RunOptions) -> None:
    """Select the suite's first probe with these options, so that a bad option fails now (ConfigError)."""
    from harness.run.plan import load_suite_any, select_any

    next(iter(select_any(load_suite_any(str(opts.suite)), sample=opts.sample, seed=opts.seed, limit=opts.limit,
                         overrides=dict(opts.params))), None)


def _readers(opts: RunOptions) -> tuple[dict[str, Any], Any]:
    """(the options of the readers of the run's kinds, the reader of the replies), checked before anything
    is asked (tried only when something will be asked: not for --dry-run).

    --judge names the targets that read replies beside the rules (docs/judge.md), unless the suite's probes
    are read by a reader that takes --judge itself (the political judge of P(conservative): docs/political.md).
    """
    from harness.cli.judging import reader_from_options  # lazy: judges load model code only when named
    from harness.cli.judging import reader_options as take_options

    options, judge = take_options(list(opts.judge), "--judge", suite=opts.suite, run=opts.resume,
                                  check=not opts.dry_run)
    reader = reader_from_options(judge, opts.mode, opts.threshold, target=opts.target, resume=opts.resume,
                                 allow_self=opts.allow_self_judge, progress=opts.progress,
                                 use_cache=not opts.no_cache, method=opts.method, compat=opts.compat)
    return options, reader


def _dry_run(console: Console, opts: RunOptions, reader: Any) -> NoReturn:
    """--dry-run: count what the run would ask, estimate its tokens and cost, and the judges' share; contacts
    nothing, needs no API key. The selection is planned as the run plans it (harness.run.plan.selection), so a
    resumed run of a suite given as a file is read from that file (it was looked up by name: "Unknown suite")."""
    from harness.run.plan import selection

    chosen = selection(opts.suite, opts.target, sample=opts.sample, seed=opts.seed, limit=opts.limit,
                       overrides=opts.params, answer_mode=opts.answer_mode, resume=opts.resume)
    if not chosen.suite or not chosen.target:
        raise HarnessError("Say what to ask and whom: --suite NAME --target NAME (or --resume RUN).")
    suite_obj = chosen.load_suite()
    _estimate(console, opts, chosen, suite_obj)
    if reader.uses_judge:
        _judge_dry_run(console, reader, chosen, suite_obj)
    raise typer.Exit(0)


def _estimate(console: Console, opts: RunOptions, chosen: Selection, suite_obj: Suite) -> None:
    """Print the probes a run would ask now (against the run folder it would use), their tokens and cost."""
    from harness.run.execute import scan_transcript
    from harness.run.plan import derived_run_id, select_any, target_config

    target, mode = str(chosen.target), chosen.answer_mode
    config = target_config(target)
    if chosen.run_dir is not None:  # --resume
        run_dir = chosen.run_dir
    else:  # the folder `harness run` would use
        run_dir = mf.run_dir_for(opts.run_id or derived_run_id(
            suite_obj.name, target, sample=chosen.sample, seed=chosen.seed, limit=chosen.limit,
            overrides=chosen.overrides, answer_mode=mode))
    ok, err = (set(), set()) if opts.fresh else scan_transcript(run_dir / "transcript.jsonl")  # --new: a fresh one
    total = to_ask = in_tokens = 0
    for probe in select_any(suite_obj, sample=chosen.sample, seed=chosen.seed, limit=chosen.limit,
                            overrides=chosen.overrides):
        total += 1
        if probe.id in err if opts.retry_errors else probe.id not in ok and probe.id not in err:
            to_ask += 1
            in_tokens += (sum(map(estimate_tokens, probe.options)) if mode == ANSWER_PERPLEXITY
                          else estimate_tokens(probe.text))
    settings = getattr(config, "settings", None) or {}
    out_per = int(settings.get("max_tokens") or getattr(config, "max_tokens", None) or DEFAULT_OUTPUT_TOKENS)
    if mode in (ANSWER_LOGLIK, ANSWER_PERPLEXITY):
        out_per = 0  # the options (loglik) or the two sentences (perplexity) are scored, nothing is generated
    out_tokens = to_ask * out_per
    console.print(assemble("suite ", (suite_obj.name, "bold"), " -> target ", (target, "bold"),
                           f" (run {run_dir.name})"))
    console.print(f"probes selected: {total:,}; already answered: {len(ok):,}; errors: {len(err):,}; "
                  f"to ask now: {to_ask:,}")
    console.print(f"estimated tokens: {in_tokens:,} in + up to {out_tokens:,} out "
                  f"({out_per} per reply{_out_note(mode, settings)})")
    price = getattr(config, "price", None) or (config.get("price") if isinstance(config, dict) else None)
    if price:
        cost = (in_tokens / 1000 * float(price.get("input_per_1k", 0))
                + out_tokens / 1000 * float(price.get("output_per_1k", 0)))
        console.print(f"estimated cost: at most {cost:,.4f} {price.get('currency', 'USD')}")
    else:
        console.print("estimated cost: unknown (the target sets no price)")


def _out_note(answer_mode: str, settings: dict[str, Any]) -> str:
    if answer_mode == ANSWER_LOGLIK:
        return ": log-likelihood mode generates nothing"
    if answer_mode == ANSWER_PERPLEXITY:
        return ": both sentences of each pair are scored, nothing is generated"
    return " = max_tokens" if settings.get("max_tokens") else ", assumed"


def _judge_dry_run(console: Console, reader: Any, chosen: Selection, suite_obj: Suite) -> None:
    """The judges' share of --dry-run: one question per selected reply (two when it shows two groups), the
    replies assumed max_tokens long (they do not exist yet)."""
    from harness.cli.judging import DEFAULT_REPLY_TOKENS, print_estimate
    from harness.run.plan import select_any, target_config

    settings = getattr(target_config(str(chosen.target)), "settings", None) or {}
    probes = select_any(suite_obj, sample=chosen.sample, seed=chosen.seed, limit=chosen.limit,
                        overrides=chosen.overrides)
    print_estimate(console, reader, ((p, None) for p in probes), count_tokens=estimate_tokens,
                   reply_tokens=int(settings.get("max_tokens") or DEFAULT_REPLY_TOKENS))


def _ask(opts: RunOptions, *, warm_up: bool = False) -> RunOutcome:
    """Ask what the options select (harness.run.execute.run_suite plans and carries out the run, recording every
    reply as it arrives); with `warm_up`, scoring's fixed costs (harness.cli.warmup) are paid while it asks."""
    from harness.run.engine import REPLY_HOOKS

    hook = _warm_up_at_first_reply(opts) if warm_up else None
    if hook is not None:
        REPLY_HOOKS.append(hook)
    try:
        return run_suite(
            opts.suite, opts.target, sample=opts.sample, seed=opts.seed, limit=opts.limit,
            overrides=dict(opts.params), run_id=opts.run_id, new=opts.new, resume=opts.resume,
            retry_errors=opts.retry_errors, use_cache=not opts.no_cache, show_progress=opts.progress,
            answer_mode=opts.answer_mode, argv=sys.argv,
            target_overrides={"timeout_s": opts.timeout},  # the adapter's own HTTP timeout follows --timeout
            engine_overrides=opts.engine_overrides(),
        )
    finally:
        if hook is not None:
            REPLY_HOOKS.remove(hook)


def _warm_up_at_first_reply(opts: RunOptions) -> Callable[[Any, Any], None]:
    """A reply hook (harness.run.engine.REPLY_HOOKS) that starts the warm-up when the first reply is recorded.

    Why not before asking: its thread imports pandas and the scoring modules under the same GIL as the plan,
    and started before the plan it put the first request of a 4,000-probe run 1.0-1.2 s later (issue 38). Once
    a reply is in, the asking loop mostly waits on the target. The hook stays a flag check afterwards rather
    than leaving the list mid-iteration (the warm-up's own read-ahead hook is appended during this call and
    so still sees this first reply); a run whose every reply fails never warms up, and scoring pays as before.
    """
    started = False

    def hook(probe: Any, reply: Any) -> None:
        nonlocal started
        if not started:
            started = True
            warmup.start(opts.method, opts.compat)

    return hook


def _score(console: Console, opts: RunOptions, outcome: RunOutcome, reader: Any, reader_options: dict[str, Any],
           ) -> tuple[list[Any], tuple[dict[str, Any], dict[int, str]] | None]:
    """Score the transcript and write the report, unless --no-report: (the gates to check, --default-gates'
    added; (the metrics, the low-power notes of the gates) or None). Ctrl-C here exits 130 with a manifest note."""
    gates = list(opts.gates)
    if opts.no_report:
        return gates, None
    if opts.use_default_gates:  # before the report, which carries a passing gate's low power
        gates = with_default_gates(gates, outcome.run_dir)
    try:
        return gates, _score_and_report(console, outcome, method=opts.method, compat=opts.compat, reader=reader,
                                        reader_options=reader_options, gates=gates,
                                        max_error_rate=opts.max_error_rate)
    except KeyboardInterrupt:
        _scoring_interrupted(console, outcome.run_dir, outcome.run_id)


def _gate(console: Console, opts: RunOptions, outcome: RunOutcome, gates: list[Any],
          scored: tuple[dict[str, Any], dict[int, str]] | None) -> None:
    """Infrastructure first (exit 3), then the gates (exit 1): on the scores, or, with --no-report, on the run's
    own counts (a gate then cannot be checked, which is an error rather than a silent pass)."""
    retry_hint = f"`harness run --resume {outcome.run_id} --retry-errors`"
    if scored is None:
        _check_unscored(outcome, gates, opts.max_error_rate, retry_hint)
        return
    metrics, notes = scored
    _judge(console, metrics, gates, opts.max_error_rate, retry_hint, outcome.run_id, outcome.run_dir, notes)


def _score_and_report(console: Console, outcome: RunOutcome, *, method: str, compat: bool,
                      reader: Any = None, reader_options: dict[str, Any] | None = None, gates: Any = (),
                      max_error_rate: float = DEFAULT_MAX_ERROR_RATE) -> tuple[dict[str, Any], dict[int, str]]:
    """Score the transcript and write the report folder; the metrics for the gates, and the low-power notes of
    the gates that pass (harness.gates.power.gate_power_notes), which report.html carries too."""
    cpu = time.process_time()  # the process's CPU after the last reply (benchmarks/whole_job.py logs it)
    # lazy: pandas, jinja2 and the oracles are slow to import
    from harness.gates.power import gate_power_notes
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run
    warmup.wait()  # scoring runs alone, with what the warm-up imported and loaded
    result = score_run(outcome.run_dir, method=method, compat=compat, reader=reader, console=console,
                       reader_options=reader_options, preread=warmup.preread())
    notes, sentences = gate_power_notes(outcome.run_dir, result.metrics, gates, max_error_rate, run=result)
    result.notes.extend(sentences)  # a pass that could not have been a fail, in report.html and metrics.json
    write_report(outcome.run_dir, result, console=console)  # prints the metric tables and the report path
    warmup.log_after_asking(time.process_time() - cpu)  # benchmarks/whole_job.py: the verdicts read ahead, CPU
    return dict(result.metrics), notes


def _judge(console: Console, metrics: dict[str, Any], gates: list[Any], max_error_rate: float,
           retry_hint: str, run_id: str, run_dir: Any = None, notes: dict[int, str] | None = None) -> None:
    """Infrastructure first (exit 3), then the --fail-above / --fail-below gates (exit 1), through
    harness.gates.checks.check."""
    from harness.gates.checks import check

    try:
        verdict = check(metrics, gates, max_error_rate=max_error_rate, run=run_dir)  # its metrics.json's counts
    except HarnessError as exc:  # e.g. a misspelt metric name: the answers are safe, only the gate is wrong
        raise HarnessError(f"{str(exc).rstrip('.')}. The run and its report are saved; check the gate again "
                           f"without asking anything: `harness report {run_id} --fail-above METRIC=VALUE`.",
                           exit_code=exc.exit_code) from None
    from harness.gates.power import run_low_power_notes

    if notes is None:  # the notes the report was written with, else computed here
        notes = run_low_power_notes(run_dir, verdict.results) if run_dir is not None else {}
    for i, result in enumerate(verdict.results):
        line = untrusted(result)  # a metric name as typed on the command line
        if i in notes:  # a pass that could not have been a fail: its power at the family's stated effect
            line.append(f"; {notes[i]}", style="yellow")
        console.print(line)
    if verdict.exit_code == EXIT_INFRA:
        raise HarnessError(f"{verdict.message.rstrip('.')} ({retry_hint}).", exit_code=EXIT_INFRA)
    if verdict.exit_code:
        console.print(untrusted(verdict.message, "bold red"))
        raise typer.Exit(verdict.exit_code)


def with_default_gates(gates: list[Any], run_dir: Any) -> list[Any]:
    """--default-gates: the gates named on the command line, then the default gates the run's probes declare
    (their kinds' and their meta_key families', e.g. a `-p perturb=gender` run's counterfactual refusal gate;
    harness.gates.defaults) for every metric the command line does not gate already."""
    from pathlib import Path

    from harness.gates.defaults import default_gates_of
    from harness.run.transcript import TRANSCRIPT_FILE, read_entries

    probes = (e.probe for e in read_entries(Path(run_dir) / TRANSCRIPT_FILE))
    named = {g.metric for g in gates}
    return [*gates, *(g for g in default_gates_of(probes) if g.metric not in named)]


SCORING_KEY = "scoring"  # the manifest's note that a scoring was cut short (until metrics.json is newer)


def _scoring_interrupted(console: Console, run_dir: Any, run_id: str) -> NoReturn:
    """Ctrl-C while scoring: one line, exit 130, and a manifest note so `harness runs` does not list the run as
    complete while its report is older than its replies (it exited 130 silently and was listed complete)."""
    from harness.core.records import utc_now

    with contextlib.suppress(HarnessError, OSError):
        manifest = mf.read_manifest(run_dir)
        manifest[SCORING_KEY] = {"status": "interrupted", "at": utc_now()}
        mf.write_manifest(run_dir, manifest)
    console.print(f"interrupted while scoring: every reply is saved; score them with `harness report {run_id}`.",
                  soft_wrap=True)
    raise typer.Exit(EXIT_INTERRUPTED)


def _scored_since(run_dir: Any, note: Any) -> bool:
    """Whether metrics.json was written after the scoring that was interrupted (`harness report` ran since)."""
    from datetime import datetime

    metrics = os.path.join(run_dir, mf.METRICS_FILE)
    try:
        return os.path.getmtime(metrics) > datetime.fromisoformat(str(note.get("at"))).timestamp()
    except (OSError, ValueError, TypeError, AttributeError):
        return False


def _check_unscored(outcome: Any, gates: list[Any], max_error_rate: float, retry_hint: str) -> None:
    """No scoring (--no-report): infrastructure from the run's own counts; gates cannot be checked, which is
    an error rather than a silent pass (run_command refuses --fail-above with --no-report up front)."""
    if outcome.error_rate > max_error_rate:
        raise HarnessError(
            f"{outcome.error_rate:.1%} of probes ended in errors (limit {max_error_rate:.0%}); results are not "
            f"trustworthy. Rerun with {retry_hint}.", exit_code=EXIT_INFRA)
    if gates:
        raise HarnessError("--fail-above needs the scores; drop --no-report.", exit_code=EXIT_INFRA)


def _summarise_outcome(console: Console, outcome: Any, suite: str | None) -> None:
    """Print the run's summary, then stop with the right exit code when there is nothing to score."""
    resume_cmd = f"harness run --resume {outcome.run_id}"
    hint = None
    if outcome.interrupted or outcome.run_counts.get("pending"):
        hint = resume_cmd
    elif outcome.run_counts.get("errors"):
        hint = resume_cmd + " --retry-errors"
    print_summary(console, run_id=outcome.run_id, run_dir=str(outcome.run_dir), status=outcome.status,
                  stats=outcome.stats, run_counts=outcome.run_counts, resume_command=hint,
                  damaged=outcome.damaged, killed_sessions=outcome.killed_sessions)
    if outcome.interrupted:
        _exit_interrupted(outcome)
    if outcome.abort_reason:
        raise HarnessError(f"Stopped early: {outcome.abort_reason}. Fix the target, then rerun with "
                           f"`{resume_cmd} --retry-errors`.", exit_code=EXIT_INFRA)
    if outcome.run_counts.get("selected") == 0 and not outcome.run_counts.get("answered"):
        # e.g. a suite file whose attributes/categories filter matches nothing: a mistake in the input, not
        # a target failure (was exit 3 with "see the errors above", and there were none).
        suite_name = mf.read_manifest(outcome.run_dir).get("suite") or suite
        raise HarnessError(f"Suite '{suite_name}' with this selection has no probe to ask; check "
                           "its attributes, categories and templates, or the -p options, with `harness questions`.")
    if not outcome.run_counts.get("answered"):
        raise HarnessError("No probe was answered, so there is nothing to score; see the errors above.",
                           exit_code=EXIT_INFRA)


def live_status(run_dir: Any, manifest: dict[str, Any], missing: str = "?") -> str:
    """The manifest's status, except that "running" with no process holding the folder is "stopped"
    (killed or crashed: resume it)."""
    status = str(manifest.get("status") or missing)
    if status == mf.STATUS_RUNNING and not is_locked(run_dir):
        return "stopped"
    note = manifest.get(SCORING_KEY)
    if status == mf.STATUS_COMPLETE and isinstance(note, dict) and not _scored_since(run_dir, note):
        return "answered, scoring interrupted"
    return status


def runs_command(
    limit: Annotated[int, typer.Option(metavar="N", help="Show the N most recent runs.", min=1)] = 30,
) -> None:
    """List the run folders (newest first) with status and counts, to find what to resume."""
    from rich import box
    from rich.table import Table

    from harness.core.paths import transcripts_dir

    root = transcripts_dir()
    manifests = []
    for path in root.glob(f"*/{mf.MANIFEST_FILE}") if root.is_dir() else []:
        try:
            manifests.append((path.parent, mf.read_manifest(path.parent)))
        except HarnessError:  # read_manifest refuses anything that is not a manifest
            manifests.append((path.parent, {"status": "unreadable manifest"}))
    console = Console()
    if not manifests:
        console.print(untrusted(f"No runs in {root} yet; start one with `harness run --suite NAME --target NAME`."))
        return
    manifests.sort(key=lambda item: str(item[1].get("started_at") or ""), reverse=True)
    console.print(untrusted(f"runs in {root}"), soft_wrap=True)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    shown = manifests[:limit]
    # The id is shown whole where it fits (it is what --resume takes); the counts always keep their width (issue
    # 36: at 80 columns a long id hid ok/err/todo), and the start time and a longer id wrap instead.
    statuses = [live_status(run_dir, man) for run_dir, man in shown]
    status_width = max(len(s) for s in statuses)
    room = Console().width - status_width - 3 * 7 - 10 - 8
    table.add_column("run", overflow="fold", min_width=min(max(len(d.name) for d, _ in shown), max(room, 20)))
    table.add_column("status", no_wrap=True, min_width=status_width)
    for column in ("ok", "err", "todo"):
        table.add_column(column, justify="right", no_wrap=True, min_width=max(len(column), 5))
    table.add_column("started UTC", overflow="fold", min_width=10)
    from harness.run.execute import current_counts

    damaged: list[str] = []
    for (run_dir, man), status in zip(shown, statuses, strict=True):
        counts = current_counts(run_dir, man)  # from the transcript when the manifest's are stale
        if counts.get("damaged"):
            damaged.append(f"{run_dir.name}: {counts['damaged']} damaged transcript line(s), skipped and kept in "
                           f"transcript.rejected.jsonl (`harness report {run_dir.name}` names them)")
        table.add_row(untrusted(run_dir.name), untrusted(status),  # the id names suite and target already
                      f"{counts.get('answered', 0):,}", f"{counts.get('errors', 0):,}",
                      f"{counts['pending']:,}" if counts.get("pending") is not None else "",
                      str(man.get("started_at") or "")[:16].replace("T", " "))
    console.print(table)
    for line in damaged:
        console.print(untrusted(line, "yellow"))
    if len(manifests) > limit:
        console.print(f"... and {len(manifests) - limit} older runs (--limit).")


def register(app: typer.Typer) -> None:
    """Attach `harness run` and `harness runs` to the main app."""
    app.command("run", no_args_is_help=False)(run_command)
    app.command("runs")(runs_command)
