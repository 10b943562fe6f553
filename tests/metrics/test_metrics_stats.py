"""Intervals and tests in metrics.stats, checked against published values and brute-force computation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.metrics.stats import (
    bootstrap_variance_interval,
    holm_adjust,
    mean_variance_interval,
    population_variance,
    sign_test,
    two_proportion_test,
    variance_difference_test,
    wilson_interval,
)


def test_wilson_matches_published_values() -> None:
    # Newcombe (1998) / any textbook: 5 of 10 -> [0.2366, 0.7634]; 0 of 10 -> [0, 0.2775]; 10 of 10 mirrored.
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(1 - 0.2775, abs=1e-4)
    assert wilson_interval(0, 0) is None


def test_population_variance_is_the_papers_expectation_form() -> None:
    assert population_variance([0.5, 0.75, 0.0]) == pytest.approx(0.2916666667 / 3)
    assert population_variance([0.3, 0.3]) == 0.0
    assert population_variance([]) is None


def test_two_proportion_z_and_fisher() -> None:
    # z test: 40/100 vs 60/100 -> z = -2.828, p = 0.00468
    assert two_proportion_test(40, 100, 60, 100) == pytest.approx(0.004678, rel=1e-3)
    assert two_proportion_test(30, 100, 30, 100) == pytest.approx(1.0)
    # small counts switch to Fisher's exact test: 1/10 vs 6/10 -> two-sided p = 0.05728
    assert two_proportion_test(1, 10, 6, 10) == pytest.approx(0.05728, rel=1e-3)
    assert two_proportion_test(1, 0, 1, 10) is None


def test_sign_test_and_holm() -> None:
    assert sign_test(2, 3) == pytest.approx(1.0)
    assert sign_test(10, 0) == pytest.approx(2 * 0.5**10)
    assert sign_test(0, 0) is None
    adj = holm_adjust([0.01, 0.04, None, 0.03])
    assert adj[0] == pytest.approx(0.03) and adj[3] == pytest.approx(0.06) and adj[1] == pytest.approx(0.06)
    assert adj[2] is None


def test_bootstrap_variance_interval_is_seeded_and_covers_the_estimate() -> None:
    counts = [(50, 100), (75, 100), (10, 100)]
    est = population_variance([0.5, 0.75, 0.1])
    ci = bootstrap_variance_interval(counts, seed=3)
    assert ci == bootstrap_variance_interval(counts, seed=3)
    assert ci[0] < est < ci[1]
    assert bootstrap_variance_interval([(5, 10)]) is None  # one group: no variance to speak of
    # Equal groups: the interval hugs zero from above.
    lo, hi = bootstrap_variance_interval([(50, 100), (50, 100)], seed=0)
    assert lo >= 0 and hi < 0.01
    m = mean_variance_interval([counts, [(50, 100), (50, 100)]], seed=1)
    assert m[0] < est / 2 < m[1]


def test_variance_difference_detects_a_real_change_and_not_noise() -> None:
    fair = [(50, 100), (52, 100), (49, 100)]
    unfair = [(90, 100), (20, 100), (50, 100)]
    assert variance_difference_test([fair], [unfair], seed=0) < 0.01
    p_same = variance_difference_test([fair], [fair], seed=0)
    assert p_same > 0.2
    assert variance_difference_test([[(1, 2)]], [unfair]) is None


def test_bootstrap_equals_resampling_questions() -> None:
    """Binomial draws per group are the nonparametric bootstrap of that group's 0/1 answers."""
    rng = np.random.default_rng(0)
    answers = np.array([1] * 30 + [0] * 70)
    direct = [answers[rng.integers(0, 100, 100)].mean() for _ in range(4000)]
    from harness.metrics.stats import bootstrap_variance_draws

    draws = bootstrap_variance_draws([(30, 100), (30, 100)], 4000, np.random.default_rng(1))
    # variance of two independent bootstrap means of p=0.3, n=100: E[var] = Var(p*)/2
    assert float(np.mean(draws)) == pytest.approx(np.var(direct) / 2, rel=0.15)
    assert math.isfinite(float(np.mean(draws)))
