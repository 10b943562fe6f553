"""CLI command `harness review RUN`: a person checks a sample of the oracle's verdicts (harness.score.review)."""

from __future__ import annotations

import shlex
import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from harness.core.display import assemble
from harness.core.errors import HarnessError

if TYPE_CHECKING:
    from harness.score.scoring import RunResult

console = Console(highlight=False)
EXIT_INTERRUPTED = 130
#: harness.human.review_sample.DEFAULT_SAMPLE, named here so that importing the CLI does not import the
#: scoring stack (pandas, scipy: seconds on a busy machine) for every command; a test keeps the two equal
DEFAULT_SAMPLE = 50


def review(
    run: Annotated[str, typer.Argument(metavar="RUN", help="Run folder, or a run id (see `harness runs`).")],
    sample: Annotated[int, typer.Option("--sample", min=1, metavar="N",
                                        help="How many replies to review.")] = DEFAULT_SAMPLE,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seed of the sample.")] = 0,
    only: Annotated[str, typer.Option("--only", metavar="biased|all",
                                      help="Review only replies the oracle called biased, or both kinds.")] = "all",
    export: Annotated[Path | None, typer.Option("--export", metavar="FILE",
                                                help="Write the sample to a .csv/.xlsx sheet instead.")] = None,
    import_: Annotated[Path | None, typer.Option("--import", metavar="FILE",
                                                 help="Read the labels of a filled-in review sheet.")] = None,
    method: Annotated[str,
                      typer.Option(metavar="METHOD", help="Oracle method whose verdicts are reviewed.")] = "default",
    compat: Annotated[bool, typer.Option("--compat", metavar="",
                                         help="Review the verdicts of upstream BiasAsker's rules "
                                              "(as `harness report --compat`).")] = False,
    no_report: Annotated[bool, typer.Option("--no-report", metavar="",
                                            help="Do not rewrite the report at the end.")] = False,
    uncertain: Annotated[bool, typer.Option("--uncertain", metavar="",
                                            help="The least confident verdicts first (not a random sample).")] = False,
) -> None:
    """Check a sample of the oracle's verdicts yourself; your labels replace them in every metric.

    Keys: yes/no a d r u (affirm, deny, refuse, unknown); why e d r u; choice the group's number, d r u.

    Enter accepts the oracle's label; :skip :back :show :help :quit. Each label is saved at once.

    Run the same command to continue; the same run, N and seed give the same sample.

    Exit codes: 0 done or stopped, 2 bad input, 3 machine fault, 130 Ctrl-C.

    --uncertain puts the verdicts the rules are least sure of first (their calibrated confidence); such a
    sample corrects the most verdicts per review but is left out of the corrected bias rate.

    Example:  harness review RUN --sample 60   (or --export review.xlsx, then --import review.xlsx)
    """
    from harness.human.review_sample import open_review, recorded_reader
    from harness.human.review_sheet import export_sheet, import_sheet
    from harness.score.review import read_reviews

    _check_options(only=only, export=export, import_=import_, method=method)
    reader = recorded_reader(run)  # a run read by a judge (or hybrid): review the verdicts it used, not the rules'
    run_dir, result, items = open_review(run, method=method, compat=compat, reader=reader,
                                         console=console if reader is not None else None)
    run_id = result.run_id
    if import_ is not None:
        plan = import_sheet(import_, run_dir, run_id, items)
        console.print(assemble(f"Imported {len(plan.accepted)} label(s) from {import_.name}; {plan.already} "
                               f"unchanged, {plan.empty} row(s) left unreviewed."))
        if plan.accepted and not no_report:
            _report(run_dir, result)
        return
    chosen = _choose(run, run_dir, items, reader, sample=sample, seed=seed, only=only, uncertain=uncertain)
    if not chosen:
        raise HarnessError(f"Run {run_id} has no reply the oracle called biased to review; use --only all.")
    if export is not None:
        n = export_sheet(run_id, chosen, read_reviews(run_dir), export)
        console.print(assemble(f"Wrote {n} replies to {export}. Fill in 'your_label', then run: "
                               f"harness review {run} --import {export}"))
        return
    code = _interactive(run_dir, run_id, chosen, report=not no_report, scored=result)
    if code:
        raise typer.Exit(code)


