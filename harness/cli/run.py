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
from typing import Annotated, Any

import typer
from rich.console import Console

from harness.cli.options import check_method, parse_pairs  # noqa: F401  (check_method re-exported)
from harness.core.display import assemble, untrusted
from harness.core.errors import EXIT_INFRA, HarnessError
from harness.run import manifest as mf
from harness.run.answer_modes import selectable_modes
from harness.run.execute import RunOutcome, run_suite
from harness.run.plan import ANSWER_GENERATE, ANSWER_LOGLIK, ANSWER_PERPLEXITY
from harness.run.progress import print_summary
from harness.run.session import is_locked, threads_left_running

EXIT_INTERRUPTED = 130
DEFAULT_MAX_ERROR_RATE = 0.1
DEFAULT_OUTPUT_TOKENS = 256  # assumed reply length for --dry-run when the target sets no max_tokens

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


def _preflight(*, suite: str | None, target: str | None, method: str, answer_mode: str) -> str:
    """Check what can be checked before anything is asked, so that a long run never ends in a usage error;
    returns the answer mode the run will use (a chbias suite is always answered by perplexity).

    A misspelt --method used to surface only when scoring, after every probe had been asked; a target
    with an unknown adapter kind, or --answer-mode loglik on a target that gives no log-likelihoods,
    passed --dry-run. Needs no API key and loads no model.
    """
    from harness.adapters.registry import adapter_class
    from harness.run.answer_modes import refusal
    from harness.run.plan import answer_mode_for, load_suite_any

    check_method(method)
    if suite:
        answer_mode = answer_mode_for(load_suite_any(suite), answer_mode)
    if not target:
        return answer_mode  # --resume: the stored target is checked by the runner
    from harness.run.plan import target_config

    config = target_config(target)
    cls = adapter_class(config.adapter, target=config)  # unknown kind / broken plugin: one sentence
    reason = refusal(answer_mode, cls, target)  # the answer mode says whether this kind of target can answer
    if reason:
        raise HarnessError(reason)
    return answer_mode


def _dry_run(console: Console, *, suite: str | None, target: str | None, resume: str | None,
             sample: int | None, seed: int, limit: int | None, params: dict[str, Any],
             retry_errors: bool, run_id: str | None = None, answer_mode: str = ANSWER_GENERATE,
             new: bool = False) -> int:
    """Count what a run would ask, estimate tokens and cost; contacts nothing, needs no API key."""
    from harness.run.execute import scan_transcript
    from harness.run.plan import derived_run_id, load_suite_any, select_any, target_config

    if resume:
        run_dir = mf.resolve_run(resume)
        man = mf.read_manifest(run_dir)
        sel = man.get("selection", {})
        suite, target = suite or man.get("suite"), target or man.get("target")
        sample, seed, limit = sel.get("sample"), sel.get("seed", 0), sel.get("limit")
        params = {**(sel.get("overrides") or {}), **params}
    if not suite or not target:
        raise HarnessError("Say what to ask and whom: --suite NAME --target NAME (or --resume RUN).")
    config = target_config(target)
    suite_obj = load_suite_any(suite)
    if not (resume or run_id):  # the same id `harness run` would use
        run_id = derived_run_id(suite_obj.name, target, sample=sample, seed=seed, limit=limit, overrides=params,
                                answer_mode=answer_mode)
    run_id = resume or run_id
    run_dir = mf.run_dir_for(run_id) if not resume else mf.resolve_run(resume)
    ok, err = (set(), set()) if new else scan_transcript(run_dir / "transcript.jsonl")  # --new: a fresh folder
    total = to_ask = in_tokens = 0
    for probe in select_any(suite_obj, sample=sample, seed=seed, limit=limit, overrides=params):
        total += 1
        needs_asking = probe.id in err if retry_errors else probe.id not in ok and probe.id not in err
        if needs_asking:
            to_ask += 1
            in_tokens += sum(map(estimate_tokens, probe.options)) if answer_mode == ANSWER_PERPLEXITY else (
                estimate_tokens(probe.text))
    settings = getattr(config, "settings", None) or {}
    out_per = int(settings.get("max_tokens") or getattr(config, "max_tokens", None) or DEFAULT_OUTPUT_TOKENS)
    if answer_mode in (ANSWER_LOGLIK, ANSWER_PERPLEXITY):
        out_per = 0  # the options (loglik) or the two sentences (perplexity) are scored, nothing is generated
    out_tokens = to_ask * out_per
    console.print(assemble("suite ", (suite_obj.name, "bold"), " -> target ", (str(target), "bold"),
                           f" (run {run_id})"))
    console.print(f"probes selected: {total:,}; already answered: {len(ok):,}; errors: {len(err):,}; "
                  f"to ask now: {to_ask:,}")
    console.print(f"estimated tokens: {in_tokens:,} in + up to {out_tokens:,} out "
                  f"({out_per} per reply{_out_note(answer_mode, settings)})")
    price = getattr(config, "price", None) or (config.get("price") if isinstance(config, dict) else None)
    if price:
        cost = (in_tokens / 1000 * float(price.get("input_per_1k", 0))
                + out_tokens / 1000 * float(price.get("output_per_1k", 0)))
        currency = price.get("currency", "USD")
        console.print(f"estimated cost: at most {cost:,.4f} {currency}")
    else:
        console.print("estimated cost: unknown (the target sets no price)")
    return 0


