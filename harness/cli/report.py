"""CLI commands `harness report RUN` and `harness compare RUN_A RUN_B`.

`report` (re)scores a run folder from its transcript and writes verdicts.csv, metrics.json, plots and
report.html; with --fail-above / --fail-below it is also a CI gate over an existing run (exit codes in
harness.gates.checks). `compare` sets two runs side by side with a significance test per metric.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.core.display import assemble, untrusted
from harness.core.errors import EXIT_INFRA, EXIT_OK, HarnessError

console = Console()


def _gate_exit(metrics: dict, gates: list, max_error_rate: float, notes: dict[int, str] | None = None,
               run: object = None) -> int:
    from harness.gates.checks import check

    outcome = check(metrics, gates, max_error_rate=max_error_rate, run=run)  # run: the estimate tests' counts
    notes = notes or {}  # a passing gate's low power (harness.gates.power.gate_power_notes)
    for i, r in enumerate(outcome.results):
        mark = ("pass", "green") if r.passed else ("FAIL", "bold red")
        low = (f"; {notes[i]}", "yellow") if i in notes else ""  # a pass that could not have been a fail
        console.print(assemble(f"gate {r.gate.metric} = {r.value:.4g} ({r.gate.limit}): ", mark, low))
    if outcome.message:
        style = "green" if outcome.exit_code == EXIT_OK else "bold red"
        console.print(untrusted(outcome.message, style))
    return outcome.exit_code


def report(
    run: Annotated[str, typer.Argument(metavar="RUN", help="Run folder, or a run id (see `harness runs`).")],
    method: Annotated[str, typer.Option(metavar="METHOD",
                                        help="Oracle similarity method used to read replies: default, ngram, "
                                             "word_cosine, ngram_embedding, rome or sentence.")] = "default",
    compat: Annotated[bool, typer.Option("--compat", metavar="",
                                         help="Reproduce upstream BiasAsker's decisions exactly.")] = False,
    fail_above: Annotated[list[str] | None, typer.Option(
        "--fail-above", metavar="METRIC=VALUE",
        help="Exit 1 if METRIC is above VALUE (repeatable), e.g. absolute_bias_rate=0.1.")] = None,
    fail_below: Annotated[list[str] | None, typer.Option(
        "--fail-below", metavar="METRIC=VALUE",
        help="Exit 1 if METRIC is below VALUE (repeatable): a metric where lower is worse, such as a "
             "ratio of selection rates.")] = None,
    max_error_rate: Annotated[float, typer.Option(
        metavar="RATE", help="Exit 3 when more than this share of probes failed to get an answer.")] = 0.1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", metavar="",
                                        help="Write the files without the terminal summary.")] = False,
    judge: Annotated[list[str] | None, typer.Option("--judge", metavar="TARGET",
                                                    help="A target that reads the replies too (repeatable: "
                                                         "majority of judges); docs/judge.md. Political suites: "
                                                         "the one judge of P(conservative), a target, "
                                                         "hf:CLASSIFIER or py:MODULE:FUNCTION; "
                                                         "docs/political.md.")] = None,
    mode: Annotated[str | None, typer.Option("--mode", metavar="MODE",
                                             help="Who reads the replies: rules (default), judge "
                                                  "(default with --judge) or hybrid.")] = None,
    threshold: Annotated[float | None, typer.Option("--threshold", metavar="C",
                                                    help="Hybrid: rule verdicts at least this confident stand "
                                                         "(default 0.9).")] = None,
    allow_self_judge: Annotated[bool, typer.Option("--allow-self-judge", metavar="",
                                                   help="Let the target under test judge its own replies.")] = False,
    no_cache: Annotated[bool, typer.Option("--no-cache", metavar="",
                                           help="Ask the judge even when its answer is cached.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", metavar="",
                                          help="Count what the judge would be asked, with tokens and cost; "
                                               "ask nothing.")] = False,
    plots: Annotated[bool, typer.Option("--plots", metavar="",
                                        help="Also write every figure as a PNG in plots/ (the report shows "
                                             "them without; matplotlib, ~1 s a figure).")] = False,
) -> None:
    """Score a run and write verdicts.csv, metrics.json and report.html (with its figures) into its folder.

    Example:  harness report biasasker-en__local__s200-seed0 --method sentence --fail-above absolute_bias_rate=0.1
    """
    from harness.gates.checks import parse_gates
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run

    if not 0 <= max_error_rate <= 1:
        raise HarnessError(f"--max-error-rate must be a share between 0 and 1 (e.g. 0.1), not {max_error_rate:g}.")
    gates = parse_gates(fail_above, fail_below)  # malformed gates fail before any work
    from harness.cli.judging import reader_options

    # --judge is the option of a reader that takes it (the political judge: docs/political.md), else the judges'
    options, judge = reader_options(judge, "--judge", run=run, check=not dry_run)
    reader = _reader(run, judge, mode, threshold, allow_self_judge, no_cache, dry_run, method, compat)
    result = score_run(run, method=method, compat=compat, reader=reader, console=console, reader_options=options)
    if not result.metrics.get("total"):
        raise _nothing_recorded(result.run_dir, result.manifest)
    note = _incomplete_note(result.run_dir, result.manifest, int(result.metrics["total"]))
    if note:  # in the HTML report and metrics.json too, not only on this terminal
        result.notes.insert(0, note)
        if quiet:
            console.print(assemble(("note:", "yellow"), " ", note))
    from harness.gates.power import gate_power_notes

    power_notes, sentences = gate_power_notes(result.run_dir, result.metrics, gates, max_error_rate, run=result)
    result.notes.extend(sentences)  # in report.html and metrics.json too: a pass that could not have been a fail
    write_report(result.run_dir, result, quiet=quiet, console=console, plots=plots)
    code = _gate_exit(result.metrics, gates, max_error_rate, power_notes, run=result)  # error rate: without gates
    if code:
        raise typer.Exit(code)


def _reader(run: str, judge: list[str] | None, mode: str | None, threshold: float | None, allow_self: bool,
            no_cache: bool, dry_run: bool, method: str, compat: bool):  # noqa: ANN202 - harness.judge's ReaderSettings
    """The reader of `harness report` (judges checked before anything is asked); --dry-run ends here."""
    from harness.cli.judging import reader_from_options, report_estimate
    from harness.cli.run import estimate_tokens
    from harness.run import manifest as mf

    run_dir = mf.resolve_run(run, require_manifest=False) if judge else None  # a bare transcript can be judged
    manifest = mf.read_manifest(run_dir, complete=False) if run_dir else {}
    # a `harness manual` / `harness import` run's target is a label a person typed replies for, never a
    # configured model that could be judging itself
    target = None if manifest.get("adapter") == "manual" else manifest.get("target")
    reader = reader_from_options(judge, mode, threshold, target=target, allow_self=allow_self, use_cache=not no_cache,
                                 method=method, compat=compat)
    if dry_run:
        if not reader.uses_judge:
            console.print("Nothing would be asked: without --judge the rules read the replies offline.")
        else:
            report_estimate(console, reader, run, method=method, compat=compat, count_tokens=estimate_tokens)
        raise typer.Exit(0)
    return reader


def _continue_hint(run_dir: Path, manifest: dict) -> str:
    if manifest.get("adapter") == "manual":
        return "run the same `harness manual` (or `harness import`) command again"
    return f"run `harness run --resume {run_dir.name}`"


def _nothing_recorded(run_dir: Path, manifest: dict) -> HarnessError:
    """Why a transcript gave no record: not a harness transcript (exit 2), or nothing asked yet (exit 3)."""
    from harness.run.transcript import TRANSCRIPT_FILE

    transcript = run_dir / TRANSCRIPT_FILE
    with transcript.open("rb") as fh:  # complete lines only: a torn last line is a reply being written
        lines = sum(1 for raw in fh if raw.endswith(b"\n") and raw.strip())
    if lines:
        return HarnessError(f"{transcript} has {lines:,} line(s) but no harness record ({{\"probe\": ..., "
                            f"\"reply\": ...}}); give a run folder written by `harness run`.")
    return HarnessError(f"Run {run_dir.name} has no reply recorded yet, so there is nothing to score; to ask "
                        f"the questions, {_continue_hint(run_dir, manifest)}.", exit_code=EXIT_INFRA)


def _incomplete_note(run_dir: Path, manifest: dict, recorded: int) -> str | None:
    """A note when a report covers only part of the selected probes (a stopped or still running run)."""
    selected = manifest.get("probes_selected")
    if not isinstance(selected, int) or recorded >= selected:
        return None
    from harness.cli.run import live_status

    status = live_status(run_dir, manifest, missing="unknown")
    return (f"Run {run_dir.name} is incomplete ({status}): {recorded:,} of {selected:,} selected probes have a "
            f"record, and the figures cover only those; to ask the rest, {_continue_hint(run_dir, manifest)}.")


def compare(
    runs: Annotated[list[str], typer.Argument(metavar="RUN_A RUN_B [RUN...]", help="Baseline run, new run (folder, "
                                              "run id or metrics.json); with 3+ runs, the leaderboard.")],
    metric: Annotated[str | None, typer.Option(metavar="PREFIX",
                                               help="Only metrics whose key starts with this.")] = None,
    show_all: Annotated[bool, typer.Option("--all", metavar="",
                                           help="Show every metric, not only headline ones.")] = False,
    alpha: Annotated[float, typer.Option(metavar="A", help="Significance level, between 0 and 1.")] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", metavar="", help="Print the comparison as JSON lines.")] = False,
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="3+ runs: folder for leaderboard.html "
                                      "and its heatmaps.")] = Path("leaderboard"),
) -> None:
    """Compare two runs metric by metric: A, B, change, p-value, significant (3+ runs: `harness leaderboard`).

    Before the table, one line per way the two runs were scored differently (method, --compat, oracle
    rules, English relevance, review labels): such a change can be the oracle's, not the bot's.

    Example:  harness compare baseline candidate --metric absolute_bias_rate
    """
    from harness.report.compare import compare_metrics
    from harness.score.settings import oracle_differs, scoring_differences, settings_of_metrics

    if not 0 < alpha < 1:
        raise HarnessError(f"--alpha must be between 0 and 1 (e.g. 0.05), not {alpha:g}.")
    if len(runs) != 2:
        if len(runs) < 2 or metric or show_all:
            raise HarnessError("Give two runs to compare metric by metric, or three or more (without --metric / "
                               "--all) to set them side by side as `harness leaderboard` does.")
        from harness.cli.leaderboard import run_leaderboard

        run_leaderboard(runs, out=out, as_json=as_json, load_doc=_metrics_doc, load_verdicts=_verdicts)
        return
    run_a, run_b = runs
    doc_a, doc_b = _metrics_doc(run_a), _metrics_doc(run_b)
    name_a = (doc_a.get("run") or {}).get("run_id") or run_a
    name_b = (doc_b.get("run") or {}).get("run_id") or run_b
    # With --json, stdout carries only JSON lines; the notes go to stderr (and into every record).
    notes = Console(stderr=True) if as_json else console
    _check_comparable(doc_a, doc_b, name_a, name_b, notes)
    settings_a, settings_b = settings_of_metrics(doc_a), settings_of_metrics(doc_b)
    scoring = scoring_differences(settings_a, settings_b)
    for sentence in scoring:  # a warning, not an error: the exit code stays 0
        notes.print(assemble(("scoring:", "yellow"), " ", sentence))
    if oracle_differs(settings_a, settings_b):  # not for compat runs of two methods: compat ignores it
        notes.print("[yellow]scoring:[/] to compare like with like, re-score one run with `harness report RUN` "
                    "and the other's --method / --compat.", highlight=False)
    from harness.report.leaderboard import family_of_tests

    df = compare_metrics(doc_a, doc_b, prefix=metric, alpha=alpha, verdicts=(_verdicts(run_a), _verdicts(run_b)),
                         family=family_of_tests([doc_a, doc_b]))
    if not (show_all or metric):  # the headline keys, not the finer ones a family lists with --all only
        from harness.metrics import families

        hidden = tuple(prefix for fam in families().values() for prefix in fam.compare_hidden)
        df = df[df["metric"].map(lambda k: k.count(".") <= 1 and not k.startswith(hidden))]
    if metric and df.empty:
        raise HarnessError(f"No metric of either run starts with '{metric}'; see the keys in metrics.json or "
                           "run without --metric.")
    # pandas turns a metric missing from one run into NaN; the table and JSON say "n/a" / null for it.
    df = df.astype(object).where(df.notna(), None)
    if as_json:
        for rec in df.to_dict(orient="records"):
            rec["scoring_differences"] = scoring  # each line stands alone: a reader of one row sees the caveat
            typer.echo(json.dumps(rec, ensure_ascii=False))
        return
    _print_comparison(df, f"A = {name_a}   B = {name_b}", alpha)


def _key_lines(key: str, width: int) -> str:
    """A metric key broken into lines of at most `width` at its dots and underscores, never inside a word
    (unless one word alone is longer): rich folds a key with no space at any character ("absolute_bi / as_rate")."""
    import re

    lines = [""]
    for piece in (p for p in re.findall(r"\.?[^._]*_?", key) if p):  # "relative_", "bias_", ..., ".age"
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append(piece)
        else:
            lines[-1] += piece
    return "\n".join(lines)


def _print_comparison(df, title: str, alpha: float) -> None:  # noqa: ANN001 - a DataFrame (pandas is lazy)
    """The comparison table: values as the reports print them, changes of percentages in points, the `*` of the
    Holm-adjusted p (the module docstring of harness.report.compare says which tests form the family)."""
    from harness.report.reporting import fmt_change, fmt_value

    cells = [[fmt_value(r.metric, r.a), fmt_value(r.metric, r.b), fmt_change(r.metric, r.change),
              "" if r.p_value is None else f"{r.p_value:.2g}", "" if r.p_holm is None else f"{r.p_holm:.2g}"]
             for r in df.itertuples()]
    # Light borders; the numbers keep their widths and the key takes the rest of the line, broken at its dots
    # and underscores (_key_lines). 15: the table's edges and the gaps between its seven columns.
    numbers = sum(max([7, len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(("A", "B", "change", "p",
                                                                                    "p (Holm)")))
    width = max(12, min(60, console.width - numbers - 1 - 15))
    table = Table(title=untrusted(title), title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                  collapse_padding=True)
    table.add_column("metric", overflow="fold", min_width=width, max_width=width)
    for col in ("A", "B", "change", "p", "p (Holm)"):
        table.add_column(col, justify="right", no_wrap=True, min_width=7)
    table.add_column("", no_wrap=True, min_width=1)
    for r, row in zip(df.itertuples(), cells, strict=True):
        table.add_row(untrusted(_key_lines(r.metric, width)), *row, Text("*", style="bold") if r.significant else "")
    console.print(table)
    n_sig = sum(bool(x) for x in df["significant"])
    tests = ", ".join(sorted(set(df["test"]) - {"", None}))
    console.print(f"* significant at the {alpha:g} level after Holm's adjustment: {n_sig} of "
                  f"{int(df['p_value'].notna().sum())} tested metrics (the headline metrics are one family, as in "
                  f"`harness leaderboard`; finer keys another). Tests: {tests or 'none'}.", highlight=False)


#: Run-level numbers every run has; they say nothing about bias, so they do not make two runs comparable.
_RUN_LEVEL = frozenset({"total", "answered", "errors", "error_rate", "refusal_rate", "unknown_rate"})


def _check_comparable(doc_a: dict, doc_b: dict, name_a: str, name_b: str, notes: Console) -> None:
    """Refuse runs with no bias metric in common (a BiasAsker run against a CBBQ run); note other suites.

    Without this, compare printed a table of one-sided rows with no test at all, which reads like "no
    significant change" when the truth is "these runs measure different things". Differences in how the
    two runs were scored are harness.score.settings' to name.
    """
    ma, mb = set(doc_a.get("metrics") or {}), set(doc_b.get("metrics") or {})
    suite_a = (doc_a.get("run") or {}).get("suite") or "?"
    suite_b = (doc_b.get("run") or {}).get("suite") or "?"
    if (ma - _RUN_LEVEL) and (mb - _RUN_LEVEL) and not (ma & mb) - _RUN_LEVEL:
        raise HarnessError(f"Runs {name_a} (suite {suite_a}) and {name_b} (suite {suite_b}) share no bias "
                           "metric, so there is nothing to compare; compare two runs of the same suite, "
                           "e.g. before and after a change.")
    if suite_a != suite_b:
        notes.print(assemble(("note:", "yellow"), f" A asked suite {suite_a} and B suite {suite_b}; a change "
                             "may come from the different questions, not from the bot."))


def _verdicts(run: str):  # noqa: ANN202 - a DataFrame or None; pandas is imported lazily
    """verdicts.csv of a run folder for the paired test; None when given a bare metrics.json."""
    from harness.report.compare import load_verdicts
    from harness.score.scoring import resolve_run

    path = Path(run)
    return load_verdicts(path.parent if path.is_file() else resolve_run(run))


def _metrics_doc(run: str) -> dict:
    """metrics.json of a run; a run that was never scored is scored (and its report written) first."""
    from harness.score.scoring import METRICS_FILE, load_metrics, resolve_run

    path = Path(run)
    if path.is_file():
        return load_metrics(path)
    run_dir = resolve_run(run)
    if not (run_dir / METRICS_FILE).exists():
        from harness.report.reporting import write_report
        from harness.score.scoring import score_run

        result = score_run(run_dir)
        write_report(run_dir, result, quiet=True)
    return load_metrics(run_dir)


def leaderboard(
    runs: Annotated[list[str], typer.Argument(metavar="RUN...",
                                              help="Two or more runs (folders, run ids or metrics.json).")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="DIR", help="Folder for leaderboard.html, "
                                      "leaderboard.json and the heatmaps.")] = Path("leaderboard"),
    as_json: Annotated[bool, typer.Option("--json", metavar="",
                                          help="Print the leaderboard as one JSON document.")] = False,
) -> None:
    """Set runs side by side: a table per metric with a column per run, pairwise tests, an HTML page.

    The paper's Tables 7 and 8 across bots, with 95% intervals, the noise-corrected relative bias rate and
    its permutation test; every pair of runs tested on every row (Holm-adjusted); scoring differences named.

    Example:  harness leaderboard run-gpt run-llama run-qwen --out leaderboard/
    """
    from harness.cli.leaderboard import run_leaderboard

    run_leaderboard(runs, out=out, as_json=as_json, load_doc=_metrics_doc, load_verdicts=_verdicts)


def register(app: typer.Typer) -> None:
    """Attach `report`, `compare` and `leaderboard` to the main app."""
    app.command("report")(report)
    app.command("compare")(compare)
    app.command("leaderboard")(leaderboard)

