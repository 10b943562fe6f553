"""The judge options of `harness run` and `harness report` (--judge, --mode, --threshold, --allow-self-judge)
and their --dry-run estimate. The reading itself is harness.judge; this module turns options into its
settings and checks them before anything is asked.

One --judge option serves every suite: its values name the targets that read replies beside the rules
(harness.judge.reading), unless the run's probes are read by a reader that declares the option as its own
(harness.core.kinds.ReaderOption: the political judge of P(conservative)); then `reader_options` loads them
for that reader, and scoring hands them over as ReadContext.options[reader name].
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from harness.core.errors import HarnessError
from harness.core.records import canonical_kind

DEFAULT_REPLY_TOKENS = 256  # a reply's assumed length when the target sets no max_tokens (as harness run)


def reader_options(values: Sequence[str] | None, flag: str, *, suite: str | None = None, run: str | None = None,
                   check: bool = True) -> tuple[dict[str, Any], list[str] | None]:
    """(options per reader name, the values left for the judges): the values of `flag` go to the reader of
    the run's probes when it declares that option (ReaderOption), loaded and, when `check`, tried; else they
    stay the judges'. The probes' kinds come from the run folder's transcript (`run`: one being resumed or
    reported), else from the suite's first probe."""
    if not values:
        return {}, None
    out: dict[str, Any] = {}
    for name, option in _options_of(_run_kinds(suite, run), flag):
        out[name] = option.take(list(values), check)
    return out, (None if out else list(values))


def _options_of(kinds: set[str], flag: str) -> list[tuple[str, Any]]:
    """(reader name, its ReaderOption for `flag`) of the readers of these kinds that take the option."""
    import harness.score  # noqa: F401 - the harness's own readers register on import
    from harness.core.kinds import READER_RULES, kind_spec, reader
    from harness.metrics import families

    families()  # the families' modules declare their kinds
    found: dict[str, Any] = {}
    for kind in sorted(kinds):
        spec = kind_spec(kind)
        if spec is None or spec.reader == READER_RULES or spec.reader in found:
            continue
        option = next((o for o in getattr(reader(spec.reader), "options", ()) if o.flag == flag), None)
        if option is not None:
            found[spec.reader] = option
    return list(found.items())


#: how many transcript lines are read for the run's probe kinds (a suite's probes share their kinds early)
KIND_LINES = 200


def _run_kinds(suite: str | None, run: str | None) -> set[str]:
    """The probe kinds of a run folder's first transcript lines, else of the suite's first probe; empty
    when neither can be read (the run or the suite then says why, in its own sentence)."""
    import json

    from harness.run import manifest as mf
    from harness.run.transcript import TRANSCRIPT_FILE

    if run:
        try:
            folder = mf.resolve_run(run, require_manifest=False)
        except HarnessError:
            return set()
        kinds: set[str] = set()
        try:
            with (folder / TRANSCRIPT_FILE).open("rb") as fh:
                for number, raw in enumerate(fh):
                    if number >= KIND_LINES:
                        break
                    try:
                        kinds.add(canonical_kind(str(json.loads(raw)["probe"]["kind"])))
                    except (ValueError, KeyError, TypeError):
                        continue
        except OSError:
            pass
        if kinds:
            return kinds
        suite = suite or mf.read_manifest(folder, complete=False).get("suite")
    if not suite:
        return set()
    from harness.run.plan import load_suite_any, select_any

    try:
        first = next(iter(select_any(load_suite_any(str(suite)), sample=None, seed=0, limit=1, overrides={})), None)
    except HarnessError:
        return set()
    return {first.kind} if first is not None else set()


