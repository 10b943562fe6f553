"""Wilson's lowest coverage with 2-20 questions, computed exactly (the figure docs/reports.md and metrics/stats.py
quote as the reason one group's rate gets a Clopper-Pearson interval instead).

For n questions the coverage of the 95% Wilson interval at a true rate p is the binomial probability of the
counts k whose interval holds p: a polynomial in p between the intervals' ends, and on each such piece the
probability of a run of counts, which rises then falls, so its lowest values are at the ends. The infimum over p
is therefore the smaller one-sided limit at some interval end, and it is taken there, not estimated by a grid.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from harness.metrics.stats import wilson_interval

REPO = Path(__file__).resolve().parent.parent.parent
STEP = 1e-12  # one side of an end: far below the gap between two ends, far above rounding


def _coverage(n: int, p: float, ends: list[tuple[float, float]]) -> float:
    return sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k, (lo, hi) in enumerate(ends) if lo <= p <= hi)


def lowest_coverage(n: int) -> tuple[float, float]:
    """(infimum over 0 < p < 1 of the Wilson interval's exact coverage with n questions, a p just beside it)."""
    ends = [wilson_interval(k, n) for k in range(n + 1)]
    beside = [e + s for lo_hi in ends for e in lo_hi for s in (-STEP, STEP) if 0 < e + s < 1]
    return min((_coverage(n, p, ends), p) for p in beside)


def test_wilson_lowest_coverage_for_2_to_20_questions_is_82_percent_at_two() -> None:
    lows = {n: lowest_coverage(n) for n in range(2, 21)}
    worst_n = min(lows, key=lambda n: lows[n][0])
    cover, p = lows[worst_n]
    assert worst_n == 2
    # by hand: with 2 questions, just above the upper end of 1 of 2 only 2 of 2 covers p, so coverage -> p^2
    upper_1_of_2 = wilson_interval(1, 2)[1]
    assert abs(upper_1_of_2 - 0.90547) < 1e-5
    assert math.isclose(cover, upper_1_of_2**2, rel_tol=1e-9)  # 0.81987..., by symmetry also at p = 0.0945
    assert min(p, 1 - p) == pytest.approx(1 - upper_1_of_2, abs=1e-9)
    assert f"{100 * cover:.1f}%" == "82.0%"
    assert all(lows[n][0] > 0.826 for n in range(3, 21))  # from 3 questions on it is 82.7% or more
    assert all(lows[n][0] < 0.95 for n in range(2, 21))  # and always below the nominal 95%


def test_the_docs_quote_the_computed_figure() -> None:
    figure = f"{100 * min(lowest_coverage(n)[0] for n in range(2, 21)):.1f}%"
    for path in ("docs/reports.md", "metrics/stats.py"):
        text = (REPO / path).read_text("utf-8")
        assert f"coverage falls to {figure}" in " ".join(text.split()), path
