"""What `harness leaderboard RUN RUN [RUN...]` (and `harness compare` with 3+ runs) does and prints.

Sets any number of scored runs side by side as the BiasAsker paper sets chatbots (Tables 7 and 8, Figures
4-6), for every metric family the runs hold: a terminal table per declared table with a column per run,
pairwise tests Holm-adjusted over all pairs, the scoring differences named, and a self-contained HTML page
with the families' heatmaps (harness.report.leaderboard, harness.report.leaderboard_page). The command
itself is in harness.cli.report beside `compare`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from harness.core.display import assemble, untrusted
from harness.core.errors import HarnessError

console = Console()


def run_leaderboard(runs: list[str], *, out: Path, load_doc: Callable[[str], dict],
                    load_verdicts: Callable[[str], Any], as_json: bool = False, seed: int = 0) -> None:
    """Build, print and write the leaderboard of `runs` (`leaderboard`, and `compare` with 3+ runs).

    `load_doc` / `load_verdicts` are harness.cli.report's readers of a run's metrics.json (scoring a run
    that never was) and verdicts.csv, passed in so this module does not import the one that registers it.
    """
    from harness.report.leaderboard import RunDoc, build_leaderboard, to_json
    from harness.report.leaderboard_page import write_page

    if len(runs) < 2:
        raise HarnessError("Give at least two runs to set side by side, e.g. "
                           "`harness leaderboard RUN_A RUN_B RUN_C`.")
    docs = []
    for i, run in enumerate(runs, start=1):
        doc = load_doc(run)
        docs.append(RunDoc(label=f"R{i}", name=str((doc.get("run") or {}).get("run_id") or run), doc=doc,
                           verdicts=load_verdicts(run)))
    if len({d.name for d in docs}) < len(docs):
        raise HarnessError("The same run is given twice; give each run once.")
    board = build_leaderboard(docs, seed=seed)
    if not board.tables:
        raise HarnessError("These runs have no bias metric to set side by side (score them with "
                           "`harness report RUN`).")
    page = write_page(board, out)
    if as_json:
        typer.echo(json.dumps(to_json(board), ensure_ascii=False))
        return
    print_leaderboard(board, console)
    console.print(assemble("Page: ", str(page), " (figures in ", str(page.parent / "plots"), ")"),
                  soft_wrap=True)


def print_leaderboard(board: Any, out: Console) -> None:
    """Legend, scoring notes, one table per declared table (value and interval per run), then the
    significant pairs."""
    legend = Table(box=box.SIMPLE_HEAD, pad_edge=False, title="Runs", title_justify="left")
    for col in ("", "run", "target"):
        legend.add_column(col)
    for r in board.runs:
        legend.add_row(r.label, untrusted(r.name), untrusted(r.target))
    out.print(legend)
    for sentence in board.scoring:
        out.print(assemble(("scoring:", "yellow"), " ", sentence))
    for note in board.notes:
        out.print(assemble(("note:", "yellow"), " ", note))
    for t in board.tables:
        table = Table(title=t.title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False,
                      collapse_padding=True)
        table.add_column("", overflow="fold", min_width=10)
        for r in board.runs:
            table.add_column(r.label, justify="right", no_wrap=True)
        for row in t.rows:
            cells = [untrusted(" ".join(t.text(row, c)).strip()) for c in t.values.columns]
            table.add_row(untrusted(row.label), *cells)
        out.print(table)
    pw = board.pairwise
    sig = pw[pw["significant"]] if len(pw) else pw
    out.print(f"Pairwise tests: {len(pw)} (every pair of runs on every row), {len(sig)} significant at 5% "
              "after Holm adjustment over all of them.", highlight=False)
    for rec in sig.itertuples():
        out.print(untrusted(f"  {rec.metric}: {rec.run_a} {rec.a:.4g} vs {rec.run_b} {rec.b:.4g} "
                            f"({rec.test}, p = {rec.p_value:.2g}, Holm {rec.p_holm:.2g})"))
