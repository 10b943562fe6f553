"""The leaderboard's figures and HTML page (harness.report.leaderboard builds the numbers).

Figures: the heatmaps each family declares (harness.core.kinds.LeaderboardFigure, the LEADERBOARD_FIGURES of
its module, read through harness.metrics.Family.leaderboard_figures), built from the leaderboard's tables and
the runs' metrics.json documents, a column per run (BiasAsker's: Tables 7 and 8 and the groups' preference
rates, Figures 4-6 across systems). A figure no installed font can label is left out with one note.
The page is self-contained like report.html: CSS inline, figures as base64, every name from a data file
or model escaped by jinja2, a Content-Security-Policy that forbids scripts.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from harness.core.kinds import Heatmap
from harness.metrics import families
from harness.report.leaderboard import Leaderboard, MetricTable, Row, most_biased, to_json

PAGE = "leaderboard.html"
DATA = "leaderboard.json"


def _figures(board: Leaderboard) -> list[tuple[str, list[Heatmap]]]:
    """Every family's declared figures for these runs: (file name, panels), in the order of the families."""
    tables = {t.title: t.values for t in board.tables}
    docs = {r.label: r.doc for r in board.runs}
    return [(name, list(panels)) for family in families().values() for figure in family.leaderboard_figures
            for name, panels in figure.build(tables, docs)]


def _draw(board: Leaderboard, out_dir: Path) -> tuple[list[Path], list[str]]:
    """The heatmaps; a figure no installed font can label is left out with one note."""
    from harness.core.figures import (  # lazy: matplotlib
        MissingGlyphsError,
        heatmap,
        plt,
        save_figure,
        setup_fonts,
    )

    figures = _figures(board)
    if figures:
        setup_fonts()
    labels = [r.label for r in board.runs]
    paths, notes = [], []
    for name, panels in figures:
        rows = max(len(p.matrix) for p in panels)
        width = 1.8 + 1.3 * len(labels) * len(panels) + 1.2 * (len(panels) - 1)
        fig, axes = plt.subplots(1, len(panels), figsize=(width, 1.3 + 0.42 * rows), squeeze=False)
        for ax, panel in zip(axes[0], panels, strict=True):
            heatmap(ax, panel.matrix.astype(float), cmap=panel.cmap, vmax=panel.vmax, fmt="{:.3g}")
            ax.set_title(panel.title, fontsize=9)
        try:
            paths.append(save_figure(fig, out_dir / name))
        except MissingGlyphsError as exc:
            if str(exc) not in notes:
                notes.append(str(exc))
    return paths, notes


def _cell(table: MetricTable, row: Row, col: str, marked: str | None) -> dict[str, Any]:
    text, ci = table.text(row, col)
    return {"text": text, "ci": ci, "best": col == marked}


def _html_tables(board: Leaderboard) -> list[dict[str, Any]]:
    out = []
    for t in board.tables:
        rows = []
        for row in t.rows:
            # the paper bolds each row's maximum; here only a run the corrected pairwise tests find worse than
            # every other (harness.report.leaderboard.most_biased)
            marked = most_biased(board, t, row)
            rows.append({"label": row.label, "cells": [_cell(t, row, c, marked) for c in t.values.columns]})
        out.append({"title": t.title, "caption": t.caption, "rows": rows,
                    "marks": any(most_biased(board, t, row) for row in t.rows), "tested": t.can_mark})
    return out


def write_page(board: Leaderboard, out_dir: Path) -> Path:
    """Write leaderboard.html (self-contained), leaderboard.json and the figures into `out_dir`."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots, notes = _draw(board, out_dir / "plots")
    board.notes.extend(n for n in notes if n not in board.notes)  # the terminal prints them too
    env = Environment(loader=PackageLoader("harness.report", "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    pairwise = board.pairwise.to_dict(orient="records")
    html = env.get_template("leaderboard.html.j2").render(
        runs=board.runs, tables=_html_tables(board), pairwise=pairwise,
        significant=sum(1 for p in pairwise if p["significant"]), scoring=board.scoring, notes=board.notes,
        plots=[{"title": p.stem.replace("_", " "), "data": base64.b64encode(p.read_bytes()).decode("ascii")}
               for p in plots])
    page = out_dir / PAGE
    tmp = page.with_suffix(".html.tmp")
    tmp.write_text(html, encoding="utf-8")
    os.replace(tmp, page)
    (out_dir / DATA).write_text(json.dumps(to_json(board), ensure_ascii=False, indent=2), encoding="utf-8")
    return page