def reader_from_options(judge: Sequence[str] | None, mode: str | None, threshold: float | None, *,
                        target: str | None, resume: str | None = None, allow_self: bool = False,
                        progress: bool = True, use_cache: bool = True, method: str = "default",
                        compat: bool = False) -> Any:
    """ReaderSettings for these options, every judge checked (unknown target, missing key, the target
    under test) before anything is asked; HarnessError with one sentence otherwise."""
    from harness.judge.reading import HYBRID_THRESHOLD, MODE_HYBRID, check_judges, reader_settings

    settings = reader_settings(mode, judge, threshold=HYBRID_THRESHOLD if threshold is None else threshold,
                               show_progress=progress, use_cache=use_cache)
    _hybrid_needs_the_default_rules(settings.mode == MODE_HYBRID, method, compat)
    if settings.uses_judge and not target and resume:
        from harness.run import manifest as mf

        target = mf.read_manifest(mf.resolve_run(resume)).get("target")
    check_judges(settings, target=target, allow_self=allow_self)
    return settings


def _hybrid_needs_the_default_rules(hybrid: bool, method: str, compat: bool) -> None:
    if hybrid and (compat or method != "default"):
        raise HarnessError("--mode hybrid trusts the rules where their calibrated confidence is high, which only "
                           "the default rules have; drop --method / --compat, or use --mode judge.")


def print_estimate(console: Console, reader: Any, items: Iterable[tuple[Any, str | None]], *,
                   count_tokens: Callable[[str], int], reply_tokens: int, asked: Callable[[str], bool] | None = None,
                   exact: bool = False) -> None:
    """What the judges would be asked: questions, tokens in and out, and cost at the judge's price.

    `items`: (probe, reply text or None when not answered yet: `reply_tokens` assumed). `asked(qid)` tells
    a question the judge already answered (its transcript or the response cache): not counted. In hybrid
    mode without replies nobody knows yet which verdicts the rules will be unsure of: "at most".
    """
    from harness.adapters.registry import get_target
    from harness.core.records import Reply
    from harness.judge.asking import MAX_TOKENS_REASON, MAX_TOKENS_WORD, questions_for
    from harness.judge.prompts import JUDGED_KINDS

    items = [(p, text) for p, text in items if p.kind in JUDGED_KINDS]
    pairs = [(p, Reply(p.id, "", text or "")) for p, text in items]
    out_per = MAX_TOKENS_REASON if reader.reason else MAX_TOKENS_WORD
    questions = [q for q in questions_for(pairs, reason=reader.reason) if asked is None or not asked(q.qid)]
    known = {p.id for p, text in items if text is not None}
    tokens_in = sum(count_tokens(q.prompt.system + q.prompt.user) + (0 if q.probe.id in known else reply_tokens)
                    for q in questions)
    tokens_out = len(questions) * out_per
    bound = "at most " if reader.mode == "hybrid" or not exact else ""
    for name in reader.judges:
        price = get_target(name).price
        cost = "unknown (the judge target sets no price)"
        if price:
            value = tokens_in / 1000 * float(price.get("input_per_1k", 0)) + tokens_out / 1000 * float(
                price.get("output_per_1k", 0))
            cost = f"{bound}{value:,.4f} {price.get('currency', 'USD')}"
        console.print(f"judge {name} ({reader.mode} mode): {bound}{len(questions):,} questions "
                      "(a question showing two groups twice, in both orders); "
                      f"estimated tokens {bound}{tokens_in:,} in + {tokens_out:,} out ({out_per} per answer); "
                      f"cost {cost}", highlight=False, markup=False)


