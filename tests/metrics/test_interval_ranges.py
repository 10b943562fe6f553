"""Every interval the metric families report stays inside the range its parameter can take and holds its
own estimate, at the extremes too (issue 22: relative-bias intervals ran past the largest variance)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from harness.metrics import cbbq
from harness.metrics.fairscore import bootstrap_mean_interval
from harness.metrics.stats import exact_interval, max_population_variance, variance_estimate, wilson_interval


@pytest.mark.parametrize("interval", [wilson_interval, exact_interval])
def test_rate_intervals_stay_in_0_1_and_hold_the_rate(interval) -> None:
    for n in range(1, 31):
        for k in range(n + 1):
            low, high = interval(k, n)
            assert 0.0 <= low <= k / n <= high <= 1.0, (k, n, low, high)


def test_cbbq_total_interval_stays_in_0_1() -> None:
    # S_total's normal-approximation interval at its extremes: everything biased, nothing biased
    for biased_amb, biased_dis in ((5, 5), (0, 0), (5, 0), (1, 4)):
        rows = [{"context": "ambiguous", "valid": True, "biased": i < biased_amb, "chose_unknown": False,
                 "correct": False} for i in range(5)]
        rows += [{"context": "disambiguous", "valid": True, "biased": i < biased_dis, "chose_unknown": False,
                  "correct": False} for i in range(5)]
        s = cbbq.scores(pd.DataFrame(rows))
        assert 0.0 <= s["s_total.ci_low"] <= s["s_total"] <= s["s_total.ci_high"] <= 1.0, s


def test_variance_intervals_stay_below_the_largest_variance_for_any_counts() -> None:
    rng = np.random.default_rng(0)
    for _ in range(60):
        g = int(rng.integers(2, 7))
        n = rng.integers(1, 12, size=g)
        k = [int(rng.integers(0, m + 1)) if rng.random() < 0.5 else int(m) * int(rng.integers(0, 2)) for m in n]
        est = variance_estimate([list(zip(k, n.tolist(), strict=True))], n_boot=300, seed=int(rng.integers(1e6)))
        upper = max_population_variance(g) + 1e-12
        assert 0.0 <= est.interval[0] <= est.value <= est.interval[1] <= upper
        assert 0.0 <= est.corrected_interval[0] <= est.corrected <= est.corrected_interval[1] <= upper


def test_bootstrap_mean_interval_of_bounded_values_stays_in_their_range() -> None:
    # fairscore's percentile interval of means: means of values in [0, 1] are in [0, 1], and so are its ends
    values = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    low, high = bootstrap_mean_interval(values)[:, 0]
    assert 0.0 <= low <= 0.6 <= high <= 1.0
