"""CLI commands for chatbots without an API: `harness manual`, `harness export`, `harness import`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from harness.core.display import assemble, untrusted
from harness.core.errors import HarnessError

console = Console(highlight=False)


def manual(
    suite: str = typer.Option(..., "--suite", "-s", metavar="NAME",
                              help="Suite name (see `harness suites`) or a suite YAML path."),
    target: str = typer.Option(..., "--target", "-t", metavar="LABEL",
                               help="A label for the chatbot you are typing into, e.g. xiaoai."),
    sample: int | None = typer.Option(None, "--sample", min=1, metavar="N",
                                      help="Ask a seeded random sample of N probes."),
    seed: int = typer.Option(0, "--seed", metavar="S", help="Seed of the sample."),
    limit: int | None = typer.Option(None, "--limit", min=1, metavar="N", help="Only the first N selected probes."),
    run_id: str | None = typer.Option(None, "--run-id", metavar="RUN",
                                      help="Run folder name (default: from suite/target/sample)."),
    no_clipboard: bool = typer.Option(False, "--no-clipboard", metavar="",
                                      help="Do not copy questions to the clipboard."),
    method: str = typer.Option("default", "--method", metavar="METHOD",
                               help="Oracle method for scoring at the end (see `harness run --help`)."),
    compat: bool = typer.Option(False, "--compat", metavar="", help="Score like the upstream BiasAsker code."),
) -> None:
    """Ask the questions yourself and type the chatbot's replies; each reply is saved at once.

    Commands while answering: :skip, :back, :show, :help, :quit. Run the same command again to continue.

    Example:  harness manual -s biasasker-zh-manual -t xiaoai --sample 50 --seed 1
    """
    from harness.cli.options import check_method
    from harness.human.manual import run_manual

    check_method(method)  # before the first question, not after the last reply

    code = run_manual(suite, target, sample=sample, seed=seed, limit=limit, run_id=run_id, method=method,
                      compat=compat, clipboard=not no_clipboard, console=console)
    if code:
        raise typer.Exit(code)


def export(
    out: Annotated[Path, typer.Option("--out", "-o", metavar="FILE", help="questions.csv or questions.xlsx")],
    suite: str = typer.Option(..., "--suite", "-s", metavar="NAME", help="Suite name or suite YAML path."),
    sample: int | None = typer.Option(None, "--sample", min=1, metavar="N", help="A seeded random sample of N probes."),
    seed: int = typer.Option(0, "--seed", metavar="S", help="Seed of the sample."),
    limit: int | None = typer.Option(None, "--limit", min=1, metavar="N", help="Only the first N selected probes."),
) -> None:
    """Write the questions to a CSV/XLSX answer sheet (fill in the 'reply' column, then `harness import`).

    Example:  harness export -s biasasker-zh-manual --sample 50 --seed 1 --out questions.xlsx
    """
    from harness.human.manual import select_suite_probes
    from harness.human.sheets import write_sheet

    if out.suffix.lower() not in (".csv", ".xlsx"):
        raise HarnessError(f"Cannot write '{out.name}': use a .csv or .xlsx file name with --out.")
    _, probes = select_suite_probes(suite, sample=sample, seed=seed, limit=limit)
    n = write_sheet(probes, out, sample=sample, seed=seed)
    console.print(assemble(f"Wrote {n} questions to {out}. Fill in the 'reply' column, then run: "
                           f"harness import {out} --target LABEL"))


def import_(
    sheet: Annotated[Path | None, typer.Argument(help="The filled-in sheet (.csv or .xlsx).")] = None,
    target: str = typer.Option(..., "--target", "-t", metavar="LABEL",
                               help="Label of the chatbot that answered, e.g. xiaoai."),
    suite: str | None = typer.Option(None, "--suite", "-s", metavar="NAME",
                                     help="Override the suite named in the sheet."),
    sample: int | None = typer.Option(None, "--sample", min=1, metavar="N",
                                      help="Override the sample size in the sheet."),
    seed: int | None = typer.Option(None, "--seed", metavar="S", help="Override the seed in the sheet."),
    run_id: str | None = typer.Option(None, "--run-id", metavar="RUN", help="Run folder to import into."),
    replace: bool = typer.Option(False, "--replace", metavar="",
                                 help="Record replies that differ from ones already imported."),
    no_report: bool = typer.Option(False, "--no-report", metavar="", help="Do not score and report after importing."),
    method: str = typer.Option("default", "--method", metavar="METHOD", help="Oracle method for scoring."),
    compat: bool = typer.Option(False, "--compat", metavar="", help="Score like the upstream BiasAsker code."),
    predictions: Annotated[Path | None, typer.Option("--predictions", metavar="FILE", help=(
        "Another tool's outputs instead of a sheet: JSON lines {\"id\": UPSTREAM_ID, \"reply\": TEXT}; "
        "needs --suite."))] = None,
) -> None:
    """Validate a filled-in answer sheet, add its replies to the run, then score it like `harness run`.

    Example:  harness import questions.xlsx -t xiaoai
              harness import --suite bbq --target mybot --predictions outputs.jsonl
    """
    from harness.cli.options import check_method
    from harness.human.manual import score_and_report
    from harness.human.sheets import describe_plan, import_sheet

    check_method(method)
    if predictions is not None or sheet is None:
        _import_predictions(predictions, sheet, suite, target, run_id=run_id, replace=replace,
                            report=not no_report, method=method, compat=compat)
        return

    run, plan = import_sheet(sheet, target, suite=suite, sample=sample, seed=seed, run_id=run_id, replace=replace)
    for line in describe_plan(plan):  # may quote the sheet's cells: Text, never markup
        console.print(untrusted(line))
    if run is None:
        console.print(assemble(f"Nothing to import yet: {sheet.name} has no replies filled in."))
        return
    counts = run.counts()
    console.print(assemble(f"Run {run.run_dir}: {counts['answered']} of {counts['selected']} answered."))
    if not no_report and counts["answered"]:
        score_and_report(run.run_dir, console, method=method, compat=compat)


def _import_predictions(predictions: Path | None, sheet: Path | None, suite: str | None, target: str, *,
                        run_id: str | None, replace: bool, report: bool, method: str, compat: bool) -> None:
    """`harness import --predictions FILE`: another tool's replies matched to a suite by upstream id."""
    from harness.human.manual import score_and_report
    from harness.human.predictions import describe, import_predictions

    if predictions is None:
        raise HarnessError("Give the filled-in sheet to import, or --predictions FILE with --suite NAME.")
    if sheet is not None:
        raise HarnessError("Import a sheet or --predictions, not both at once.")
    if not suite:
        raise HarnessError("--predictions needs --suite NAME: the suite whose items the predictions answer.")
    run, plan = import_predictions(predictions, suite, target, run_id=run_id, replace=replace)
    for line in describe(plan):
        console.print(untrusted(line))
    counts = run.counts()
    console.print(assemble(f"Run {run.run_dir}: {counts['answered']} probes answered."))
    if report and counts["answered"]:
        score_and_report(run.run_dir, console, method=method, compat=compat)


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("manual")(manual)
    app.command("export")(export)
    app.command("import")(import_)