def report_estimate(console: Console, reader: Any, run: str, *, method: str, compat: bool,
                    count_tokens: Callable[[str], int]) -> None:
    """`harness report RUN --judge T --dry-run`: the exact questions the judge would be asked now (answers in
    its transcript or the response cache are not asked again)."""
    from harness.judge.asking import judge_dir, open_judge, questions_for
    from harness.judge.confidence import confidence
    from harness.judge.reading import MODE_HYBRID
    from harness.run.response_cache import ResponseCache
    from harness.run.transcript import TRANSCRIPT_FILE, latest_by_probe
    from harness.score.scoring import resolve_run

    run_dir = resolve_run(run)
    ok = [(e.probe, e.reply) for e in latest_by_probe(run_dir / TRANSCRIPT_FILE).values() if e.reply.ok]
    if reader.mode == MODE_HYBRID:
        from harness.oracles import score

        rules = {v.probe_id: v for v in score(ok, method=method, compat=compat)}
        ok = [(p, r) for p, r in ok if (confidence(p, rules[p.id]) or 0.0) < reader.threshold]
    items = [(p, r.text) for p, r in ok]
    by_qid = {q.qid: q for q in questions_for(ok, reason=reader.reason)}
    for name in reader.judges:
        judge = open_judge(name, reason=reader.reason)
        answered = {pid for pid, e in latest_by_probe(judge_dir(run_dir, judge) / TRANSCRIPT_FILE).items()
                    if e.reply.ok}
        with ResponseCache() as cache:
            print_estimate(console, dataclasses.replace(reader, judges=(name,)), items, count_tokens=count_tokens,
                           reply_tokens=0, asked=_already(answered, by_qid, judge.fingerprint, cache), exact=True)


def _already(answered: set[str], by_qid: dict[str, Any], fingerprint: str, cache: Any) -> Callable[[str], bool]:
    """Whether the judge already answered a question: in its transcript, or in the response cache."""
    def asked(qid: str) -> bool:
        q = by_qid.get(qid)
        return qid in answered or (q is not None and cache.get(fingerprint, q.prompt.envelope()) is not None)

    return asked


def _batches(spec: str) -> tuple[int, ...]:
    from harness.judge.labelled import BATCHES, BLIND_BATCHES, TUNED_BATCHES

    named = {"blind": BLIND_BATCHES, "tuned": TUNED_BATCHES, "all": BATCHES}
    if spec in named:
        return named[spec]
    try:
        out: list[int] = []
        for part in spec.split(","):
            low, _, high = part.partition("-")
            out += range(int(low), int(high or low) + 1)
    except ValueError:
        raise HarnessError(f"--batches takes blind, tuned, all or numbers such as 6-9 or 6,8, not '{spec}'.") from None
    if not out or any(b not in BATCHES for b in out):
        raise HarnessError(f"--batches: the labelled batches are {BATCHES[0]}-{BATCHES[-1]}, not '{spec}'.")
    return tuple(dict.fromkeys(out))


def oracle_eval(
    judge: Annotated[list[str] | None,
                     typer.Option("--judge", metavar="TARGET", help="A judge target (repeatable: majority).")] = None,
    mode: Annotated[str | None, typer.Option("--mode", metavar="MODE",
                                             help="rules, judge or hybrid (default: judge with --judge).")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", metavar="C",
                                                    help="Hybrid: rule verdicts at least this confident stand "
                                                         "(default 0.9).")] = None,
    method: Annotated[str,
                      typer.Option(metavar="METHOD", help="The rules' method (default, sentence, ...).")] = "default",
    compat: Annotated[bool, typer.Option("--compat", metavar="", help="Upstream BiasAsker's rules.")] = False,
    batches: Annotated[str, typer.Option(metavar="WHICH",
                                         help="blind (6-9, the default), tuned (1-5), all, or e.g. 6-9.")] = "blind",
    sample: Annotated[int | None, typer.Option(metavar="N", min=6,
                                               help="A stratified sample of N replies (equal per language and "
                                                    "kind).")] = None,
    seed: Annotated[int, typer.Option(metavar="S", help="Seed of --sample.")] = 0,
    data: Annotated[Path | None, typer.Option(metavar="DIR",
                                              help="The labelled replies (default: "
                                                   "tests/data of this checkout).")] = None,
    no_reason: Annotated[bool, typer.Option("--no-reason", metavar="",
                                            help="Ask the judge for the label word only (faster).")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", metavar="",
                                           help="Ask the judge even when its answer is cached (to time it).")] = False,
    as_json: Annotated[bool, typer.Option("--json", metavar="", help="Print the result as one JSON object.")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress", metavar="",
                                           help="Show the judge's progress bar.")] = True,
) -> None:
    """Measure an oracle setting on the hand-labelled replies: accuracy per language and kind, Cohen's kappa
    against the person, verdicts per second.

    Examples:  harness oracle-eval  |  harness oracle-eval --judge local-judge --sample 120  |
    harness oracle-eval --judge local-judge --mode hybrid
    """
    import json

    from harness.cli.options import check_method
    from harness.core.paths import cache_dir
    from harness.judge.evaluate import evaluate, stratified_sample
    from harness.judge.labelled import load_labelled
    from harness.judge.reading import HYBRID_THRESHOLD, check_judges, reader_settings

    check_method(method)
    settings = reader_settings(mode, judge, threshold=HYBRID_THRESHOLD if threshold is None else threshold,
                               reason=not no_reason, use_cache=not no_cache, show_progress=progress)
    _hybrid_needs_the_default_rules(settings.mode == "hybrid", method, compat)
    check_judges(settings)
    chosen = _batches(batches)
    items = stratified_sample(load_labelled(data, batches=chosen), sample, seed)
    console = Console(stderr=as_json)
    result = evaluate(items, settings, method=method, compat=compat, workdir=cache_dir() / "oracle-eval",
                      console=Console(stderr=True))
    if as_json:
        typer.echo(json.dumps({"setting": result.setting, "batches": list(chosen), "sample": sample, "seed": seed,
                               "replies": result.verdicts, "seconds": round(result.seconds, 3),
                               "per_second": result.per_second, "judge": result.judge_calls,
                               "rows": [{"lang": k[0], "kind": k[1], **v} for k, v in result.rows.items()]},
                              ensure_ascii=False))
        return
    _print_evaluation(console, result, chosen, sample, seed)


