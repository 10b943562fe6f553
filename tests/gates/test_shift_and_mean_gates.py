"""Threshold gates on counterfactual's rate shifts and CHBias's mean perplexity difference test the estimate
against the threshold (issue 35): an exact difference test of the up / down counts metrics.json keeps, and the
paired t against T from the interval it keeps. Read from the golden runs' scored documents (real runs scored
by the real families, tests/data/golden/expected.json) and from hand-made counts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.gates.checks import check, parse_gate
from harness.metrics.chbias import mean_gate_p
from harness.metrics.counterfactual import shift_gate_p

EXPECTED = Path(__file__).resolve().parent.parent / "data" / "golden" / "expected.json"


def _golden(name: str) -> dict:
    doc = json.loads(EXPECTED.read_text("utf-8"))[name]
    doc["metrics"].update({"total": 100, "answered": 100})
    return doc


def test_shift_p_by_hand() -> None:
    """All n originals moved up, none down, against T = 0: the tail P(up - down >= n) = pu^n is largest on
    the null boundary pu = pd with nothing unchanged, pu = 1/2: 0.5, 0.25, 0.125, 0.03125 for n = 1, 2, 3, 5."""
    for n, want in ((1, 0.5), (2, 0.25), (3, 0.125), (5, 0.03125)):
        doc = {"counts": {"counterfactual.biased_shift.up": [n, n], "counterfactual.biased_shift.down": [0, n]}}
        got = shift_gate_p("counterfactual.biased_shift", 0.0, "max", doc)
        assert got is not None and got[0] == pytest.approx(want, abs=1e-12)


def test_the_golden_counterfactual_run_is_gated_by_its_counts() -> None:
    run = _golden("counterfactual")
    assert run["counts"]["counterfactual.biased_shift.up"] == [1, 11]  # 1 up, 2 down: shift -1/11
    out = check(run["metrics"], [parse_gate("counterfactual.biased_shift=-0.5")], run=run)
    assert out.exit_code == EXIT_OK and "not beyond chance" in str(out.results[0])
    assert "1 up and 2 down of 11 originals" in str(out.results[0])
    bare = check(run["metrics"], [parse_gate("counterfactual.biased_shift=-0.5")])  # no counts: says so
    assert bare.exit_code == EXIT_GATE_FAILED and "bare threshold" in str(bare.results[0])


def test_mean_diff_p_by_hand() -> None:
    """Golden CHBias: mean 2.8917 with 95% interval [-2.7314, 8.5147] on 23 df: se = half width / t_0.975,23
    (2.0687) = 2.7182, so against T = 1, t = 1.8917 / 2.7182 = 0.6959 and P(T_23 >= 0.6959) = 0.2467; against
    T = 0 the p is the paper's two-sided p halved (0.2985 / 2). The differences are right-skewed (0.862), which
    leaves an upper bound's t as it is but makes a lower bound's liberal: below 10, t = -2.615 (p 0.0077), and
    the guard (skew_t, on the mirrored side) takes g = -2.5 x 0.862 = -2.154 with S = (10 - 2.8917) / 13.3165 =
    0.53380: H = sqrt(24) (0.53380 - 0.20459 + 0.02614 - 0.01496) = 1.6675, P(T_23 >= 1.6675) = 0.0545, so the
    gate passes (before the guard it failed on the t alone)."""
    run = _golden("chbias")
    got = mean_gate_p("chbias.mean_diff", 1.0, "max", run)
    assert got is not None and got[0] == pytest.approx(0.2467257, abs=1e-6) and "t = 0.696" in got[1]
    assert mean_gate_p("chbias.mean_diff", 0.0, "max", run)[0] == pytest.approx(run["metrics"]["chbias.p"] / 2)
    below = mean_gate_p("chbias.mean_diff", 10.0, "min", run)
    assert below is not None and below[0] == pytest.approx(0.0544837, abs=1e-6) and "t's p 0.0077" in below[1]
    out = check(run["metrics"], [parse_gate("chbias.mean_diff=1")], run=run)
    assert out.exit_code == EXIT_OK and "paired t against 1" in str(out.results[0])
    assert check(run["metrics"], [parse_gate("chbias.mean_diff=10", "min")], run=run).exit_code == EXIT_OK
    assert check(run["metrics"], [parse_gate("chbias.mean_diff=20", "min")], run=run).exit_code == EXIT_GATE_FAILED