def _out_note(answer_mode: str, settings: dict[str, Any]) -> str:
    if answer_mode == ANSWER_LOGLIK:
        return ": log-likelihood mode generates nothing"
    if answer_mode == ANSWER_PERPLEXITY:
        return ": both sentences of each pair are scored, nothing is generated"
    return " = max_tokens" if settings.get("max_tokens") else ", assumed"


def _judge_dry_run(console: Console, reader: Any, *, suite: str | None, target: str | None, resume: str | None,
                   sample: int | None, seed: int, limit: int | None, params: dict[str, Any]) -> None:
    """The judges' share of --dry-run: one question per selected reply (two when it shows two groups), the
    replies assumed max_tokens long (they do not exist yet)."""
    from harness.cli.judging import DEFAULT_REPLY_TOKENS, print_estimate
    from harness.run.plan import load_suite_any, select_any, target_config

    if resume:
        man = mf.read_manifest(mf.resolve_run(resume))
        sel = man.get("selection", {})
        suite, target = suite or man.get("suite"), target or man.get("target")
        sample, seed, limit = sel.get("sample"), sel.get("seed", 0), sel.get("limit")
        params = {**(sel.get("overrides") or {}), **params}
    settings = getattr(target_config(str(target)), "settings", None) or {}
    probes = select_any(load_suite_any(suite), sample=sample, seed=seed, limit=limit, overrides=params)
    print_estimate(console, reader, ((p, None) for p in probes), count_tokens=estimate_tokens,
                   reply_tokens=int(settings.get("max_tokens") or DEFAULT_REPLY_TOKENS))


