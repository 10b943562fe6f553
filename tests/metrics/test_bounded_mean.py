"""The betting test of a bounded mean (harness.metrics.bounded_mean) and the gates' tests built on it
(harness.metrics.bounded_gates): values by hand, the e-value's mean under the null computed exactly, the exact
size on an enumerated Bernoulli sample, the confidence bound as the test's inverse, ICAT's Bonferroni bound."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from harness.metrics import bounded_gates as bg
from harness.metrics import bounded_mean as bm

#: the mean of c and of c^2 over the 40 bets c_j = (j + 1/2) / 40: 1/2 and sum (j + 1/2)^2 / 40^3 = 21330 / 64000
MEAN_C, MEAN_C2 = 0.5, 21330 / 64000


def test_by_hand_two_ones_against_a_half() -> None:
    # lam = c / t = 2c, each factor 1 + 2c (1 - 1/2) = 1 + c: K = mean (1 + c)^2 = 1 + 2 (1/2) + 0.3332813
    assert bm.betting_p([1.0, 1.0], 0.5) == pytest.approx(1 / (2 + MEAN_C2), rel=1e-12)
    assert bm.betting_p([0.0, 0.0], 0.5, bm.LOWER) == pytest.approx(1 / (2 + MEAN_C2), rel=1e-12)
    assert bm.betting_p([100.0, 100.0], 50.0, high=100.0) == pytest.approx(0.4285810, abs=1e-7)


def test_by_hand_weighted_units() -> None:
    # weights 3, 1 -> 1.5, 0.5 (mean 1); lam = c / (0.5 x 1.5): factors 1 + c and 1 - c / 3
    # K = mean (1 + 2c/3 - c^2/3) = 1 + 1/3 - 0.3332813 / 3 = 1.2222396, p = 1 / K = 0.8181702
    want = 1 / (1 + 2 * MEAN_C / 3 - MEAN_C2 / 3)
    assert bm.betting_p([1.0, 0.0], 0.5, weights=[3, 1]) == pytest.approx(want, rel=1e-12)
    assert want == pytest.approx(0.8181702, abs=1e-7)


def test_hoeffding_by_hand() -> None:
    assert bm.hoeffding_p([1, 1, 1, 1], 0.5) == pytest.approx(math.exp(-2.0))  # exp(-2 x 4 x 0.5^2)
    assert bm.hoeffding_p([0.2, 0.4], 0.5) == 1.0


def test_the_wealth_is_an_e_value_for_units_with_different_means() -> None:
    """E[K] over every outcome of Bernoulli(0.3) and Bernoulli(0.7) against t = 0.5 (their mean): each bet's
    E = (1 - 0.2 lam)(1 + 0.2 lam) <= 1, so the mixture's too (the AM-GM step of the module docstring)."""
    total = 0.0
    for a, b in itertools.product((0, 1), repeat=2):
        prob = (0.3 if a else 0.7) * (0.7 if b else 0.3)
        total += prob * math.exp(bm.log_wealth(np.array([a, b], float), 0.5, np.ones(2)))
    lam = (np.arange(bm.BETS) + 0.5) / bm.BETS / 0.5
    assert total == pytest.approx(float(np.mean(1 - 0.04 * lam**2)), rel=1e-12)
    assert total < 1.0


def test_exact_size_on_an_enumerated_sample() -> None:
    """Every outcome of 12 Bernoulli(0.4) units at t = 0.4: P(p <= alpha) <= alpha at each alpha."""
    n, t = 12, 0.4
    ps, probs = [], []
    for k in range(n + 1):
        ps.append(bm.betting_p([1.0] * k + [0.0] * (n - k), t))
        probs.append(math.comb(n, k) * t**k * (1 - t) ** (n - k))
    for alpha in (0.01, 0.05, 0.1, 0.3):
        assert sum(pr for p, pr in zip(ps, probs, strict=True) if p <= alpha) <= alpha


def test_edges_and_bad_values() -> None:
    assert bm.betting_p([], 0.5) is None and bm.confidence_bound([], 0.05) is None
    assert bm.betting_p([0.9], 1.0) == 1.0 and bm.betting_p([0.1, 0.0], 0.0) == 0.0
    assert bm.betting_p([1.0], 1.0, bm.LOWER) == 1.0 and bm.betting_p([0.9], 1.0, bm.LOWER) == 0.0
    with pytest.raises(ValueError, match="outside"):
        bm.betting_p([1.5], 0.5)


