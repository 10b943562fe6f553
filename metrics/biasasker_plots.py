"""PNG files of the BiasAsker figures (the paper's Figures 4-6), drawn with matplotlib's Agg backend on request
(`harness report --plots`): the report itself shows the same figures as markup (harness.metrics.biasasker_figures,
whose shapes these draw), because drawing them here cost half of scoring and reporting a run (issue 38).

- preference_<attribute>.png: preference rate heatmap, groups x property categories plus "Overall"
  (Figures 4 and 6; 1.0 = always favoured, 0.0 = never).
Every heatmap cell shows its n; a cell of fewer than 5 answers is grey (its rate moves by 1/n per answer), and a
heatmap (or advantage panel) whose cells are nearly all that small is not drawn: one note names them (issue 36).
- advantage_<attribute>.png: advantage a_ij of the row group over the column group, one panel for all
  categories pooled and one per category (Figure 5; green above 0.5 = the row group is preferred).
- absolute_bias_rate.png: absolute bias rate per attribute and per category with 95% Wilson intervals.
- relative_bias_rate.png: relative bias rate (variance x100, as Table 8) per attribute, the paper's and the
  noise-corrected one, with bootstrap intervals.

The family's own figures, so they live with the family (harness.metrics.biasasker.plots() calls them);
fonts and PNG writing are harness.core.figures.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from harness.core.figures import MissingGlyphsError, heatmap, plt, save_figure, setup_fonts
from harness.core.lazy import lazy_module
from harness.metrics import FamilyResult, slug
from harness.metrics.biasasker_figures import (
    ABSOLUTE_COLOURS,
    RELATIVE_COLOURS,
    Bars,
    absolute_bars_data,
    advantage_panels,
    preference_matrices,
    relative_bars_data,
    too_small_note,
)

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")


def _save(fig: Any, path: Path, skipped: list[MissingGlyphsError], **kwargs: Any) -> list[Path]:
    """save_figure, but a figure no installed font can label is left out and remembered in `skipped`."""
    try:
        return [save_figure(fig, path, **kwargs)]
    except MissingGlyphsError as exc:
        skipped.append(exc)
        return []


def _width(text: str) -> int:
    """Display width in Latin-letter units: a Chinese character is about two of them."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def preference_heatmaps(pref: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError],
                        too_small: list[str] | None = None) -> list[Path]:
    """One heatmap per attribute, each cell with its n (greyed below MIN_READABLE_N); an attribute whose
    cells are nearly all too small to read is named in `too_small` instead of drawn."""
    paths = []
    for attribute, m, n in preference_matrices(pref, too_small):
        fig, ax = plt.subplots(figsize=(1.2 + 0.75 * m.shape[1], 1.2 + 0.55 * m.shape[0]))
        im = heatmap(ax, m, cmap="Blues", counts=n)
        fig.colorbar(im, ax=ax, fraction=0.04, label="preference rate")
        ax.set_title(f"Preference rate: {attribute}")
        paths += _save(fig, out_dir / f"preference_{slug(attribute)}.png", skipped)
    return paths


def advantage_heatmaps(adv: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError],
                       too_small: list[str] | None = None) -> list[Path]:
    """Per attribute, one panel per category worth reading (cells with their n, greyed below
    MIN_READABLE_N); an attribute with no such panel is named in `too_small` instead of drawn."""
    paths = []
    for figure in advantage_panels(adv, too_small):
        groups, panels = figure.groups, figure.panels
        ncols = min(4, len(panels))
        nrows = int(np.ceil(len(panels) / ncols))
        side = 1.0 + 0.5 * len(groups)
        label_w = 0.09 * max(_width(str(g)) for g in groups)  # inches taken by the longest group name
        label_h = 0.7 * label_w  # x labels are rotated 40 degrees
        width, height = side * ncols + label_w + 1.5, (side + label_h + 0.3) * nrows + 0.6
        fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), squeeze=False)
        # fixed margins instead of constrained layout: same look, several times faster with many panels
        fig.subplots_adjust(left=(label_w + 0.3) / width, right=1 - 1.3 / width, bottom=(label_h + 0.3) / height,
                            top=1 - 0.8 / height, wspace=0.08, hspace=(label_h + 0.5) / side)
        im = None
        for k, (ax, (cat, m, n)) in enumerate(zip(axes.flat, panels, strict=False)):
            im = heatmap(ax, m, cmap="RdYlGn", counts=n)
            if k % ncols:
                ax.set_yticklabels([])  # row labels once per row of panels, so long names never overlap
            ax.set_title(cat, fontsize=9)
        for ax in list(axes.flat)[len(panels):]:
            ax.axis("off")
        if im is not None:
            fig.colorbar(im, ax=axes.ravel().tolist(), fraction=0.03, label="advantage of row over column")
        fig.suptitle(f"Advantage (absolute bias): {figure.attribute}", y=1 - 0.2 / height)
        paths += _save(fig, out_dir / f"advantage_{slug(figure.attribute)}.png", skipped, tight=False)
    return paths


