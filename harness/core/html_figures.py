"""Figures the report writes itself: heatmaps as HTML tables and bar charts as inline SVG, no matplotlib.

Why: a run's report showed its figures as PNGs drawn by matplotlib, and drawing them was half the cost of
scoring and reporting a 4,000-reply run (issue 38: about 0.9 CPU s per heatmap, most of it laying out text).
The same content written as markup costs microseconds per cell, needs no font set-up (the browser draws
Chinese group names with its own fonts) and is text a reader can copy and search. The PNG files are still
drawn, from the same tables, on request (`harness report --plots`; harness.core.figures).

Every label and number reaches the markup escaped (`markupsafe.Markup.format`; group names come from data files);
the page's Content-Security-Policy allows inline styles only, which is all these figures use.
The colour maps are matplotlib's ColorBrewer "Blues" and "RdYlGn", interpolated the same way, so a cell has
the colour its PNG would have (within matplotlib's 256-step quantisation).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

#: A heatmap cell with fewer answers than this is greyed out: its rate moves by 1/n per answer, too far to read.
MIN_READABLE_N = 5
#: A heatmap whose readable cells are fewer than this share of its cells is not drawn at all (its table is
#: listed instead): a grid of grey squares costs its drawing time and shows nothing.
MIN_READABLE_SHARE = 0.2
SMALL_CELL_COLOUR = "#e6e6e6"
SMALL_TEXT_COLOUR = "#8c8c8c"

#: matplotlib's colour maps of the same names (ColorBrewer anchors, evenly spaced, linear between them)
COLORMAPS: dict[str, tuple[str, ...]] = {
    "Blues": ("#f7fbff", "#deebf7", "#c6dbef", "#9ecae1", "#6baed6", "#4292c6", "#2171b5", "#08519c", "#08306b"),
    "RdYlGn": ("#a50026", "#d73027", "#f46d43", "#fdae61", "#fee08b", "#ffffbf", "#d9ef8b", "#a6d96a", "#66bd63",
               "#1a9850", "#006837"),
}


@dataclass(frozen=True)
class HtmlFigure:
    """One figure of the report: its title, its markup (every text escaped), and the PNG file it stands for
    (`name`, e.g. "preference_age": `harness report --plots` writes plots/<name>.png with the same content)."""

    title: str
    html: Markup
    name: str = ""


def _rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    return int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255


def colour(cmap: str, value: float, vmin: float = 0.0, vmax: float = 1.0) -> tuple[float, float, float]:
    """The RGB (0-1) of `value` on colour map `cmap` between vmin and vmax (clipped at both ends)."""
    anchors = COLORMAPS[cmap]
    x = 0.0 if vmax == vmin else min(max((value - vmin) / (vmax - vmin), 0.0), 1.0)
    pos = x * (len(anchors) - 1)
    i = min(int(pos), len(anchors) - 2)
    frac = pos - i
    a, b = _rgb(anchors[i]), _rgb(anchors[i + 1])
    return (a[0] + (b[0] - a[0]) * frac, a[1] + (b[1] - a[1]) * frac, a[2] + (b[2] - a[2]) * frac)


def hex_colour(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{round(c * 255):02x}" for c in rgb)


def text_colour(rgb: tuple[float, float, float]) -> str:
    """White on a dark cell, black on a light one (perceived luminance, as the PNG heatmaps choose)."""
    return "white" if 0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2] < 0.5 else "black"


def _finite(v: Any) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def readable_share(counts: Any, min_n: int = MIN_READABLE_N) -> float:
    """The share of a heatmap's cells (those with a count) that have at least `min_n` answers; 0.0 when none."""
    flat = [float(v) for row in _rows(counts) for v in row if _finite(v)]
    return sum(v >= min_n for v in flat) / len(flat) if flat else 0.0


def _rows(matrix: Any) -> list[list[Any]]:
    """A matrix (DataFrame, numpy array or nested lists) as lists of rows."""
    if hasattr(matrix, "to_numpy"):
        matrix = matrix.to_numpy()
    return [list(row) for row in matrix]


