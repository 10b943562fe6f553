"""Estimate gates (issue 35): a threshold on an estimate fails only when the estimate is beyond the threshold
beyond chance. The tests' p values against sums written out by hand, and the gate's lines and verdicts."""

from __future__ import annotations

from math import comb

import pytest

from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.gates.checks import check, parse_gate, parse_gates
from harness.gates.fairness import Gate as FileGate
from harness.gates.fairness import evaluate_gate
from harness.metrics import estimate_tests as et
from harness.metrics.gate_power import binomial_test_power

BASE = {"total": 100.0, "answered": 100.0, "error_rate": 0.0}


def _tail(k: int, n: int, p: float) -> float:
    """P(K >= k), K ~ Binomial(n, p), summed term by term."""
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_binomial_p_by_hand() -> None:
    # 15 of 100 against 0.1: 1 - sum_{i<15} C(100, i) 0.1^i 0.9^(100 - i) = 0.0726
    assert et.binomial_p(15, 100, 0.1) == pytest.approx(_tail(15, 100, 0.1), rel=1e-9)
    assert et.binomial_p(15, 100, 0.1) == pytest.approx(0.07257, abs=5e-5)
    # a lower bound: 5 of 100 against 0.1, P(K <= 5) = 0.0576
    assert et.binomial_p(5, 100, 0.1, et.LOWER) == pytest.approx(1 - _tail(6, 100, 0.1), rel=1e-9)
    assert et.binomial_p(5, 100, 0.1, et.LOWER) == pytest.approx(0.05758, abs=5e-5)
    # BBQ's s_DIS: 8 target choices of 10 against T = 0.1, the share (0.1 + 1) / 2 = 0.55:
    # C(10, 8) .55^8 .45^2 + C(10, 9) .55^9 .45 + .55^10 = 0.0763 + 0.0207 + 0.0025 = 0.0996
    assert et.binomial_p(8, 10, 0.55) == pytest.approx(0.0996, abs=1e-4)
    assert et.binomial_p(0, 0, 0.1) is None
    # a limit outside [0, 1]: no true share is within it, so every count is beyond it (p = 0); at 0 any event is
    assert et.binomial_p(0, 40, -0.01) == 0.0 and et.binomial_p(40, 40, 1.01, et.LOWER) == 0.0
    assert et.binomial_p(1, 40, 0.0) == 0.0 and et.binomial_p(0, 40, 0.0) == 1.0
    # the critical count: the smallest k of 100 whose p against 0.1 is below 5% is 16 (P(K >= 16) = 0.0399)
    assert et.binomial_critical(100, 0.1) == 16 and _tail(16, 100, 0.1) < 0.05 < _tail(15, 100, 0.1)
    assert binomial_test_power(100, 0.1, 0.1) == pytest.approx(_tail(16, 100, 0.1), rel=1e-9)


def test_weighted_and_difference_p_by_hand() -> None:
    # one question each, weights 1/2, T = 1/2, both answered biased: P(W >= 1) = p1 p2 on p1 + p2 = 1, largest at
    # p1 = p2 = 1/2: 1/4
    assert et.weighted_binomials_p(1, 1, 1, 1, (0.5, 0.5), 0.5) == pytest.approx(0.25, abs=1e-12)
    assert et.weighted_binomials_p(0, 1, 0, 1, (0.5, 0.5), 0.5) == pytest.approx(1.0)
    # two questions, T = 0, one target choice and one "unknown": P(t - o >= 1) = pt^2 + 2 pt u with
    # pt = po = (1 - u) / 2, i.e. (1 - u)(1 + 3u) / 4, largest at u = 1/3: 1/3 (the grid's nearest point)
    assert et.difference_p(1, 0, 2, 0.0) == pytest.approx(1 / 3, abs=1e-3)
    # both target: pt^2, largest at u = 0: 1/4
    assert et.difference_p(2, 0, 2, 0.0) == pytest.approx(0.25, abs=1e-12)