def _bars(ax: Any, labels: list[str], values: list[float | None], lows: list[float | None],
          highs: list[float | None], *, color: str) -> None:
    v = np.array([x if x is not None else np.nan for x in values], dtype=float)
    lo = np.array([x if x is not None else np.nan for x in lows], dtype=float)
    hi = np.array([x if x is not None else np.nan for x in highs], dtype=float)
    err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
    ax.barh(range(len(v)), v, xerr=err, color=color, capsize=3)
    ax.set_yticks(range(len(v)), labels)
    ax.invert_yaxis()


def _draw(ax: Any, b: Bars, *, color: str) -> None:
    _bars(ax, b.labels, b.values, b.lows, b.highs, color=color)
    ax.set_title(b.title, fontsize=10)


def absolute_bars(table: pd.DataFrame, metrics: dict[str, Any], intervals: dict[str, tuple[float, float]],
                  out_dir: Path, skipped: list[MissingGlyphsError]) -> list[Path]:
    by_attr, by_cat = absolute_bars_data(table, metrics, intervals)
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.5 + 0.35 * max(len(by_attr.labels), len(by_cat.labels), 3)))
    _draw(axes[0], by_attr, color=ABSOLUTE_COLOURS[0])
    overall = metrics.get("absolute_bias_rate")
    if overall is not None:
        axes[0].axvline(overall, color="black", linestyle="--", linewidth=1, label=f"overall {overall:.1%}")
        axes[0].legend(loc="lower right", fontsize=8)
    _draw(axes[1], by_cat, color=ABSOLUTE_COLOURS[1])
    for ax in axes:
        ax.set_xlim(0, 1)
    return _save(fig, out_dir / "absolute_bias_rate.png", skipped)


def relative_bars(table: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError]) -> list[Path]:
    """Per attribute: the paper's statistic and the noise-corrected one, each with its 95% interval."""
    data = relative_bars_data(table)
    if data is None:
        return []
    paper, corrected = data
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.6 + 0.35 * len(paper.labels)), sharey=True)
    _draw(axes[0], paper, color=RELATIVE_COLOURS[0])
    if corrected is not None:
        _draw(axes[1], corrected, color=RELATIVE_COLOURS[1])
    else:
        axes[1].axis("off")
    return _save(fig, out_dir / "relative_bias_rate.png", skipped)


def biasasker_plots(result: FamilyResult, out_dir: Path) -> list[Path]:
    """All BiasAsker figures for one run; returns the PNG paths written.

    A figure whose labels no installed font can draw is left out (harness.core.figures.save_figure) and
    becomes one note in `result.notes`; the other figures are still drawn.
    """
    setup_fonts()
    out_dir = Path(out_dir)
    paths: list[Path] = []
    skipped: list[MissingGlyphsError] = []
    too_small: list[str] = []
    tables = result.tables
    if (t := tables.get("preference_rate")) is not None and not t.empty:
        paths += preference_heatmaps(t, out_dir, skipped, too_small)
    if (t := tables.get("advantage")) is not None and not t.empty:
        paths += advantage_heatmaps(t, out_dir, skipped, too_small)
    if too_small and (note := too_small_note(too_small)) not in result.notes:
        result.notes.append(note)
    if (t := tables.get("absolute_bias_rate")) is not None and not t.empty:
        paths += absolute_bars(t, result.metrics, result.intervals, out_dir, skipped)
    if (t := tables.get("relative_bias_rate")) is not None and not t.empty:
        paths += relative_bars(t, out_dir, skipped)
    if skipped and str(skipped[0]) not in result.notes:
        result.notes.append(str(skipped[0]))
    return paths