def _check_options(*, only: str, export: Path | None, import_: Path | None, method: str) -> None:
    """Everything about the options that can fail, before the run is scored (a while on a big run)."""
    from harness.cli.options import check_method
    from harness.human.review_sheet import check_export_path

    if only not in ("all", "biased"):
        raise HarnessError(f"--only takes 'biased' or 'all', not '{only}'.")
    if export is not None and import_ is not None:
        raise HarnessError("Give either --export or --import, not both.")
    if export is not None:
        check_export_path(export)
    if export is None and import_ is None and (sys.stdin is None or sys.stdin.closed):
        raise HarnessError("There is no input to read labels from (stdin is closed); run the command in a "
                           "terminal, pipe the labels in, or use --export.")
    check_method(method)


def _choose(run: str, run_dir: Path, items: list, reader: Any, *, sample: int, seed: int, only: str,
            uncertain: bool) -> list:
    """The replies to review: a seeded stratified sample, or (--uncertain) the least confident first."""
    from harness.human.review_sample import select_sample

    if not uncertain:
        return select_sample(items, sample, seed=seed, only=only)
    if reader is not None:
        raise HarnessError(f"--uncertain orders verdicts by the rules' calibrated confidence, and this run was read by "
                           f"the judge {' and '.join(reader.judges)} ({reader.mode} mode), whose verdicts have none; "
                           "review a random sample (drop --uncertain), or re-score with the rules first "
                           f"(`harness report {run}`).")
    # where the oracle is least sure: corrections count most, but it is no random sample
    from harness.human.review_sample import least_confident, record_uncertain

    chosen = least_confident([it for it in items if only == "all" or it.oracle.biased], sample, seed=seed)
    record_uncertain(run_dir, chosen)
    return chosen


def _interactive(run_dir: Path, run_id: str, chosen: list, *, report: bool, scored: RunResult) -> int:
    """Review `chosen` one reply at a time; `scored` is the oracle-only scoring that drew them (its method
    and mode are the ones the report is rewritten with)."""
    from harness.human.review_session import ReviewSession

    # No readline here, on purpose (as in manual mode, harness.human.manual.run_manual): readline reads the
    # terminal in raw mode, and a Ctrl-D typed before it switched to raw mode (typed ahead on a busy machine)
    # reached it as a NUL byte, so the session waited forever instead of stopping. The terminal's own line mode
    # reads Ctrl-D as the end of input whenever it was typed; it edits a label with Backspace, Ctrl-U, Ctrl-W.
    session = ReviewSession(run_dir, run_id, chosen, console=console)

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = {s: signal.signal(s, stop) for s in (signal.SIGHUP, signal.SIGTERM)}
    outcome = "interrupted"
    try:
        outcome = session.run_session()
    except KeyboardInterrupt:
        console.print()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    done = sum(1 for it in chosen if it.probe.id in session.done)
    if outcome != "complete":
        console.print(assemble(f"Stopped. {done} of {len(chosen)} reviewed, all saved in {run_dir / 'reviews.jsonl'}. "
                               "Run the same command again to continue."))
    if session.stats.entered and report and outcome != "interrupted":  # Ctrl-C means stop now
        _report(run_dir, scored)
    elif session.stats.entered:  # metrics.json and report.html still hold the labels before this session
        again = f"harness report {shlex.quote(str(run_dir))}" + (
            " --compat" if scored.compat else f" --method {scored.method}" if scored.method != "default" else "")
        console.print(assemble(f"The report does not show these labels yet; `{again}` rewrites it."))
    return EXIT_INTERRUPTED if outcome == "interrupted" else 0


def _report(run_dir: Path, scored: RunResult) -> None:
    """Rescore with the person's labels and rewrite the report; print the agreement line. `scored` is the
    oracle-only scoring that drew the sample: the report keeps its method and mode, and its verdicts are
    reused, so the oracle runs once per review."""
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run

    result = score_run(run_dir, method=scored.method, compat=scored.compat, reuse=scored, reader=scored.reader)
    files = write_report(run_dir, result, quiet=True)
    k_n = result.counts.get("oracle_agreement")
    if k_n:
        console.print(assemble(f"Oracle agreed with you on {k_n[0]} of {k_n[1]} reviewed replies. Report: "
                               f"{files.html}"))


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("review")(review)