def _print_evaluation(console: Console, result: Any, batches: tuple[int, ...], sample: int | None, seed: int) -> None:
    from rich import box
    from rich.table import Table

    from harness.core.display import untrusted

    which = f"batches {','.join(map(str, batches))}" + (f", stratified sample of {result.verdicts} (seed {seed})"
                                                       if sample else f", {result.verdicts} replies")
    table = Table(title=untrusted(f"{result.setting} on hand-labelled replies ({which})"), title_justify="left",
                  box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("lang", "kind", "n", "accuracy", "scored", "kappa", "label"):
        table.add_column(col, justify="left" if col in ("lang", "kind") else "right", no_wrap=True)

    def pct(value: Any) -> str:
        return "" if value is None else f"{value:.3f}"

    for (lang, kind), row in result.rows.items():
        table.add_row(lang, kind, str(row["n"]), pct(row["accuracy"]), pct(row["scored"]), pct(row["kappa"]),
                      pct(row["label"]))
    console.print(table)
    per = result.seconds / result.verdicts if result.verdicts else 0
    speed = (f"{result.per_second:,.1f} verdicts/s" if result.per_second and result.per_second >= 1
             else f"{per:.2f} s per verdict")
    console.print(untrusted(f"{result.verdicts} verdicts in {result.seconds:.1f} s ({speed})"))
    calls = {k: v for k, v in result.judge_calls.items() if isinstance(v, dict)}
    for name, c in calls.items():
        console.print(untrusted(f"judge {name}: {c['asked']} calls asked, {c['cached']} from the cache, "
                                f"{c['recorded']} from an earlier evaluation, {c['errors']} errors; label from "
                                + ", ".join(f"{m} {k}" for m, k in c["label_methods"].items())))
        if c["cached"] or c["recorded"]:
            console.print(untrusted(f"  the time above leaves out the {c['cached'] + c['recorded']} answers given "
                                    "before; to time the judge, evaluate with --no-cache (it asks every "
                                    "question again)"))
    flips = result.judge_calls.get("position_flips")
    if flips and flips[1]:
        console.print(untrusted(f"position flips: {flips[0]} of {flips[1]} questions read with their two groups "
                                "in both orders"))


def register(app: typer.Typer) -> None:
    """Attach `harness oracle-eval` to the main app."""
    app.command("oracle-eval")(oracle_eval)