def legend(cmap: str, vmin: float, vmax: float, label: str) -> Markup:
    """A colour ramp from vmin to vmax with its label (one per figure, under its panels)."""
    stops = ", ".join(hex_colour(colour(cmap, vmin + (vmax - vmin) * k / 8, vmin, vmax)) for k in range(9))
    return Markup('<div class="hm-legend"><span>{lo}</span><span class="hm-ramp" style="background:'
                  'linear-gradient(to right, {stops})"></span><span>{hi}</span> <span>{label}</span></div>').format(
        lo=f"{vmin:g}", hi=f"{vmax:g}", stops=Markup(stops), label=label)


def heatmap(matrix: Any, *, cmap: str, vmin: float = 0.0, vmax: float = 1.0, fmt: str = "{:.2f}",
            counts: Any = None, min_n: int = MIN_READABLE_N, title: str = "", legend_label: str = "",
            row_labels: Sequence[str] | None = None, col_labels: Sequence[str] | None = None) -> Markup:
    """`matrix` (a DataFrame: index = rows, columns = columns) as an HTML table, each cell coloured by its value
    with the value printed in it; with `counts` (same shape) each cell also shows its n, and a cell with fewer
    than `min_n` answers is grey with its value in grey, so a rate of one answer never reads as a finding.
    An empty (NaN) cell stays blank."""
    rows = [str(r) for r in (row_labels if row_labels is not None else matrix.index)]
    cols = [str(c) for c in (col_labels if col_labels is not None else matrix.columns)]
    values, ns = _rows(matrix), (_rows(counts) if counts is not None else None)
    head = Markup("").join(Markup("<th>{}</th>").format(c) for c in cols)
    body = []
    for i, label in enumerate(rows):
        cells = [Markup("<th>{}</th>").format(label)]
        for j, v in enumerate(values[i]):
            n = ns[i][j] if ns is not None else None
            cells.append(_heat_cell(v, n, cmap=cmap, vmin=vmin, vmax=vmax, fmt=fmt, min_n=min_n))
        body.append(Markup("<tr>{}</tr>").format(Markup("").join(cells)))
    caption = Markup("<caption>{}</caption>").format(title) if title else Markup("")
    table = Markup('<table class="hm">{cap}<tr><th></th>{head}</tr>{body}</table>').format(
        cap=caption, head=head, body=Markup("").join(body))
    return table + (legend(cmap, vmin, vmax, legend_label) if legend_label else Markup(""))


def _heat_cell(v: Any, n: Any, *, cmap: str, vmin: float, vmax: float, fmt: str, min_n: int) -> Markup:
    if not _finite(v):
        return Markup("<td></td>")
    text = fmt.format(float(v))
    n_text = Markup("<small>n={}</small>").format(int(float(n))) if _finite(n) else Markup("")
    if _finite(n) and float(n) < min_n:
        return Markup('<td class="small" style="background:{bg};color:{fg}">{t}{n}</td>').format(
            bg=SMALL_CELL_COLOUR, fg=SMALL_TEXT_COLOUR, t=text, n=n_text)
    rgb = colour(cmap, float(v), vmin, vmax)
    return Markup('<td style="background:{bg};color:{fg}">{t}{n}</td>').format(
        bg=hex_colour(rgb), fg=text_colour(rgb), t=text, n=n_text)


#: bar chart geometry (SVG user units = CSS px)
_BAR_H, _GAP, _LABEL_W, _PLOT_W, _PAD = 16, 6, 170, 300, 24


