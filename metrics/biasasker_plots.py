"""PNG figures in the style of the BiasAsker paper (Figures 4-6), drawn with matplotlib's Agg backend.

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
from typing import Any

import numpy as np
import pandas as pd

from harness.core.figures import (
    MIN_READABLE_N,
    MIN_READABLE_SHARE,
    MissingGlyphsError,
    heatmap,
    plt,
    readable_share,
    save_figure,
    setup_fonts,
)
from harness.metrics import FamilyResult, slug

OVERALL = "Overall"


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


def _ordered_categories(cols: list[str]) -> list[str]:
    return sorted(c for c in cols if c != OVERALL) + ([OVERALL] if OVERALL in cols else [])


def preference_heatmaps(pref: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError],
                        too_small: list[str] | None = None) -> list[Path]:
    """One heatmap per attribute, each cell with its n (greyed below MIN_READABLE_N); an attribute whose
    cells are nearly all too small to read is named in `too_small` instead of drawn."""
    paths = []
    for attribute, part in pref.groupby("attribute", sort=True):
        m = part.pivot_table(index="group", columns="category", values="rate", aggfunc="first")
        m = m[_ordered_categories(list(m.columns))]
        n = part.pivot_table(index="group", columns="category", values="n", aggfunc="first").reindex_like(m)
        if readable_share(n) < MIN_READABLE_SHARE:
            if too_small is not None:
                too_small.append(f"preference {attribute}")
            continue
        fig, ax = plt.subplots(figsize=(1.2 + 0.75 * m.shape[1], 1.2 + 0.55 * m.shape[0]))
        im = heatmap(ax, m, cmap="Blues", counts=n)
        fig.colorbar(im, ax=ax, fraction=0.04, label="preference rate")
        ax.set_title(f"Preference rate: {attribute}")
        paths += _save(fig, out_dir / f"preference_{slug(attribute)}.png", skipped)
    return paths


def _advantage_panels(part: pd.DataFrame, groups: list[str]) -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """(category, advantage matrix, n matrix) per category worth drawing, "Overall" first; a category whose
    pairs were nearly all decided fewer than MIN_READABLE_N times is left out (its table has the numbers)."""
    cats = _ordered_categories(list(part["category"].unique()))
    cats = [OVERALL] + [c for c in cats if c != OVERALL] if OVERALL in cats else cats
    part = part.assign(n=part["t_ij"] + part["t_ji"])
    panels = []
    for cat in cats:
        sub = part[part["category"] == cat]
        m = sub.pivot_table(index="group_i", columns="group_j", values="advantage", aggfunc="first")
        n = sub.pivot_table(index="group_i", columns="group_j", values="n", aggfunc="first")
        m, n = m.reindex(index=groups, columns=groups), n.reindex(index=groups, columns=groups)
        if readable_share(n) >= MIN_READABLE_SHARE:
            panels.append((str(cat), m, n))
    return panels


def advantage_heatmaps(adv: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError],
                       too_small: list[str] | None = None) -> list[Path]:
    """Per attribute, one panel per category worth reading (cells with their n, greyed below
    MIN_READABLE_N); an attribute with no such panel is named in `too_small` instead of drawn."""
    paths = []
    for attribute, part in adv.groupby("attribute", sort=True):
        groups = sorted(set(part["group_i"]) | set(part["group_j"]))
        panels = _advantage_panels(part, groups)
        if not panels:
            if too_small is not None:
                too_small.append(f"advantage {attribute}")
            continue
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
        fig.suptitle(f"Advantage (absolute bias): {attribute}", y=1 - 0.2 / height)
        paths += _save(fig, out_dir / f"advantage_{slug(attribute)}.png", skipped, tight=False)
    return paths


def too_small_note(names: list[str]) -> str:
    """The one line that says which heatmaps were not drawn and why."""
    return (f"{len(names)} heatmap(s) not drawn ({', '.join(names)}): fewer than {MIN_READABLE_SHARE:.0%} of their "
            f"cells have {MIN_READABLE_N} or more answers, too few to read; the tables list every cell.")


def _bars(ax: Any, labels: list[str], values: list[float], lows: list[float], highs: list[float],
          *, color: str) -> None:
    v = np.array(values, dtype=float)
    lo = np.array([x if x is not None else np.nan for x in lows], dtype=float)
    hi = np.array([x if x is not None else np.nan for x in highs], dtype=float)
    err = np.vstack([np.nan_to_num(v - lo), np.nan_to_num(hi - v)])
    ax.barh(range(len(v)), v, xerr=err, color=color, capsize=3)
    ax.set_yticks(range(len(v)), labels)
    ax.invert_yaxis()


def absolute_bars(table: pd.DataFrame, metrics: dict[str, Any], intervals: dict[str, tuple[float, float]],
                  out_dir: Path, skipped: list[MissingGlyphsError]) -> list[Path]:
    by_attr = table[table["category"] == OVERALL].sort_values("attribute")
    cells = table[table["category"] != OVERALL]
    by_cat = (cells.groupby("category")[["k", "n"]].sum().reset_index() if not cells.empty
              else pd.DataFrame(columns=["category", "k", "n"]))
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.5 + 0.35 * max(len(by_attr), len(by_cat), 3)))
    _bars(axes[0], list(by_attr["attribute"]), list(by_attr["rate"]), list(by_attr["low"]), list(by_attr["high"]),
          color="#d9534f")
    overall = metrics.get("absolute_bias_rate")
    if overall is not None:
        axes[0].axvline(overall, color="black", linestyle="--", linewidth=1, label=f"overall {overall:.1%}")
        axes[0].legend(loc="lower right", fontsize=8)
    axes[0].set_title("Absolute bias rate by group attribute")
    axes[0].set_xlim(0, 1)
    keys = [f"absolute_bias_rate.category.{slug(c)}" for c in by_cat["category"]]
    _bars(axes[1], list(by_cat["category"]), [metrics.get(k) or 0.0 for k in keys],
          [(intervals.get(k) or (None, None))[0] for k in keys],
          [(intervals.get(k) or (None, None))[1] for k in keys], color="#f0ad4e")
    axes[1].set_title("Absolute bias rate by property category")
    axes[1].set_xlim(0, 1)
    return _save(fig, out_dir / "absolute_bias_rate.png", skipped)


def _x100(col: pd.Series) -> list[float | None]:
    return list(col.map(lambda x: None if x is None or pd.isna(x) else 100 * x))


def relative_bars(table: pd.DataFrame, out_dir: Path, skipped: list[MissingGlyphsError]) -> list[Path]:
    """Per attribute: the paper's statistic and the noise-corrected one, each with its 95% interval."""
    t = table[(table["category"] == OVERALL) & table["variance"].notna()].sort_values("attribute")
    if t.empty:
        return []
    fig, axes = plt.subplots(1, 2, figsize=(11, 1.6 + 0.35 * len(t)), sharey=True)
    _bars(axes[0], list(t["attribute"]), list(t["variance_x100"]), _x100(t["low"]), _x100(t["high"]), color="#5bc0de")
    axes[0].set_title("Relative bias rate x100 (paper, Table 8)", fontsize=10)
    if "corrected" in t.columns:
        _bars(axes[1], list(t["attribute"]), _x100(t["corrected"]), _x100(t["corrected_low"]),
              _x100(t["corrected_high"]), color="#337ab7")
        axes[1].set_title("Noise-corrected x100 (0 = no more spread than chance)", fontsize=10)
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
