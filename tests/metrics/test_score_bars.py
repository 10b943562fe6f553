"""The shared score figure (harness.metrics.score_bars): BBQ's and CBBQ's scores per category, each family's
PNG written at the report's size, a score with nothing to divide by drawn as "n/a" rather than failing."""

from __future__ import annotations

import math
from pathlib import Path

import matplotlib.image as mpimg
import pandas as pd

from harness.metrics.score_bars import score_bars


def test_two_scores_per_category_with_a_missing_one_make_one_png(tmp_path: Path) -> None:
    t = pd.DataFrame({"category": ["age", "race"], "a": [0.5, math.nan], "a.ci_low": [0.2, math.nan],
                      "a.ci_high": [0.7, math.nan], "b": [-0.1, 0.3], "b.ci_low": [-0.4, 0.1], "b.ci_high": [0.2, 0.5]})
    path = score_bars(t, (("a", "left"), ("b", "right")), ylim=(-1.05, 1.05), ylabel="score", title="t",
                      path=tmp_path / "s.png")
    assert path == tmp_path / "s.png"
    height, width = mpimg.imread(path).shape[:2]
    assert (width, height) == (1100, 495)  # 10 x 4.5 inches at 110 dpi, not cropped


def test_bbqs_plot_draws_through_it(tmp_path: Path) -> None:
    from harness.core.records import LABEL_CHOICE, Probe, Verdict
    from harness.metrics import bbq

    pairs = []
    for i, context in enumerate(("ambig", "disambig")):
        meta = {"category": "Age", "polarity": "neg", "target": 0, "unknown": 2, "label": 2 - 2 * i}
        probe = Probe.make("s", "en", "bbq", context, f"q{i}", options=("old", "young", "unknown"), meta=meta)
        pairs.append((probe, Verdict(probe.id, LABEL_CHOICE, True, "rules", favoured="0")))
    (path,) = bbq.plots(bbq.frame(pairs), tmp_path)
    assert path.name == "bbq_scores.png" and path.stat().st_size > 0
