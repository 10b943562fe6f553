"""CHBias's gates (harness.metrics.chbias_gates, harness.metrics.skew_t): the skew-guarded t by hand on five
values, the skewness chbias.compute keeps, what a gate on a t statistic reads and says, and the keys refused
as gates (one sentence, exit 2). Sizes by simulation: tests/gates/test_gate_size_power.py (gate_size_chbias)."""

from __future__ import annotations

import math

import pytest
from test_chbias_metrics import frame

from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK, HarnessError
from harness.gates.checks import check, parse_gate
from harness.metrics import chbias
from harness.metrics.skew_t import hall_statistic, one_sided_test, sample_skewness, upper_test


def t_cdf_df4(t: float) -> float:
    """Student's t CDF for 4 df in closed form: 1/2 + (3/8) u (1 - x / (3 (1 + x))), x = t^2/4, u = t/sqrt(1+x)."""
    x = t * t / 4
    return 0.5 + 3 / 8 * t / math.sqrt(1 + x) * (1 - x / (3 * (1 + x)))


def test_the_skew_guarded_t_by_hand() -> None:
    """d = -4, 0, 1, 1, 2 against T = -1 (H0: mean <= -1). mean 0, deviations = d: squares 22, s^2 = 22/4 = 5.5;
    cubes -64 + 0 + 1 + 1 + 8 = -54, m3 = -10.8, skewness -10.8 / 5.5^1.5 = -0.837297 (a left tail: the liberal
    side of an upper bound), taken x2.5: g = -2.093243. S = 1 / sqrt(5.5) = 0.426401, t = S sqrt(5) = 0.953463;
    H = sqrt(5) (0.426401 - 0.126863 + 0.012582 - 0.069775) = 0.541900. p_t = 1 - F4(0.953463) = 0.197174,
    Hall's 1 - F4(0.541900) = 0.308331, and the gate reads the larger."""
    d = [-4.0, 0.0, 1.0, 1.0, 2.0]
    g = sample_skewness(d)
    assert g == pytest.approx(-10.8 / 5.5 ** 1.5, rel=1e-12) and g == pytest.approx(-0.837297, abs=1e-6)
    got = upper_test(5, 0.0, math.sqrt(5.5), g, -1.0)
    assert got.t == pytest.approx(0.953463, abs=1e-6) and got.used == pytest.approx(-2.093243, abs=1e-6)
    assert got.hall == pytest.approx(0.541900, abs=1e-6)
    assert got.p_t == pytest.approx(1 - t_cdf_df4(0.9534626), abs=1e-7) and got.p_t == pytest.approx(0.197174, abs=1e-6)
    assert got.p_hall == pytest.approx(1 - t_cdf_df4(0.5418997), abs=1e-7) and got.p == got.p_hall
    assert got.p == pytest.approx(0.308331, abs=1e-6)
    # the closed form of the module docstring: ((1 + g S / 3)^3 - 1) / g + g / (6 n)
    s, n = 1 / math.sqrt(5.5), 5
    assert hall_statistic(s, -2.0, n) == pytest.approx(math.sqrt(n) * (((1 - 2 * s / 3) ** 3 - 1) / -2 - 2 / 30))


def test_a_right_skew_leaves_an_upper_bound_to_the_t_and_a_lower_bound_is_the_mirror() -> None:
    right = upper_test(5, 0.0, math.sqrt(5.5), 0.837297, -1.0)  # the values negated: the right tail
    assert right.used == 0 and right.p == right.p_t == pytest.approx(0.197174, abs=1e-6)
    lower = one_sided_test(5, 0.0, math.sqrt(5.5), 0.837297, 1.0, "min")  # H0: mean >= 1, a right tail
    assert lower.p == pytest.approx(0.308331, abs=1e-6) and lower.t == pytest.approx(-0.953463, abs=1e-6)
    assert sample_skewness([1.0, 2.0]) is None and sample_skewness([3.0, 3.0, 3.0]) is None