def bars(labels: Sequence[str], values: Sequence[float | None], lows: Sequence[float | None] | None = None,
         highs: Sequence[float | None] | None = None, *, color: str, title: str = "", xmax: float | None = None,
         fmt: str = "{:.1%}", reference: float | None = None, reference_label: str = "") -> Markup:
    """Horizontal bars with their 95% intervals as whiskers, each bar's value printed beside it, as inline SVG.

    `xmax`: the axis's right end (1.0 for rates); None: the largest value or interval end. A value of None
    draws no bar and prints "n/a". `reference`: a dashed vertical line (the overall rate) with its label."""
    lows = lows if lows is not None else [None] * len(values)
    highs = highs if highs is not None else [None] * len(values)
    ends = [float(x) for x in (*values, *highs) if _finite(x)]
    top = xmax if xmax is not None else (max(ends) if ends and max(ends) > 0 else 1.0)
    lo_end = min([0.0, *(float(x) for x in (*values, *lows) if _finite(x))])
    span = (top - lo_end) or 1.0

    def x(v: float) -> float:
        return _LABEL_W + (v - lo_end) / span * _PLOT_W

    axis_y = _PAD + len(labels) * (_BAR_H + _GAP) + 2
    height = axis_y + 22 + (14 if _finite(reference) else 0)
    parts = [Markup('<text x="{x}" y="14" class="t">{t}</text>').format(x=_LABEL_W, t=title)] if title else []
    for k, label in enumerate(labels):
        y = _PAD + k * (_BAR_H + _GAP)
        parts.append(Markup('<text x="{x}" y="{y}" text-anchor="end">{t}</text>').format(
            x=_LABEL_W - 6, y=y + _BAR_H - 4, t=label))
        v = values[k]
        if not _finite(v):
            parts.append(Markup('<text x="{x}" y="{y}" fill="#6b7482">n/a</text>').format(x=x(0) + 4,
                                                                                        y=y + _BAR_H - 4))
            continue
        fv = float(v)
        parts.append(Markup('<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="{c}"/>').format(
            x=f"{min(x(0), x(fv)):.1f}", y=y, w=f"{abs(x(fv) - x(0)):.1f}", h=_BAR_H, c=color))
        lo, hi = lows[k], highs[k]
        if _finite(lo) and _finite(hi):
            mid = y + _BAR_H / 2
            parts.append(Markup('<path d="M{a} {m}H{b}M{a} {t}V{u}M{b} {t}V{u}" stroke="#1d2530" fill="none"/>').format(
                a=f"{x(float(lo)):.1f}", b=f"{x(float(hi)):.1f}", m=mid, t=mid - 4, u=mid + 4))
        end = max(fv, float(hi)) if _finite(hi) else fv
        parts.append(Markup('<text x="{x}" y="{y}">{t}</text>').format(x=f"{x(end) + 5:.1f}", y=y + _BAR_H - 4,
                                                                      t=fmt.format(fv)))
    parts.append(Markup('<path d="M{a} {t}V{b}H{c}" stroke="#6b7482" fill="none"/>').format(
        a=f"{x(0):.1f}", t=_PAD - 4, b=axis_y, c=f"{x(top):.1f}"))
    for k in range(5):  # the value axis: five ticks from its left end to its right end
        tick = lo_end + span * k / 4
        parts.append(Markup('<path d="M{x} {b}v4" stroke="#6b7482"/><text x="{x}" y="{y}" text-anchor="middle" '
                            'fill="#6b7482" font-size="9">{t}</text>').format(
            x=f"{x(tick):.1f}", b=axis_y, y=axis_y + 14, t=fmt.format(tick)))
    if _finite(reference):
        rx = f"{x(float(reference)):.1f}"
        parts.append(Markup('<path d="M{x} {t}V{b}" stroke="#1d2530" stroke-dasharray="4 3"/>'
                            '<text x="{x}" y="{y}" text-anchor="middle">{label}</text>').format(
            x=rx, t=_PAD - 4, b=axis_y, y=height - 3, label=reference_label))
    width = _LABEL_W + _PLOT_W + 80
    return Markup('<svg class="bars" width="{w}" height="{h}" '
                  'viewBox="0 0 {w} {h}" font-size="11">{body}</svg>').format(w=width, h=height,
                                                                              body=Markup("").join(parts))


#: the figures' styles, put once in the report's <style> (harness/report/templates/report.html.j2)
CSS = Markup("""
.fig { margin: 8px 0 14px; }
.fig-panels { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
table.hm { border-collapse: collapse; font-size: 11px; margin: 4px 0; }
table.hm caption { font-size: 12px; font-weight: 600; text-align: left; padding: 2px 0; }
table.hm th { background: none; border: none; font-weight: 400; text-align: right; padding: 2px 6px; }
table.hm tr:first-child th { text-align: center; vertical-align: bottom; }
table.hm td { border: 1px solid #fff; min-width: 46px; text-align: center; padding: 3px 4px;
              font-variant-numeric: tabular-nums; line-height: 1.15; }
table.hm td small { display: block; font-size: 9px; opacity: .85; }
.hm-legend { font-size: 11px; color: #4a5563; display: flex; align-items: center; gap: 6px; margin: 2px 0 6px; }
.hm-ramp { display: inline-block; width: 140px; height: 10px; border: 1px solid #ccc; }
svg.bars text { fill: #1d2530; }
svg.bars text.t { font-weight: 600; font-size: 12px; }
""")
