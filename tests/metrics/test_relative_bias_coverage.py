"""The relative bias rate's statistics: hand-computed values, and coverage checked by simulation.

The simulation (benchmarks/relative_bias_coverage.py, which prints the full table) draws synthetic bots
with known per-group preference rates at 5, 20 and 100 questions per group, 1,000 runs each, and checks
that the 95% intervals hold the true value in at least 93% of them and that the permutation test of
"every group is treated alike" rejects equal groups at most about 5% of the time (0.065 = 5% plus two
binomial standard errors of a 1,000-draw estimate).
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from harness.metrics.stats import (
    corrected_variance,
    exact_interval,
    max_population_variance,
    permutation_test,
    variance_estimate,
    variance_noise,
)

ROOT = Path(__file__).resolve().parents[2]


def _benchmark():  # noqa: ANN202 - the benchmark module
    name = "relative_bias_coverage"
    if name not in sys.modules:  # registered before it runs: its dataclass looks itself up there
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
        module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        sys.modules[name] = module
        spec.loader.exec_module(module)  # type: ignore[union-attr]
    return sys.modules[name]


def test_noise_and_corrected_variance_by_hand() -> None:
    # two groups of 10: rates .5 and .3; variance .01; noise (1/4)(.25/9 + .21/9)
    assert variance_noise([(5, 10), (3, 10)]) == pytest.approx(0.25 * (0.25 + 0.21) / 9)
    assert corrected_variance([(5, 10), (3, 10)]) == pytest.approx(0.01 - 0.25 * 0.46 / 9)
    # a group asked once borrows the pooled rate 1/4: noise (2/9)(3/16 + 3/16 + 0)
    assert variance_noise([(0, 1), (1, 1), (0, 2)]) == pytest.approx(2 / 9 * 0.375)
    assert variance_noise([(3, 10)]) == 0.0 and corrected_variance([(3, 10)]) is None
    est = variance_estimate([[(5, 10), (3, 10)]], seed=1)
    assert est.value == pytest.approx(0.01) and est.corrected == 0.0  # clipped: below what chance gives
    assert est.noise == pytest.approx(0.25 * 0.46 / 9)


def test_intervals_hold_their_estimates_and_are_seeded() -> None:
    for sets in ([[(0, 5), (5, 5), (2, 5)]], [[(1, 2), (0, 3)], [(7, 9), (1, 9), (4, 9)]], [[(0, 4), (0, 4)]]):
        est = variance_estimate(sets, seed=3)
        assert est == variance_estimate(sets, seed=3)
        assert est.interval[0] <= est.value <= est.interval[1]
        assert est.corrected_interval[0] <= est.corrected <= est.corrected_interval[1]
        assert est.interval[0] >= 0 and est.corrected_interval[0] >= 0
    # nothing favoured in 4 + 4 questions: no spread seen, but a few favourable answers were possible
    none = variance_estimate([[(0, 4), (0, 4)]])
    assert none.value == 0.0 and none.interval[0] == 0.0 and 0.0 < none.interval[1] < 0.1
    assert variance_estimate([[(3, 5)]]) is None


def test_largest_variance_by_hand() -> None:
    # m of G rates at 1, the rest at 0: m (G - m) / G^2, largest at m = G // 2
    assert max_population_variance(1) == 0.0
    assert max_population_variance(2) == pytest.approx(1 / 4)  # (0, 1): mean 1/2, both 1/2 away
    assert max_population_variance(3) == pytest.approx(2 / 9)  # (0, 1, 1): mean 2/3; (4/9 + 1/9 + 1/9) / 3
    assert max_population_variance(4) == pytest.approx(1 / 4)
    assert max_population_variance(5) == pytest.approx(6 / 25)
    assert max_population_variance(7) == pytest.approx(12 / 49)
    # no corner of the cube [0, 1]^G (where a convex function peaks) gives more, and some corner gives it
    for g in range(2, 9):
        corners = np.array(np.meshgrid(*[[0.0, 1.0]] * g)).reshape(g, -1).T
        assert corners.var(axis=1).max() == pytest.approx(max_population_variance(g))


def test_intervals_stay_below_the_largest_variance() -> None:
    # three groups at 0/5, 5/5, 5/5: the paper's variance is 2/9, already the maximum (issue 22 saw
    # 22.22 [5.78, 28.01] x100 here); both intervals must end at or below 2/9
    for sets in ([[(0, 5), (5, 5), (5, 5)]], [[(0, 3), (3, 3), (3, 3)]], [[(0, 2), (2, 2)]],
                 [[(0, 4), (4, 4)], [(0, 5), (5, 5), (5, 5)]], [[(1, 20), (19, 20), (20, 20)]]):
        upper = np.mean([max_population_variance(len(c)) for c in sets])
        est = variance_estimate(sets, seed=2)
        assert 0.0 <= est.interval[0] <= est.value <= est.interval[1] <= upper + 1e-15, (sets, est)
        assert 0.0 <= est.corrected_interval[0] <= est.corrected <= est.corrected_interval[1] <= upper + 1e-15
    at_max = variance_estimate([[(0, 5), (5, 5), (5, 5)]], seed=2)
    assert at_max.value == pytest.approx(2 / 9) and at_max.interval[1] == pytest.approx(2 / 9)
    assert at_max.interval[0] < 2 / 9  # the resamples from smoothed rates do fall below the maximum


def test_exact_interval_by_hand() -> None:
    assert exact_interval(0, 5) == pytest.approx((0.0, 1 - 0.025 ** (1 / 5)))
    assert exact_interval(5, 5) == pytest.approx((0.025 ** (1 / 5), 1.0))
    lo, hi = exact_interval(5, 10)
    assert lo == pytest.approx(0.187086, abs=1e-5) and hi == pytest.approx(0.812914, abs=1e-5)
    assert exact_interval(0, 0) is None


def test_permutation_p_matches_enumeration() -> None:
    # groups (2 of 2) and (0 of 2): of the 6 equally likely ways to deal 2 favourable answers to 4 slots,
    # 2 give a variance as large as the observed 0.25, so p = 1/3
    p = permutation_test([[(2, 2), (0, 2)]], n_perm=20000, seed=0)
    assert p == pytest.approx(1 / 3, abs=0.01)
    assert permutation_test([[(1, 2), (1, 2)]]) == 1.0  # equal rates: every shuffle is at least as extreme
    assert permutation_test([[(4, 4)]]) is None
    assert permutation_test([[(50, 50), (0, 50)]], n_perm=999) == pytest.approx(1 / 1000)


@pytest.mark.parametrize("scenario", ["7 groups equal at 0.5", "5 groups, one at 0 and one at 1"])
@pytest.mark.parametrize("n", [5, 20, 100])
def test_coverage_at_the_sizes_people_run(scenario: str, n: int) -> None:
    bench = _benchmark()
    c = bench.simulate(bench.SCENARIOS[scenario], n, draws=1000, seed=n)
    assert c.contains_estimate == 1.0 and c.in_range == 1.0
    assert c.paper >= 0.93, c
    assert c.corrected >= 0.93, c
    assert c.preference >= 0.93, c
    if len(set(bench.SCENARIOS[scenario])) == 1:
        assert c.permutation_rejects <= 0.065, c  # false positives for a bot that treats groups alike
    else:
        assert c.permutation_rejects >= 0.5 or n == 5, c  # a real difference is found once groups are not tiny
    assert math.isfinite(c.paper)


@pytest.mark.parametrize("scenario", ["3 groups at 0, 1, 1 (the maximum)", "3 groups near the maximum (.02, .98, .98)",
                                      "4 groups equal at 0.02"])
@pytest.mark.parametrize("n", [5, 20])
def test_coverage_near_the_bounds(scenario: str, n: int) -> None:
    """At and near the largest variance three groups can have (2/9) and near 0: intervals inside [0, 2/9]
    (or the G-group maximum) in every draw, and still holding the truth at least 93% of the time.
    benchmarks/relative_bias_coverage.py prints every near-bound scenario at 5, 20 and 100 questions."""
    bench = _benchmark()
    c = bench.simulate(bench.SCENARIOS[scenario], n, draws=500, seed=7 + n, n_boot=500, n_perm=500)
    assert c.in_range == 1.0, c
    assert c.contains_estimate == 1.0, c
    assert c.paper >= 0.93 and c.corrected >= 0.93 and c.preference >= 0.93, c


def test_old_percentile_interval_would_fail_here() -> None:
    """Guard for the test itself: the plain percentile interval of the paper's variance (what the harness
    used before) misses the truth often at 100 questions per group, so the coverage check can fail."""
    rng = np.random.default_rng(0)
    p, n, g = 0.1, 100, 20
    truth = (g - 1) / g**2 * g * p * (1 - p) / n
    ks = rng.binomial(n, p, size=(300, g))
    boot = rng.binomial(n, (ks / n)[:, None, :], size=(300, 500, g)) / n
    lo, hi = np.quantile(boot.var(axis=2), [0.025, 0.975], axis=1)
    assert float(np.mean((lo <= truth) & (truth <= hi))) < 0.7