def test_the_bound_is_the_tests_inverse() -> None:
    rng = np.random.default_rng(3)
    x = rng.beta(2, 3, 40)
    up, low = bm.confidence_bound(x, 0.05, bm.UPPER), bm.confidence_bound(x, 0.05, bm.LOWER)
    assert low < x.mean() < up
    assert bm.betting_p(x, up, bm.LOWER) == pytest.approx(0.05, rel=1e-6)
    assert bm.betting_p(x, low, bm.UPPER) == pytest.approx(0.05, rel=1e-6)


def test_icat_bound_is_bonferroni_through_the_map() -> None:
    rng = np.random.default_rng(4)
    ss, lms = list(rng.uniform(40, 90, 30)), list(rng.uniform(70, 100, 30))
    u_lms = bm.confidence_bound(lms, 0.025, bm.UPPER, high=100.0)
    u_ss = bm.confidence_bound(ss, 0.0125, bm.UPPER, high=100.0)
    l_ss = bm.confidence_bound(ss, 0.0125, bm.LOWER, high=100.0)
    assert bg.icat_bound(ss, lms, 0.05, bm.UPPER) == pytest.approx(u_lms * min(u_ss, 100 - l_ss, 50) / 50)
    t = 75.0  # the estimate is about 85 x 35 / 50 = 60
    p = bg.icat_p(ss, lms, t, bm.LOWER)  # H0 "ICAT >= 75": the upper bound at alpha = p lies at 75
    assert 0 < p < 1 and bg.icat_bound(ss, lms, p, bm.UPPER) == pytest.approx(t, rel=1e-4)
    assert bg.icat_p(ss, lms, 99.0, bm.LOWER) < 1e-6 and bg.icat_p(ss, lms, 50.0, bm.LOWER) == 1.0


def test_stereoset_and_tod_gates_read_the_kept_units() -> None:
    run = {
        "tables": {
            "stereoset": {bg.STEREOSET_UNITS: [{"slice": "", "ss": [100.0, 100.0], "lms": [50, 50]}]},
            "tod": {bg.TOD_UNITS: [{"key": "tod.bleu", "means": [1.0, 0.0], "turns": [3, 1]}]},
        }
    }
    p, how = bg.stereoset_p("stereoset.ss", 50.0, bm.UPPER, run)
    assert p == pytest.approx(1 / (2 + MEAN_C2)) and "2 target terms" in how
    assert bg.stereoset_p("stereoset.ss.gender", 50.0, bm.UPPER, run) is None  # no such slice kept
    p, how = bg.tod_p("tod.bleu", 0.5, bm.UPPER, run)
    assert p == pytest.approx(1 / (1 + 2 * MEAN_C / 3 - MEAN_C2 / 3)) and "2 dialogues" in how
    assert bg.tod_p("tod.gender.bleu_gap", 0.5, bm.UPPER, run) is None


def test_distance_from_50_by_bonferroni() -> None:
    # ten terms at SS_t 100 against |SS - 50| <= 10: the upper test at 60 has lam = c / 0.6 and factors
    # 1 + (c / 0.6) 0.4 = 1 + 2c/3, K = mean (1 + 2c/3)^10; the test of SS below 40 finds nothing (p 1): p = 2 / K
    c = (np.arange(bm.BETS) + 0.5) / bm.BETS
    assert bg.distance_p([100.0] * 10, 10.0, bm.UPPER) == pytest.approx(2 / np.mean((1 + 2 * c / 3) ** 10))
    # thirty terms at 50 against |SS - 50| >= 10: both tests of "inside the band" reject alike; p the larger
    inside = bg.distance_p([50.0] * 30, 10.0, bm.LOWER)
    assert inside == pytest.approx(bm.betting_p([50.0] * 30, 60.0, bm.LOWER, high=100.0)) and inside < 0.05
    run = {"tables": {"stereoset": {bg.STEREOSET_UNITS: [{"slice": "", "ss": [100.0] * 10, "lms": [100.0] * 10}]}}}
    p, how = bg.stereoset_p("stereoset.ss_distance", 10.0, bm.UPPER, run)
    assert p == pytest.approx(2 / np.mean((1 + 2 * c / 3) ** 10)) and "either way" in how
