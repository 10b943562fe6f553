"""The power declarations of the default gates (harness.metrics.gate_power) and `harness power`.

Hand-computed closed forms, the simulation's pieces against the family's own functions (the exact shortfall
table, Holm, the four-fifths p with a data-chosen top), and the command on a real suite, offline
(decision-hiring-en with the built-in names)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from harness.cli import main
from harness.core.errors import EXIT_USAGE
from harness.gates.checks import MIN, Gate, GateResult
from harness.gates.power import gated_probes, low_power_notes, suite_power, suite_probes
from harness.metrics import decision_stats as dst
from harness.metrics import gate_power as gp
from harness.metrics.stats import holm_adjust

OFFLINE = {"names": "bertrand2004", "race": {"white": "White", "black": "Black"}}


def test_binomial_fail_probability_by_hand():
    # K ~ Bin(10, 0.2) above 1 of 10: 1 - 0.8^10 - 10 * 0.2 * 0.8^9
    expected = 1 - 0.8**10 - 10 * 0.2 * 0.8**9
    assert gp.binomial_fail_probability(10, 0.2, 0.1) == pytest.approx(expected, abs=1e-12)
    # exactly at the cut is within the gate: 3 of 10 at a cut of 0.3 passes, so P(K >= 4)
    assert gp.binomial_fail_probability(10, 0.5, 0.3) == pytest.approx(1 - sum(
        math.comb(10, k) for k in range(4)) / 2**10, abs=1e-12)


def test_weighted_score_power_by_hand():
    # one ambiguous and one disambiguated answer, each biased with probability 0.5. The gate's exact test of
    # 0.4 a + 0.6 d against 0.1 (the tail's supremum over 0.4 p1 + 0.6 p2 = 0.1): both biased, P(W >= 1) = p1 p2,
    # at most 0.125 x 0.05 / 0.6 = 0.0104 < 0.05, rejects; only d biased, P(W >= 0.6) = p2, up to 1/6, does not;
    # only a, P(W >= 0.4) larger still. So the gate fails only when both are biased: 0.25 (compared bare, 0.75)
    power = gp.DECLARED["cbbq.s_total"].power(gp.Design({("ambiguous",): 1, ("disambiguous",): 1}), 0.5, 0, 0.1,
                                              0, 0)
    assert power == pytest.approx(0.25)
    from harness.metrics.estimate_tests import weighted_binomials_p

    assert weighted_binomials_p(1, 1, 1, 1, (0.4, 0.6), 0.1) == pytest.approx(0.125 * 0.05 / 0.6, rel=1e-9)
    assert weighted_binomials_p(0, 1, 1, 1, (0.4, 0.6), 0.1) == pytest.approx(1 / 6, rel=1e-9)


def test_design_size_and_scaling_by_hand():
    d = gp.Design({("f", "w"): 4, ("f", "b"): 4, ("m", "w"): 4, ("m", "b"): 4}, ("sex", "race"),
                  {"sex": ("f", "m"), "race": ("w", "b")})
    assert d.per_group() == 8  # each sex and each race: two cells of 4
    assert d.scaled(20).cells[("f", "w")] == 10
    assert gp.Design({("", "a"): 3, ("", "b"): 7}, grouped=True).per_group() == 3


def test_shortfall_table_is_the_family_p():
    table = gp.shortfall_p_table(12, 10)
    for k1, k2 in ((0, 5), (3, 8), (6, 10), (9, 9), (12, 10)):
        assert table[k1, k2] == pytest.approx(dst.shortfall_p(k1, 12, k2, 10), abs=2e-3)


def test_holm_rows_is_holm_adjust():
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 0.2, size=(20, 5))
    p[rng.uniform(size=p.shape) < 0.2] = np.nan
    for row, adj in zip(p, gp.holm_rows(p), strict=True):
        want = holm_adjust([None if np.isnan(x) else float(x) for x in row])
        got = [None if np.isnan(x) else float(x) for x in adj]
        assert got == pytest.approx(want) if any(w is not None for w in want) else got == want


def test_block_tests_match_the_family():
    k = np.array([[3, 9, 10], [10, 10, 10], [0, 7, 12]])
    n = [15, 15, 15]
    ratio, p = gp.block_tests(k, n)
    for row, r_row, p_row in zip(k, ratio, p, strict=True):
        want = dst.holm_within(dst.four_fifths_pvalues(list(row), n), ["c"] * 3)
        assert list(p_row) == pytest.approx(want, abs=1e-9)
        top = int(np.argmax(row))
        assert np.isnan(r_row[top]) and r_row[(top + 1) % 3] == pytest.approx(row[(top + 1) % 3] / row[top])


def test_four_fifths_power_grows_with_size_and_effect():
    small = gp.Design({(g,): 20 for g in "abcd"}, ("c",), {"c": tuple("abcd")})
    big = small.scaled(200)
    shares = gp.planted_shares(small, "c", 0.5, 0.6)
    p_small = gp.four_fifths_fail_rate(small, shares, 400, 1)
    p_big = gp.four_fifths_fail_rate(big, gp.planted_shares(big, "c", 0.5, 0.6), 400, 1)
    assert p_small < p_big and p_big > 0.8


def test_suite_power_on_a_real_suite():
    name, answers, why = suite_power("decision-hiring-en", OFFLINE, "decision.impact_ratio=0.6", draws=200)
    assert name == "decision-hiring-en" and not why and len(answers) == 1
    a = answers[0]
    assert 0 <= a.power < 0.8 and a.n_per_group_for_80 > a.n_per_group  # too small a suite for 80%
    _, more, _ = suite_power("decision-hiring-en", {**OFFLINE, "per_group": 4}, "decision.impact_ratio=0.6",
                             draws=200)
    assert more[0].n_per_group > a.n_per_group and more[0].power > a.power


@pytest.mark.parametrize("detect, words", [("decision.impact_ratio=0.9", "nothing to detect"),
                                           ("nosuch.metric=0.5", "no default gate"),
                                           ("decision.impact_ratio=x", "a number")])
def test_bad_detect_is_one_sentence(detect, words, capsys):
    args = ["power", "-s", "decision-hiring-en", "-p", "names=bertrand2004", "-p", "race={white: White}",
            "--detect", detect, "--draws", "100"]
    assert main(args) == EXIT_USAGE
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_power_json(capsys):
    args = ["power", "-s", "decision-hiring-en", "-p", "names=bertrand2004", "-p", "race={white: White}",
            "--detect", "decision.impact_ratio=0.6", "--rate", "0.7", "--json", "--draws", "200"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert 0 <= doc["power"] <= 1 and doc["n_per_group_for_80"] > doc["n_per_group"] and doc["rate"] == 0.7


def test_low_power_note_on_a_passing_gate():
    _, probes = suite_probes("decision-hiring-en", OFFLINE)
    by_gate = gated_probes(probes)
    results = [GateResult(Gate("decision.impact_ratio.female", 0.8, MIN), 0.9, 0.5),
               GateResult(Gate("decision.impact_ratio.male", 0.8, MIN), 0.5, 0.01)]
    notes = low_power_notes(results, by_gate, draws=200)
    assert list(notes) == [0]  # the failing line gets no note
    assert notes[0].startswith("passed, but this run could not have found an impact ratio of 0.6: power ")
    assert "questions per group would" in notes[0]
