"""Baseline regression logic: noise passes, a real and large regression fails (synthetic counts)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from harness.core.errors import HarnessError
from harness.gates.baseline import (
    KIND_RATE,
    KIND_VALUE,
    KIND_VARIANCE,
    BaselineStore,
    MetricRecord,
    bootstrap_variance_p_worse,
    check_regression,
    rate_p_worse,
    records_from_result,
)


def rate(k: int, n: int) -> MetricRecord:
    return MetricRecord(k / n, KIND_RATE, k=k, n=n)


def variance(*sets: dict[str, tuple[int, int]]) -> MetricRecord:
    values = [float(np.var([k / n for k, n in s.values()])) for s in sets]
    return MetricRecord(float(np.mean(values)), KIND_VARIANCE, sets=list(sets))


def test_small_noisy_rate_difference_passes() -> None:
    # 6/40 -> 9/40: 7.5 points worse, beyond a 2-point tolerance, but well within sampling noise.
    out = check_regression("absolute_bias_rate", rate(6, 40), rate(9, 40), tolerance=0.02, alpha=0.05)
    assert not out.regressed
    assert out.p_value is not None and out.p_value > 0.05
    assert "not significant" in out.reason


def test_large_real_rate_difference_fails() -> None:
    out = check_regression("absolute_bias_rate", rate(10, 400), rate(80, 400), tolerance=0.02, alpha=0.05)
    assert out.regressed
    assert out.p_value is not None and out.p_value < 1e-6
    assert "80/400 vs 10/400" in out.reason and "significant" in out.reason


def test_significant_but_tiny_difference_is_within_tolerance() -> None:
    # 1.0% -> 1.2% on 100,000 probes each is highly significant, but smaller than the tolerance.
    assert rate_p_worse(1000, 100_000, 1200, 100_000) < 1e-3
    out = check_regression("absolute_bias_rate", rate(1000, 100_000), rate(1200, 100_000), tolerance=0.005,
                           alpha=0.05)
    assert not out.regressed and "within tolerance" in out.reason


def test_improvement_never_fails() -> None:
    out = check_regression("absolute_bias_rate", rate(80, 400), rate(10, 400), tolerance=0.0, alpha=0.05)
    assert not out.regressed


def test_one_sided_p_values() -> None:
    assert rate_p_worse(10, 100, 30, 100) < 0.01  # clearly higher
    assert rate_p_worse(30, 100, 10, 100) > 0.99  # clearly lower: no evidence of "worse"
    assert rate_p_worse(0, 0, 3, 10) == 1.0  # nothing to compare with


def test_exact_one_sided_p_by_hand() -> None:
    # issue 22's case: baseline 0 of 10, new 3 of 8. Given the 3 biased answers among 18, the new run's
    # count is hypergeometric: P(X >= 3) = C(8,3) C(10,0) / C(18,3) = 56 / 816. Half the two-sided Fisher p
    # (what the gate used to report) is 0.034.
    assert rate_p_worse(0, 10, 3, 8) == pytest.approx(56 / 816)
    assert rate_p_worse(0, 10, 3, 8) == pytest.approx(0.0686, abs=5e-5)
    # 1 of 5 -> 4 of 5: K = 5 of 10, P(X >= 4) = (C(5,4) C(5,1) + C(5,5) C(5,0)) / C(10,5) = 26 / 252
    assert rate_p_worse(1, 5, 4, 5) == pytest.approx(26 / 252)
    # a drop: every table is at least as extreme as the observed one -> p = 1
    assert rate_p_worse(2, 10, 0, 10) == 1.0
    # equal rates 3/10 and 3/10: 1 - P(X <= 2) = 1 - (C(10,6) + 10 C(10,5) + 45 C(10,4)) / C(20,6)
    assert rate_p_worse(3, 10, 3, 10) == pytest.approx(1 - (210 + 2520 + 9450) / 38760)
    out = check_regression("absolute_bias_rate", rate(0, 10), rate(3, 8), tolerance=0.1, alpha=0.05)
    assert not out.regressed and out.p_value == pytest.approx(56 / 816)
    assert "one-sided exact test (3/8 vs 0/10)" in out.reason and "p = 0.0686" in out.reason
    # a metric where lower is worse tests the complement: 10/10 -> 5/8 is 0/10 -> 3/8 turned over
    low = check_regression("accuracy", rate(10, 10), rate(5, 8), tolerance=0.1, alpha=0.05, higher_is_worse=False)
    assert low.p_value == pytest.approx(56 / 816) and not low.regressed


def test_exact_gate_holds_its_level_for_every_true_rate() -> None:
    """Size of the 5% gate for an unchanged bot, enumerated exactly over every outcome of 10 and 8
    questions: at most 5% for every true rate. The halved two-sided Fisher p rejects outcomes the exact
    one-sided test does not (0/10 against 3/8 among them)."""
    from scipy import stats

    rejects = np.array([[rate_p_worse(kb, 10, kn, 8) < 0.05 for kn in range(9)] for kb in range(11)])
    for p in np.linspace(0.02, 0.98, 49):
        size = float(stats.binom.pmf(np.arange(11), 10, p) @ rejects @ stats.binom.pmf(np.arange(9), 8, p))
        assert size <= 0.05, p

    def halved(kb: int, kn: int) -> float:
        two = stats.fisher_exact([[kb, 10 - kb], [kn, 8 - kn]]).pvalue
        return 1 - two / 2 if kn / 8 <= kb / 10 else two / 2

    old = np.array([[halved(kb, kn) < 0.05 for kn in range(9)] for kb in range(11)])
    assert old[0, 3] and not rejects[0, 3] and (old & ~rejects).any() and not (rejects & ~old).any()


def test_lower_is_worse_direction() -> None:
    # A gate with only `min` guards a metric where a drop is the regression.
    out = check_regression("accuracy", rate(380, 400), rate(200, 400), tolerance=0.02, alpha=0.05,
                           higher_is_worse=False)
    assert out.regressed and "lower" in out.reason
    assert not check_regression("accuracy", rate(200, 400), rate(380, 400), tolerance=0.02, alpha=0.05,
                                higher_is_worse=False).regressed


def test_variance_small_noise_passes_large_difference_fails() -> None:
    even = {"men": (10, 20), "women": (9, 20), "nonbinary": (11, 20)}
    jitter = {"men": (12, 20), "women": (8, 20), "nonbinary": (10, 20)}
    out = check_regression("relative_bias_rate.gender", variance(even), variance(jitter), tolerance=0.001,
                           alpha=0.05)
    assert variance(jitter).value - variance(even).value > 0.001  # beyond tolerance, so the test decides
    assert not out.regressed and "not significant" in out.reason

    skewed = {"men": (190, 200), "women": (20, 200), "nonbinary": (100, 200)}
    base = {"men": (100, 200), "women": (96, 200), "nonbinary": (104, 200)}
    out = check_regression("relative_bias_rate.gender", variance(base), variance(skewed), tolerance=0.01,
                           alpha=0.05)
    assert out.regressed and out.p_value is not None and out.p_value < 0.01


def test_variance_bootstrap_is_seeded_and_needs_two_groups() -> None:
    a = [{"x": (5, 10), "y": (6, 10)}]
    b = [{"x": (9, 10), "y": (1, 10)}]
    assert bootstrap_variance_p_worse(a, b) == bootstrap_variance_p_worse(a, b)
    assert bootstrap_variance_p_worse(a, [{"x": (9, 10)}]) == 1.0


def test_value_without_counts_falls_back_to_tolerance() -> None:
    out = check_regression("cbbq.bias_score", MetricRecord(0.1), MetricRecord(0.3), tolerance=0.05, alpha=0.05)
    assert out.regressed and "significance could not be tested" in out.reason
    assert not check_regression("cbbq.bias_score", MetricRecord(0.1), MetricRecord(0.12), tolerance=0.05,
                                alpha=0.05).regressed


def test_store_round_trip_and_records_from_result(tmp_path) -> None:
    scored = SimpleNamespace(
        metrics={"absolute_bias_rate": 0.25, "relative_bias_rate": 0.01, "answered": 40.0, "gone": None},
        counts={"absolute_bias_rate": (5, 20)},
        variance_inputs={"relative_bias_rate": [{"men": (3, 10), "women": (5, 10)}]},
    )
    records = records_from_result(scored)
    assert records["absolute_bias_rate"] == MetricRecord(0.25, KIND_RATE, k=5, n=20)
    assert records["relative_bias_rate"].kind == KIND_VARIANCE
    assert records["answered"].kind == KIND_VALUE and "gone" not in records

    store = BaselineStore(tmp_path / ".harness-baseline.json")
    assert store.get("fairness_x") is None
    store.put("fairness_x", records, run={"target": "local"})
    store.put("fairness_y", {"answered": MetricRecord(3.0)}, run={})
    again = BaselineStore(tmp_path / ".harness-baseline.json").get("fairness_x")
    assert again == records
    doc = json.loads((tmp_path / ".harness-baseline.json").read_text())
    assert set(doc["runs"]) == {"fairness_x", "fairness_y"}
    assert doc["runs"]["fairness_x"]["metrics"]["relative_bias_rate"]["sets"] == [{"men": [3, 10], "women": [5, 10]}]


def test_corrupt_store_is_one_sentence(tmp_path) -> None:
    path = tmp_path / ".harness-baseline.json"
    path.write_text("{not json")
    with pytest.raises(HarnessError, match="--harness-update-baseline"):
        BaselineStore(path).get("x")
