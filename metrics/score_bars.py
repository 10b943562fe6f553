"""Two scores per category as paired bars with their 95% intervals: the score figure of BBQ and of CBBQ.

Why this module: BBQ's s_AMB / s_DIS figure and CBBQ's S_amb / S_disamb figure were the same drawing written
twice (bars side by side, the intervals as error bars, the legend outside on the right), and CBBQ's answer
shares figure repeated its tail. One function each now; a family names its keys, labels, range and title.
A score with nothing to divide by is marked "n/a" on the axis, never drawn as a bar of 0.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")


#: the two bars' colours, left then right
COLOURS = ("#4c72b0", "#dd8452")


def finish(fig: Any, ax: Any, title: str, path: Path) -> Path:
    """Title, the legend outside the axes on the right, and the PNG (harness.core.figures.save_figure)."""
    from harness.core.figures import save_figure

    ax.set_title(title)
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    return save_figure(fig, path, tight=False, dpi=110)


def score_bars(t: pd.DataFrame, bars: tuple[tuple[str, str], tuple[str, str]], *, ylim: tuple[float, float],
               ylabel: str, title: str, path: Path) -> Path:
    """One figure of table t (a `category` column, and per key its value with `.ci_low` / `.ci_high`).

    `bars`: (column, legend label) for the left and the right bar of each category. A range reaching below
    0 gets a line at 0 (scores from -1 to 1).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = range(len(t))
    for offset, (key, label), colour in zip((-0.2, 0.2), bars, COLOURS, strict=True):
        err = [(t[key] - t[f"{key}.ci_low"]).fillna(0), (t[f"{key}.ci_high"] - t[key]).fillna(0)]
        ax.bar([i + offset for i in x], t[key].fillna(0), width=0.4, yerr=err, capsize=3, color=colour, label=label)
        for i, v in zip(x, t[key], strict=True):  # nothing to divide by: say so instead of a fake 0
            if pd.isna(v):
                ax.text(i + offset, 0.02, "n/a", ha="center", va="bottom", fontsize=7, rotation=90)
    if ylim[0] < 0:
        ax.axhline(0, color="#444", linewidth=0.8)
    ax.set_xticks(list(x), t["category"], rotation=35, ha="right")
    ax.set_ylim(*ylim)
    ax.set_ylabel(ylabel)
    return finish(fig, ax, title, path)
