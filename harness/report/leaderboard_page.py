"""The leaderboard's figures and HTML page (harness.report.leaderboard builds the numbers).

Figures, in the paper's style but with a column per run:
- leaderboard_absolute.png: absolute bias rate (%) per attribute x run (Table 7 as a heatmap);
- leaderboard_relative.png: relative bias rate x100 per attribute x run, the paper's and the noise-corrected
  one side by side (Table 8);
- leaderboard_preference_<attribute>.png: each group's overall preference rate x run (Figures 4 and 6
  across systems).
The page is self-contained like report.html: CSS inline, figures as base64, every name from a data file
or model escaped by jinja2, a Content-Security-Policy that forbids scripts.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

import pandas as pd
from jinja2 import Environment, PackageLoader, select_autoescape

from harness.metrics import slug
from harness.report.leaderboard import OVERALL, Leaderboard, MetricTable, Row, most_biased, to_json

PAGE = "leaderboard.html"
DATA = "leaderboard.json"


def _draw(board: Leaderboard, out_dir: Path) -> tuple[list[Path], list[str]]:
    """The heatmaps; a figure no installed font can label is left out with one note."""
    from harness.core.figures import MissingGlyphsError, plt, save_figure, setup_fonts  # lazy: matplotlib
    from harness.metrics.biasasker_plots import heatmap

    setup_fonts()
    labels = [r.label for r in board.runs]
    figures: list[tuple[str, list[tuple[str, pd.DataFrame, float, str]]]] = []
    absolute = next((t for t in board.tables if t.title.startswith("Absolute")), None)
    if absolute is not None:
        figures.append(("leaderboard_absolute.png", [("Absolute bias rate (%)", 100 * absolute.values, 100, "Reds")]))
    rel = [t for t in board.tables if t.title.startswith("Relative bias rate x100")]
    if rel:
        top = max(1.0, float(pd.concat([t.values for t in rel]).max().max()))
        panels = [(t.title.replace(" by group attribute", ""), t.values, top, "Blues") for t in rel]
        figures.append(("leaderboard_relative.png", panels))
    for attribute, matrix in _preference_matrices(board).items():
        figures.append((f"leaderboard_preference_{slug(attribute)}.png",
                        [(f"Preference rate: {attribute}", matrix, 1.0, "Blues")]))
    paths, notes = [], []
    for name, panels in figures:
        rows = max(len(p[1]) for p in panels)
        fig, axes = plt.subplots(1, len(panels), figsize=(1.8 + 1.3 * len(labels) * len(panels) + 1.2 * (len(panels) - 1),
                                                         1.3 + 0.42 * rows), squeeze=False)
        for ax, (title, matrix, vmax, cmap) in zip(axes[0], panels, strict=True):
            heatmap(ax, matrix.astype(float), cmap=cmap, vmax=vmax, fmt="{:.3g}")
            ax.set_title(title, fontsize=9)
        try:
            paths.append(save_figure(fig, out_dir / name))
        except MissingGlyphsError as exc:
            if str(exc) not in notes:
                notes.append(str(exc))
    return paths, notes


def _preference_matrices(board: Leaderboard) -> dict[str, pd.DataFrame]:
    """attribute -> groups x runs of overall preference rates, from each run's preference_rate table."""
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for run in board.runs:
        rows = ((run.doc.get("tables") or {}).get("biasasker") or {}).get("preference_rate") or []
        for r in rows:
            if r.get("category") == OVERALL and r.get("rate") is not None:
                cells.setdefault(str(r["attribute"]), {})[(str(r["group"]), run.label)] = float(r["rate"])
    out = {}
    for attribute, values in sorted(cells.items()):
        groups = sorted({g for g, _ in values})
        out[attribute] = pd.DataFrame([[values.get((g, r.label), float("nan")) for r in board.runs] for g in groups],
                                      index=groups, columns=[r.label for r in board.runs])
    return out


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
                    "marks": any(most_biased(board, t, row) for row in t.rows), "tested": t.higher_is_worse})
    return out


def write_page(board: Leaderboard, out_dir: Path) -> Path:
    """Write leaderboard.html (self-contained), leaderboard.json and the figures into `out_dir`."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plots, notes = _draw(board, out_dir / "plots")
    board.notes.extend(n for n in notes if n not in board.notes)  # the terminal prints them too
    env = Environment(loader=PackageLoader("harness.report", "templates"), autoescape=select_autoescape(["html", "j2"]))
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