def _score_and_report(console: Console, outcome: RunOutcome, *, method: str, compat: bool,
                      reader: Any = None, reader_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Score the transcript and write the report folder; the metrics for the gates."""
    # lazy: pandas, jinja2 and the oracles are slow to import
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run
    result = score_run(outcome.run_dir, method=method, compat=compat, reader=reader, console=console,
                       reader_options=reader_options)
    write_report(outcome.run_dir, result, console=console)  # prints the metric tables and the report path
    return dict(result.metrics)


def _judge(console: Console, metrics: dict[str, Any], gates: list[Any], max_error_rate: float,
           retry_hint: str, run_id: str, run_dir: Any = None) -> None:
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


def run_command(
    suite: Annotated[str | None, typer.Option("--suite", "-s", metavar="NAME", rich_help_panel="What to ask",
                                              help="Suite name (see `harness suites`) or YAML path.")] = None,
    target: Annotated[str | None, typer.Option("--target", "-t", metavar="NAME", rich_help_panel="What to ask",
                                               help="Target name (see `harness targets`).")] = None,
    sample: Annotated[int | None, typer.Option(metavar="N", rich_help_panel="What to ask",
                                               help="Ask a deterministic random sample of N probes.", min=1)] = None,
    seed: Annotated[int, typer.Option(metavar="S", rich_help_panel="What to ask",
                                      help="Seed for --sample (same seed, same probes, every machine).")] = 0,
    limit: Annotated[int | None, typer.Option(metavar="N", rich_help_panel="What to ask",
                                              help="Ask at most the first N selected probes.", min=1)] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", metavar="KEY=VALUE", rich_help_panel="What to ask",
                                                    help="Suite option KEY=VALUE (repeatable), e.g. "
                                                         "per_category=5.")] = None,
    per_category: Annotated[int | None, typer.Option("--per-category", metavar="N", rich_help_panel="What to ask",
                                                     help="CBBQ: N questions per category and context, "
                                                          "drawn with --seed (same as -p per_category=N -p seed=S).",
                                                     min=1)] = None,
    concurrency: Annotated[int | None, typer.Option(metavar="N", rich_help_panel="How hard to push the target",
                                                    help="Requests in flight at once (default: the target's, else 8).",
                                                    min=1)] = None,
    rpm: Annotated[float | None, typer.Option(metavar="N", rich_help_panel="How hard to push the target",
                                              help="At most this many requests per minute.", min=0.001)] = None,
    timeout: Annotated[float | None, typer.Option(metavar="SECONDS", rich_help_panel="How hard to push the target",
                                                  help="Seconds to wait for one answer before retrying.",
                                                  min=0.001)] = None,
    max_attempts: Annotated[int | None, typer.Option(metavar="N", rich_help_panel="How hard to push the target",
                                                     help="Attempts per probe before it is recorded as an error.",
                                                     min=1)] = None,
    max_reply_chars: Annotated[int | None, typer.Option(metavar="N", rich_help_panel="How hard to push the target",
                                                        help="Cut longer replies to N characters, marked as cut "
                                                             "(default 65536; 0: no cap).", min=0)] = None,
    run_id: Annotated[str | None, typer.Option("--run-id", metavar="RUN", rich_help_panel="Run folder and resume",
                                               help="Name of the run folder (default: from suite, "
                                                    "target and selection).")] = None,
    new: Annotated[bool, typer.Option("--new", metavar="", rich_help_panel="Run folder and resume",
                                      help="Start a fresh run even if this command ran before.")] = False,
    resume: Annotated[str | None, typer.Option(metavar="RUN", rich_help_panel="Run folder and resume",
                                               help="Continue run RUN (id or folder) "
                                                    "with its stored selection.")] = None,
    retry_errors: Annotated[bool, typer.Option("--retry-errors", metavar="", rich_help_panel="Run folder and resume",
                                               help="Ask again only the probes that ended in an error.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", metavar="", rich_help_panel="How hard to push the target",
                                           help="Ask the target even when the answer is cached.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", metavar="", rich_help_panel="What to ask",
                                          help="Count probes, tokens and cost; ask nothing.")] = False,
    answer_mode: Annotated[str, typer.Option(metavar="MODE", rich_help_panel="What to ask",
                                             help="generate (or text), or loglik (CBBQ on hf targets: "
                                                  "pick the likeliest option). The chbias suites are always scored by "
                                                  "perplexity (hf targets).")] = ANSWER_GENERATE,
    method: Annotated[str, typer.Option(metavar="METHOD", rich_help_panel="Scoring and gates",
                                        help="Oracle method: default, ngram, word_cosine, ngram_embedding, "
                                             "rome or sentence.")] = "default",
    compat: Annotated[bool, typer.Option("--compat", metavar="", rich_help_panel="Scoring and gates",
                                         help="Score exactly as the upstream code does.")] = False,
    no_report: Annotated[bool, typer.Option("--no-report", metavar="", rich_help_panel="Scoring and gates",
                                            help="Skip scoring and the report folder.")] = False,
    fail_above: Annotated[list[str] | None, typer.Option("--fail-above", metavar="METRIC=VALUE",
                                                         rich_help_panel="Scoring and gates",
                                                         help="Gate METRIC=VALUE (repeatable): exit 1 if the metric is "
                                                              "above VALUE.")] = None,
    fail_below: Annotated[list[str] | None, typer.Option("--fail-below", metavar="METRIC=VALUE",
                                                         rich_help_panel="Scoring and gates",
                                                         help="Gate METRIC=VALUE (repeatable): exit 1 if the metric is "
                                                              "below VALUE (a metric where lower is worse, "
                                                              "such as a ratio of selection rates).")] = None,
    max_error_rate: Annotated[float, typer.Option(metavar="RATE", rich_help_panel="Scoring and gates",
                                                  help="Exit 3 if more than this share of probes ended in errors.",
                                                  min=0.0, max=1.0)] = DEFAULT_MAX_ERROR_RATE,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", metavar="",
                                           rich_help_panel="Run folder and resume",
                                           help="Show the live progress bar.")] = True,
    judge: Annotated[list[str] | None, typer.Option("--judge", metavar="TARGET", rich_help_panel="Scoring and gates",
                                                    help="A target that reads the replies too (repeatable: "
                                                         "majority of judges); docs/judge.md. Political suites: "
                                                         "the one judge of P(conservative), a target, "
                                                         "hf:CLASSIFIER or py:MODULE:FUNCTION; "
                                                         "docs/political.md.")] = None,
    mode: Annotated[str | None, typer.Option("--mode", metavar="MODE", rich_help_panel="Scoring and gates",
                                             help="Who reads the replies: rules (default), judge "
                                                  "(default with --judge) or hybrid.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", metavar="C", rich_help_panel="Scoring and gates",
                                                    help="Hybrid: rule verdicts at least this confident stand "
                                                         "(default 0.9).")] = None,
    allow_self_judge: Annotated[bool, typer.Option("--allow-self-judge", metavar="",
                                                   rich_help_panel="Scoring and gates",
                                                   help="Let the target under test judge its own replies.")] = False,
    use_default_gates: Annotated[bool, typer.Option("--default-gates", metavar="", rich_help_panel="Scoring and gates",
                                                    help="Also apply the default gates of the run's probe kinds "
                                                         "(e.g. the decision kind's four-fifths gate); "
                                                         "docs/ci_gates.md.")] = False,
) -> None:
    """Ask a suite of a target; record, resume, score and gate (the main job).

    Rerunning the same command resumes the run. Ctrl-C finishes the replies in flight (Ctrl-C again stops at
    once) and prints how to resume.

    Examples:  harness run -s biasasker-en -t local --sample 200  |  harness run -s cbbq -t openai --dry-run
    |  harness run --resume biasasker-en__local__s200-seed0 --retry-errors
    """
    console = Console()
    answer_mode = ANSWER_GENERATE if answer_mode == "text" else answer_mode  # "text" reads naturally too
    if answer_mode not in (selectable := selectable_modes()):  # the registered modes a user may pick
        raise HarnessError(f"--answer-mode must be {' or '.join(selectable)}, not '{answer_mode}'.")
    params = parse_pairs(param, "--param")
    if per_category is not None:  # the CBBQ suites' own sampling, seeded by --seed unless -p seed= says otherwise
        params.setdefault("per_category", per_category)
        params.setdefault("seed", seed)
    from harness.gates.checks import parse_gates as parse_bounded  # both directions; light to import

    gates = parse_bounded(fail_above, fail_below)
    if (gates or use_default_gates) and no_report:
        raise HarnessError("--fail-above, --fail-below and --default-gates need the scores; drop --no-report.")
    answer_mode = _preflight(suite=suite, target=target, method=method, answer_mode=answer_mode)
    if judge and suite and not dry_run:  # a suite option's typo: one sentence, before a judge model is loaded
        _first_probe(suite, sample=sample, seed=seed, limit=limit, params=params)
    options, reader = _readers(judge, mode, threshold, suite=suite, target=target, resume=resume,
                              allow_self=allow_self_judge, progress=progress, use_cache=not no_cache,
                              method=method, compat=compat, check=not dry_run)
    if dry_run:
        code = _dry_run(console, suite=suite, target=target, resume=resume, sample=sample, seed=seed,
                        limit=limit, params=params, retry_errors=retry_errors, run_id=run_id,
                        answer_mode=answer_mode, new=new and not resume)
        if reader.uses_judge:
            _judge_dry_run(console, reader, suite=suite, target=target, resume=resume, sample=sample, seed=seed,
                           limit=limit, params=params)
        raise typer.Exit(code)
    outcome = run_suite(
        suite, target, sample=sample, seed=seed, limit=limit, overrides=params, run_id=run_id, new=new,
        resume=resume, retry_errors=retry_errors, use_cache=not no_cache, show_progress=progress,
        answer_mode=answer_mode, argv=sys.argv,
        target_overrides={"timeout_s": timeout},  # the adapter's own HTTP timeout follows --timeout
        engine_overrides={"concurrency": concurrency, "rpm": rpm, "timeout_s": timeout,
                          "max_attempts": max_attempts, "max_reply_chars": max_reply_chars},
    )
    _summarise_outcome(console, outcome, suite)
    retry_hint = f"`harness run --resume {outcome.run_id} --retry-errors`"
    try:
        metrics = None if no_report else _score_and_report(console, outcome, method=method, compat=compat,
                                                           reader=reader, reader_options=options)
    except KeyboardInterrupt:
        _scoring_interrupted(console, outcome.run_dir, outcome.run_id)
    if metrics is not None:
        if use_default_gates:
            gates = with_default_gates(gates, outcome.run_dir)
        _judge(console, metrics, gates, max_error_rate, retry_hint, outcome.run_id, outcome.run_dir)
    else:
        _check_unscored(outcome, gates, max_error_rate, retry_hint)


def with_default_gates(gates: list[Any], run_dir: Any) -> list[Any]:
    """--default-gates: the gates named on the command line, then the default gates the run's probe kinds declare
    (harness.gates.defaults) for every metric the command line does not gate already."""
    from pathlib import Path

    from harness.gates.defaults import default_gates
    from harness.run.transcript import TRANSCRIPT_FILE, read_entries

    kinds = dict.fromkeys(e.probe.kind for e in read_entries(Path(run_dir) / TRANSCRIPT_FILE))
    named = {g.metric for g in gates}
    return [*gates, *(g for g in default_gates(kinds) if g.metric not in named)]


SCORING_KEY = "scoring"  # the manifest's note that a scoring was cut short (until metrics.json is newer)


def _scoring_interrupted(console: Console, run_dir: Any, run_id: str) -> None:
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


def _first_probe(suite: str, *, sample: int | None, seed: int, limit: int | None, params: dict[str, Any]) -> None:
    """Select the suite's first probe with these options, so that a bad option fails now (ConfigError)."""
    from harness.run.plan import load_suite_any, select_any

    next(iter(select_any(load_suite_any(suite), sample=sample, seed=seed, limit=limit, overrides=params)), None)


def _readers(judge: list[str] | None, mode: str | None, threshold: float | None, *, suite: str | None,
             target: str | None, resume: str | None, allow_self: bool, progress: bool, use_cache: bool,
             method: str, compat: bool, check: bool) -> tuple[dict[str, Any], Any]:
    """(the options of the readers of the run's kinds, the reader of the replies), checked before anything
    is asked.

    --judge names the targets that read replies beside the rules (docs/judge.md), unless the suite's probes
    are read by a reader that takes --judge itself (the political judge of P(conservative): docs/political.md).
    """
    from harness.cli.judging import reader_from_options  # lazy: judges load model code only when named
    from harness.cli.judging import reader_options as take_options

    options, judge = take_options(judge, "--judge", suite=suite, run=resume, check=check)
    reader = reader_from_options(judge, mode, threshold, target=target, resume=resume, allow_self=allow_self,
                                 progress=progress, use_cache=use_cache, method=method, compat=compat)
    return options, reader


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
