"""CLI commands `harness report RUN` and `harness compare RUN_A RUN_B`.

`report` (re)scores a run folder from its transcript and writes verdicts.csv, metrics.json, plots and
report.html; with --fail-above it is also a CI gate over an existing run (exit codes in harness.gates).
`compare` sets two runs side by side with a significance test per metric.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.errors import EXIT_OK

console = Console()


def _gate_exit(metrics: dict, gates: list, max_error_rate: float) -> int:
    from harness.gates import check

    outcome = check(metrics, gates, max_error_rate=max_error_rate)
    for r in outcome.results:
        mark = "[green]pass[/]" if r.passed else "[bold red]FAIL[/]"
        console.print(f"gate {r.gate.metric} = {r.value:.4g} (max {r.gate.threshold:g}): {mark}", highlight=False)
    if outcome.message:
        style = "green" if outcome.exit_code == EXIT_OK else "bold red"
        console.print(f"[{style}]{outcome.message}[/]", highlight=False)
    return outcome.exit_code


def report(
    run: Annotated[str, typer.Argument(help="Run folder, or a run id under the transcripts directory.")],
    method: Annotated[str, typer.Option(help="Oracle similarity method used to read replies: default, ngram, "
                                        "word_cosine, ngram_embedding, rome or sentence.")] = "default",
    compat: Annotated[bool, typer.Option("--compat", help="Reproduce upstream BiasAsker's decisions exactly.")] = False,
    fail_above: Annotated[list[str] | None, typer.Option(
        "--fail-above", metavar="METRIC=VALUE",
        help="Exit 1 if METRIC is above VALUE (repeatable), e.g. absolute_bias_rate=0.1.")] = None,
    max_error_rate: Annotated[float, typer.Option(
        help="Exit 3 when more than this share of probes failed to get an answer.")] = 0.1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Write the files without the terminal summary.")] = False,
) -> None:
    """Score a run and write verdicts.csv, metrics.json, plots/ and report.html into its folder."""
    from harness.gates import parse_gate
    from harness.reporting import write_report
    from harness.scoring import score_run

    gates = [parse_gate(s) for s in fail_above or []]  # malformed gates fail before any work
    result = score_run(run, method=method, compat=compat)
    write_report(result.run_dir, result, quiet=quiet, console=console)
    if gates:
        code = _gate_exit(result.metrics, gates, max_error_rate)
        if code:
            raise typer.Exit(code)


def compare(
    run_a: Annotated[str, typer.Argument(help="Baseline run (folder, run id or metrics.json).")],
    run_b: Annotated[str, typer.Argument(help="New run (folder, run id or metrics.json).")],
    metric: Annotated[str | None, typer.Option(help="Only metrics whose key starts with this.")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Show every metric, not only headline ones.")] = False,
    alpha: Annotated[float, typer.Option(help="Significance level.")] = 0.05,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON lines.")] = False,
) -> None:
    """Compare two runs metric by metric: A, B, change, p-value, significant."""
    from harness.compare import compare_metrics

    doc_a, doc_b = _metrics_doc(run_a), _metrics_doc(run_b)
    df = compare_metrics(doc_a, doc_b, prefix=metric, alpha=alpha,
                         verdicts=(_verdicts(run_a), _verdicts(run_b)))
    if not (show_all or metric):
        df = df[df["metric"].map(lambda k: k.count(".") <= 1 and not k.startswith(("advantage.", "preference_rate.")))]
    if as_json:
        for rec in df.to_dict(orient="records"):
            typer.echo(json.dumps({k: (None if isinstance(v, float) and v != v else v) for k, v in rec.items()},
                                  ensure_ascii=False))
        return
    from harness.reporting import fmt_value

    name_a = (doc_a.get("run") or {}).get("run_id") or run_a
    name_b = (doc_b.get("run") or {}).get("run_id") or run_b
    table = Table(title=f"A = {name_a}   B = {name_b}", title_justify="left")
    table.add_column("metric", overflow="fold")
    for col in ("A", "B", "change", "p", "p (Holm)"):
        table.add_column(col, justify="right")
    table.add_column("")
    for r in df.itertuples():
        change = "" if r.change is None or r.change != r.change else f"{r.change:+.4g}"
        p = "" if r.p_value is None or r.p_value != r.p_value else f"{r.p_value:.3g}"
        ph = "" if r.p_holm is None or r.p_holm != r.p_holm else f"{r.p_holm:.3g}"
        table.add_row(escape(r.metric), fmt_value(r.metric, r.a), fmt_value(r.metric, r.b), change, p, ph,
                      "[bold]significant[/]" if r.significant else "")
    console.print(table)
    n_sig = int(df["significant"].sum())
    console.print(f"{n_sig} of {int(df['p_value'].notna().sum())} tested metrics differ at the {alpha:g} level "
                  f"(unadjusted; see the Holm column when testing many). Tests: {', '.join(sorted(set(df['test']) - {''}))}.",
                  highlight=False)


def _verdicts(run: str):  # noqa: ANN202 - a DataFrame or None; pandas is imported lazily
    """verdicts.csv of a run folder for the paired test; None when given a bare metrics.json."""
    from harness.compare import load_verdicts
    from harness.scoring import resolve_run

    path = Path(run)
    return load_verdicts(path.parent if path.is_file() else resolve_run(run))


def _metrics_doc(run: str) -> dict:
    """metrics.json of a run; a run that was never scored is scored (and its report written) first."""
    from harness.scoring import METRICS_FILE, load_metrics, resolve_run

    path = Path(run)
    if path.is_file():
        return load_metrics(path)
    run_dir = resolve_run(run)
    if not (run_dir / METRICS_FILE).exists():
        from harness.reporting import write_report
        from harness.scoring import score_run

        result = score_run(run_dir)
        write_report(run_dir, result, quiet=True)
    return load_metrics(run_dir)


def register(app: typer.Typer) -> None:
    """Attach `report` and `compare` to the main app."""
    app.command("report")(report)
    app.command("compare")(compare)

