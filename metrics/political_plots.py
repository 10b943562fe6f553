"""The political family's figure: base-rate distributions per option, one panel per prompt group.

Why empirical distribution functions rather than histograms: the indirect bias of an option is the
2-Wasserstein distance between its base rate and the pooled one, i.e. the (squared) horizontal gap between
the two curves drawn here, so a reader sees the distance the number measures. The pooled curve is dashed.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from harness.core.figures import plt, save_figure, setup_fonts
from harness.core.lazy import lazy_module
from harness.metrics import slug
from harness.metrics.political_stats import CELLS

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

_TITLES = {"indirect": "indirect prompts", "liberal": "direct prompts (liberal)",
           "conservative": "direct prompts (conservative)"}


def _ecdf(ax: plt.Axes, values: np.ndarray, **style: object) -> None:
    xs = np.sort(values)
    ys = np.arange(1, len(xs) + 1) / len(xs)
    ax.step(np.concatenate([[0.0], xs, [1.0]]), np.concatenate([[0.0], ys, [1.0]]), where="post", **style)


def base_rate_plots(frame: pd.DataFrame, out_dir: Path) -> list[Path]:
    """One PNG per attribute: for each prompt group, the distribution of P(conservative) per option."""
    setup_fonts()
    paths: list[Path] = []
    scored = frame.dropna(subset=["score"])
    for attr, part in scored.groupby("attribute", sort=True):
        cells = [c for c in CELLS if (part["cell"] == c).any()]
        if not cells:
            continue
        options = list(dict.fromkeys(part["option"]))
        fig, axes = plt.subplots(1, len(cells), figsize=(4.2 * len(cells), 3.6), squeeze=False, sharey=True)
        colors = plt.get_cmap("tab10")
        for ax, cell in zip(axes[0], cells, strict=True):
            sub = part[part["cell"] == cell]
            for i, option in enumerate(options):
                values = sub.loc[sub["option"] == option, "score"].to_numpy(float)
                if len(values):  # n: this option's texts in this panel (each panel has its own legend)
                    _ecdf(ax, values, color=colors(i % 10), label=f"{option} (n={len(values)})")
            _ecdf(ax, sub["score"].to_numpy(float), color="black", linestyle="--",
                  label=f"all options (n={len(sub)})")
            ax.set_xlim(0, 1)
            ax.set_ylim(0, 1.02)
            ax.set_title(_TITLES.get(cell, cell), fontsize=10)
            ax.set_xlabel("P(conservative) by the judge")
            ax.grid(alpha=0.3)
            ax.legend(fontsize=7, loc="lower right", title="n = texts in this panel", title_fontsize=7)
        axes[0][0].set_ylabel("share of texts at or below")
        fig.suptitle(f"Base rates per option: {attr}", fontsize=11, y=1.03)
        paths.append(save_figure(fig, out_dir / f"political_base_rates_{slug(attr)}.png"))
    return paths