def test_a_share_above_its_limit_but_within_chance_passes_and_beyond_chance_fails() -> None:
    run = {"counts": {"absolute_bias_rate": [15, 100]}}
    near = check({**BASE, "absolute_bias_rate": 0.15}, [parse_gate("absolute_bias_rate=0.1")], run=run)
    assert near.exit_code == EXIT_OK
    assert (
        "0.15 is above 0.1, but not beyond chance (one-sided p = 0.073: exact binomial, 15 of 100): not "
        "measurably above; ask more questions"
    ) in near.message
    far = check(
        {**BASE, "absolute_bias_rate": 0.25},
        [parse_gate("absolute_bias_rate=0.1")],
        run={"counts": {"absolute_bias_rate": [25, 100]}},
    )
    assert far.exit_code == EXIT_GATE_FAILED
    assert "0.25 is above 0.1 beyond chance (one-sided p = " in far.message
    assert far.results[0].chance_p == pytest.approx(_tail(25, 100, 0.1), rel=1e-9)
    at = check({**BASE, "absolute_bias_rate": 0.1}, [parse_gate("absolute_bias_rate=0.1")], run=run)
    assert at.exit_code == EXIT_OK and at.results[0].detail == ""  # equal to the limit: within it


def test_a_lower_bound_on_a_counted_share_takes_the_binomial_test() -> None:
    # an undeclared share with its counts (value = k / n): 80 of 100 against a floor of 0.9,
    # P(K <= 80 | 100, 0.9) = 0.0057: below beyond chance
    metrics = {**BASE, "bbq.accuracy_ambig": 0.8}
    run = {"counts": {"bbq.accuracy_ambig": [80, 100]}}
    out = check(metrics, parse_gates(below=["bbq.accuracy_ambig=0.9"]), run=run)
    assert out.exit_code == EXIT_GATE_FAILED
    assert out.results[0].chance_p == pytest.approx(1 - _tail(81, 100, 0.9), rel=1e-9)
    assert "0.8 is below 0.9 beyond chance" in out.message
    # counts that are not the value's (a score, not a share) give no test: compared bare, and said
    odd = check({**BASE, "some.score": 0.5}, [parse_gate("some.score=0.4")], run={"counts": {"some.score": [3, 10]}})
    assert odd.exit_code == EXIT_GATE_FAILED and "compared as a bare threshold: no test declared" in odd.message


def test_the_families_declared_tests_read_the_run_document() -> None:
    # BBQ's s_DIS through its counts table: 13 target choices of 20 against (0.1 + 1) / 2
    table = {
        "bbq": {
            "bbq_score_counts": [
                {"category": "all", "s_dis.k": 13, "s_dis.m": 20, "s_amb.t": 30, "s_amb.o": 10, "s_amb.n": 100}
            ]
        }
    }
    out = check(
        {**BASE, "bbq.s_dis": 0.3, "bbq.s_amb": 0.2},
        parse_gates(["bbq.s_dis=0.1", "bbq.s_amb=0.1"]),
        run={"tables": table},
    )
    s_dis, s_amb = out.results
    assert s_dis.passed and s_dis.chance_p == pytest.approx(_tail(13, 20, 0.55), rel=1e-9)
    assert "13 target choices of 20 against 0.55" in s_dis.detail
    assert s_amb.chance_p == pytest.approx(et.difference_p(30, 10, 100, 0.1))
    assert "30 target and 10 other choices of 100" in s_amb.detail
    # CBBQ's S_total from the counts of S_amb and S_disamb
    run = {"counts": {"cbbq.s_amb": [30, 100], "cbbq.s_disamb": [30, 100]}}
    total = check({**BASE, "cbbq.s_total": 0.3}, [parse_gate("cbbq.s_total=0.1")], run=run)
    assert total.exit_code == EXIT_GATE_FAILED and "beyond chance" in total.message
    assert total.results[0].chance_p == pytest.approx(et.weighted_binomials_p(30, 100, 30, 100, (0.4, 0.6), 0.1))
    # a category's S_total: no counts kept, so the line says the comparison is bare
    cat = check({**BASE, "cbbq.s_total.age": 0.3}, [parse_gate("cbbq.s_total.age=0.1")], run=run)
    assert cat.exit_code == EXIT_GATE_FAILED and "compared as a bare threshold" in cat.message


def test_a_fairness_file_gate_reads_the_same_test() -> None:
    metrics = {**BASE, "absolute_bias_rate": 0.15}
    gate = FileGate("absolute_bias_rate", "absolute_bias_rate", max=0.1)
    assert evaluate_gate(gate, metrics, {"counts": {"absolute_bias_rate": [15, 100]}}).passed
    failed = evaluate_gate(gate, {**metrics, "absolute_bias_rate": 0.3}, {"counts": {"absolute_bias_rate": [30, 100]}})
    assert not failed.passed and "above 0.1 beyond chance" in failed.reason
