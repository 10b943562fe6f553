"""BiasAsker's figures (the paper's Figures 4-6) as the report shows them, and the shapes they are drawn from.

The report writes them itself, as HTML heatmaps and inline SVG bars (harness.core.html_figures): drawing them
with matplotlib cost ~0.9 CPU s per figure, half of scoring and reporting a 4,000-reply run (issue 38). The
PNG files (harness.metrics.biasasker_plots, `harness report --plots`) draw the same shapes, so the two show
the same numbers:

- preference <attribute>: preference rate, groups x property categories plus "Overall" (Figures 4 and 6).
- advantage <attribute>: a_ij of the row group over the column group, all categories pooled and one panel
  per category (Figure 5; green above 0.5 = the row group is preferred).
- absolute bias rate: per attribute and per category, with 95% Wilson intervals.
- relative bias rate: variance x100 (Table 8) per attribute, the paper's and the noise-corrected one.

Every heatmap cell shows its n; a cell of fewer than 5 answers is grey (its rate moves by 1/n per answer), and a
heatmap (or advantage panel) whose cells are nearly all that small is not drawn: one note names them (issue 36).
No matplotlib here: this module is on the path of every `harness run`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from markupsafe import Markup

from harness.core.html_figures import (
    MIN_READABLE_N,
    MIN_READABLE_SHARE,
    HtmlFigure,
    bars,
    heatmap,
    legend,
    readable_share,
)
from harness.core.lazy import lazy_module
from harness.metrics import FamilyResult, slug

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

OVERALL = "Overall"
ABSOLUTE_COLOURS = ("#d9534f", "#f0ad4e")
RELATIVE_COLOURS = ("#5bc0de", "#337ab7")


def ordered_categories(cols: list[str]) -> list[str]:
    return sorted(c for c in cols if c != OVERALL) + ([OVERALL] if OVERALL in cols else [])


def preference_matrices(pref: pd.DataFrame, too_small: list[str] | None = None
                        ) -> list[tuple[str, pd.DataFrame, pd.DataFrame]]:
    """(attribute, rate matrix, n matrix) per attribute worth drawing: groups x categories, "Overall" last.
    An attribute whose cells are nearly all too small to read is named in `too_small` instead."""
    out = []
    pref = pref.drop_duplicates(["attribute", "group", "category"])  # a pivot's "first"
    for attribute, part in pref.groupby("attribute", sort=True):
        m, n = _grid(part, "group", "category", "rate", "n")
        if readable_share(n) < MIN_READABLE_SHARE:
            if too_small is not None:
                too_small.append(f"preference {attribute}")
            continue
        out.append((str(attribute), m, n))
    return out


def _grid(part: pd.DataFrame, rows: str, cols: str, value: str, count: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(value matrix, count matrix): sorted `rows` x `cols` in ordered_categories order, NaN where no row is;
    filled from arrays (a pivot per attribute cost more than drawing the figure)."""
    row_names = sorted(set(part[rows]))
    col_names = ordered_categories(list(dict.fromkeys(part[cols])))
    r_at, c_at = {g: k for k, g in enumerate(row_names)}, {c: k for k, c in enumerate(col_names)}
    ii, jj = part[rows].map(r_at).to_numpy(), part[cols].map(c_at).to_numpy()
    values = np.full((len(row_names), len(col_names)), np.nan)
    counts = values.copy()
    values[ii, jj] = part[value].to_numpy(dtype=float)
    counts[ii, jj] = part[count].to_numpy(dtype=float)
    return (pd.DataFrame(values, index=row_names, columns=col_names),
            pd.DataFrame(counts, index=row_names, columns=col_names))


@dataclass
class AdvantagePanels:
    """One attribute's advantage figure: its groups (rows and columns of every panel) and the panels worth
    drawing, (category, advantage matrix, n matrix), "Overall" first."""

    attribute: str
    groups: list[str]
    panels: list[tuple[str, pd.DataFrame, pd.DataFrame]]


def advantage_panels(adv: pd.DataFrame, too_small: list[str] | None = None) -> list[AdvantagePanels]:
    """Per attribute with at least one panel worth reading, its panels; a category whose pairs were nearly all
    decided fewer than MIN_READABLE_N times is left out (its table has the numbers), and an attribute with no
    such panel is named in `too_small`. One array per attribute, not a pivot per category (that was 4 s)."""
    out = []
    adv = adv.drop_duplicates(["attribute", "category", "group_i", "group_j"])
    for attribute, part in adv.groupby("attribute", sort=True):
        groups = sorted(set(part["group_i"]) | set(part["group_j"]))
        cats = ordered_categories([str(c) for c in part["category"].unique()])
        cats = [OVERALL] + [c for c in cats if c != OVERALL] if OVERALL in cats else cats
        g_at, c_at = {g: k for k, g in enumerate(groups)}, {c: k for k, c in enumerate(cats)}
        ci = part["category"].astype(str).map(c_at).to_numpy()
        ii, jj = part["group_i"].map(g_at).to_numpy(), part["group_j"].map(g_at).to_numpy()
        values = np.full((len(cats), len(groups), len(groups)), np.nan)
        counts = values.copy()
        values[ci, ii, jj] = part["advantage"].to_numpy(dtype=float)
        counts[ci, ii, jj] = (part["t_ij"] + part["t_ji"]).to_numpy(dtype=float)
        panels = [(cat, pd.DataFrame(values[k], index=groups, columns=groups),
                   pd.DataFrame(counts[k], index=groups, columns=groups))
                  for k, cat in enumerate(cats) if readable_share(counts[k]) >= MIN_READABLE_SHARE]
        if panels:
            out.append(AdvantagePanels(str(attribute), groups, panels))
        elif too_small is not None:
            too_small.append(f"advantage {attribute}")
    return out