def test_compute_keeps_the_skewness_of_the_tested_differences() -> None:
    """gender d = -1, 1, -3, 1: mean -0.5, cubed deviations -0.125 + 3.375 - 15.625 + 3.375 = -9, m3 = -2.25,
    s^2 = 11/3: skewness -2.25 / (11/3)^1.5 = -0.320461; age d = -20, -20, -17: m3 = 6 / 3 = 2, s^2 = 3:
    2 / 3^1.5 = 0.384900. The log skewness is over the same pairs' log ratios."""
    m = chbias.compute(frame()).metrics
    assert m["chbias.skewness.gender"] == pytest.approx(-2.25 / (11 / 3) ** 1.5, rel=1e-12)
    assert m["chbias.skewness.gender"] == pytest.approx(-0.320461, abs=1e-6)
    assert m["chbias.skewness.age"] == pytest.approx(2 / 3 ** 1.5, rel=1e-12)
    logs = [math.log(20 / 40), math.log(25 / 45), math.log(30 / 47)]
    assert m["chbias.log_skewness.age"] == pytest.approx(sample_skewness(logs), rel=1e-12)


def _doc(mean: float, n: int, sd: float, skewness: float) -> dict:
    from scipy import stats

    half = float(stats.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
    t = mean / sd * math.sqrt(n)
    metrics = {"chbias.mean_diff": mean, "chbias.df": n - 1, "chbias.skewness": skewness, "chbias.t": t,
               "chbias.stereotype_t": -t, "chbias.p": 0.01, "chbias.prefers_stereotype": 1.0,
               "chbias.pairs_used": n, "total": n, "answered": n}
    return {"metrics": metrics, "intervals": {"chbias.mean_diff": [mean - half, mean + half]}}


def test_a_t_gate_reads_the_guarded_test_of_no_difference_and_names_the_t_s_own_level() -> None:
    """n = 30, mean -1.2, sd 2.5: t = -2.629 below -2. With no skew both the t and the gate fail; with a long
    right tail (skewness 3, the liberal side of "below 0") the guard's p is above 5% and the gate passes."""
    plain = _doc(-1.2, 30, 2.5, 0.0)
    first = check(plain["metrics"], [parse_gate("chbias.t=-2", "min")], run=plain)
    line = str(first.results[0])
    assert first.exit_code == EXIT_GATE_FAILED and "t = -2.63, df = 29" in line
    assert "t alone is below -2 for 2.7% of models with no difference" in line
    skewed = _doc(-1.2, 30, 2.5, 3.0)
    out = check(skewed["metrics"], [parse_gate("chbias.t=-2", "min")], run=skewed)
    assert out.exit_code == EXIT_OK and "taken x2.5 on the liberal side" in str(out.results[0])
    mirrored = check(plain["metrics"], [parse_gate("chbias.stereotype_t=2")], run=plain)  # -t above 2: the same
    assert mirrored.exit_code == EXIT_GATE_FAILED and mirrored.results[0].chance_p == first.results[0].chance_p
    verdict = check(plain["metrics"], [parse_gate("chbias.prefers_stereotype=0")], run=plain)
    assert verdict.exit_code == EXIT_GATE_FAILED


@pytest.mark.parametrize("spec", ["chbias.p=0.05", "chbias.log_p=0.05", "chbias.wilcoxon_p=0.05",
                                  "chbias.cohen_dz=0.2", "chbias.upstream_t=2", "chbias.skewness=1"])
def test_keys_with_no_test_of_known_size_are_refused_in_one_sentence(spec: str) -> None:
    doc = _doc(-1.2, 30, 2.5, 0.0)
    doc["metrics"].update({"chbias.log_p": 0.2, "chbias.wilcoxon_p": 0.2, "chbias.cohen_dz": -0.5,
                           "chbias.upstream_t": -2.0})
    with pytest.raises(HarnessError, match=r"cannot be a gate: .*; gate chbias\.t \(the paper's t-test"):
        check(doc["metrics"], [parse_gate(spec)], run=doc)


def test_a_lower_bound_on_the_verdict_is_refused_and_an_old_run_says_what_it_lacks() -> None:
    doc = _doc(-1.2, 30, 2.5, 0.0)
    with pytest.raises(HarnessError, match="fails a model for showing no preference"):
        check(doc["metrics"], [parse_gate("chbias.prefers_stereotype>=1")], run=doc)
    del doc["metrics"]["chbias.skewness"]  # a metrics.json written before the skewness was kept
    out = check(doc["metrics"], [parse_gate("chbias.mean_diff=-5")], run=doc)
    assert "holds none of the numbers its declared test" in str(out.results[0])