def too_small_note(names: list[str]) -> str:
    """The one line that says which heatmaps were not drawn and why."""
    return (f"{len(names)} heatmap(s) not drawn ({', '.join(names)}): fewer than {MIN_READABLE_SHARE:.0%} of their "
            f"cells have {MIN_READABLE_N} or more answers, too few to read; the tables list every cell.")


@dataclass
class Bars:
    """One bar chart's data: labels, values and their 95% intervals (None: no interval)."""

    title: str
    labels: list[str]
    values: list[float | None]
    lows: list[float | None]
    highs: list[float | None]


def _num(v: Any, scale: float = 1.0) -> float | None:
    return None if v is None or pd.isna(v) else scale * float(v)


def absolute_bars_data(table: pd.DataFrame, metrics: dict[str, Any],
                       intervals: dict[str, tuple[float, float]]) -> tuple[Bars, Bars]:
    """By group attribute (each attribute's pooled rate) and by property category (the run's per-category keys)."""
    by_attr = table[table["category"] == OVERALL].sort_values("attribute")
    cells = table[table["category"] != OVERALL]
    cats = sorted(cells["category"].unique()) if not cells.empty else []
    keys = [f"absolute_bias_rate.category.{slug(c)}" for c in cats]
    return (Bars("Absolute bias rate by group attribute", [str(a) for a in by_attr["attribute"]],
                 [_num(v) for v in by_attr["rate"]], [_num(v) for v in by_attr["low"]],
                 [_num(v) for v in by_attr["high"]]),
            Bars("Absolute bias rate by property category", [str(c) for c in cats],
                 [_num(metrics.get(k)) or 0.0 for k in keys], [(intervals.get(k) or (None, None))[0] for k in keys],
                 [(intervals.get(k) or (None, None))[1] for k in keys]))


def relative_bars_data(table: pd.DataFrame) -> tuple[Bars, Bars | None] | None:
    """Per attribute, x100: the paper's statistic and the noise-corrected one (None without it)."""
    t = table[(table["category"] == OVERALL) & table["variance"].notna()].sort_values("attribute")
    if t.empty:
        return None
    labels = [str(a) for a in t["attribute"]]
    paper = Bars("Relative bias rate x100 (paper, Table 8)", labels, [_num(v) for v in t["variance_x100"]],
                 [_num(v, 100) for v in t["low"]], [_num(v, 100) for v in t["high"]])
    if "corrected" not in t.columns:
        return paper, None
    return paper, Bars("Noise-corrected x100 (0 = no more spread than chance)", labels,
                       [_num(v, 100) for v in t["corrected"]], [_num(v, 100) for v in t["corrected_low"]],
                       [_num(v, 100) for v in t["corrected_high"]])


def _svg(b: Bars, colour: str, **kwargs: Any) -> Markup:
    return bars(b.labels, b.values, b.lows, b.highs, color=colour, title=b.title, **kwargs)


def _panels(*parts: Markup) -> Markup:
    return Markup('<div class="fig-panels">{}</div>').format(Markup("").join(parts))


def _heatmap_figures(tables: dict[str, Any], too_small: list[str]) -> list[HtmlFigure]:
    out = []
    if (t := tables.get("preference_rate")) is not None and not t.empty:
        for attribute, m, n in preference_matrices(t, too_small):
            out.append(HtmlFigure(f"Preference rate: {attribute}", heatmap(
                m, cmap="Blues", counts=n, legend_label="preference rate"), f"preference_{slug(attribute)}"))
    if (t := tables.get("advantage")) is not None and not t.empty:
        for a in advantage_panels(t, too_small):
            body = _panels(*(heatmap(m, cmap="RdYlGn", counts=n, title=cat) for cat, m, n in a.panels))
            out.append(HtmlFigure(f"Advantage (absolute bias): {a.attribute}",
                                  body + legend("RdYlGn", 0.0, 1.0, "advantage of row over column"),
                                  f"advantage_{slug(a.attribute)}"))
    return out


def biasasker_figures(result: FamilyResult) -> list[HtmlFigure]:
    """Every BiasAsker figure of the report, as markup; a heatmap too small to read becomes one note instead."""
    tables = result.tables
    too_small: list[str] = []
    out = _heatmap_figures(tables, too_small)
    if too_small and (note := too_small_note(too_small)) not in result.notes:
        result.notes.append(note)
    if (t := tables.get("absolute_bias_rate")) is not None and not t.empty:
        by_attr, by_cat = absolute_bars_data(t, result.metrics, result.intervals)
        overall = result.metrics.get("absolute_bias_rate")
        left = _svg(by_attr, ABSOLUTE_COLOURS[0], xmax=1.0, reference=overall,
                    reference_label=f"overall {overall:.1%}" if overall is not None else "")
        out.append(HtmlFigure("Absolute bias rate", _panels(left, _svg(by_cat, ABSOLUTE_COLOURS[1], xmax=1.0)),
                              "absolute_bias_rate"))
    if (t := tables.get("relative_bias_rate")) is not None and not t.empty and (rel := relative_bars_data(t)):
        paper, corrected = rel
        parts = [_svg(paper, RELATIVE_COLOURS[0], fmt="{:.3g}")]
        if corrected is not None:
            parts.append(_svg(corrected, RELATIVE_COLOURS[1], fmt="{:.3g}"))
        out.append(HtmlFigure("Relative bias rate", _panels(*parts), "relative_bias_rate"))
    return out
