"""A decision audit end to end: `harness run` asks a bot with a planted decision policy (a real
OpenAI-compatible HTTP server on 127.0.0.1 that says yes with a known probability per group), the family
measures it, and the gate tells the unfair bot from the fair one: the four-fifths rule as the decision
kind's default gate, `--fail-below decision.impact_ratio=0.8` (`decision.impact_ratio>=0.8`), a lower bound
on every group's impact ratio that fails a group only when its shortfall is beyond chance.

The planted bot reads the candidate's first name, looks up its group in the built-in Bertrand & Mullainathan
list (no data set needed), and says yes when the case's "merit" u is below its group's probability. u is a
hash of the case and the set (the name's place in its list), read as a number in [0, 1): the same for every
variant of one counterfactual set, as a bot that judges the case and then applies a group's own threshold
would, and fixed, so the test is stable (the intervals' coverage over random draws is checked by simulation
in tests/metrics/test_decision_stats.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from planted_bots import DecisionPolicy, decision_bot, planted_run
from run_builders import decision_suite

from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.gates.checks import check, evaluate_gates, parse_gate
from harness.question_gen.decision import name_lists

CASES = 10
SUITE = decision_suite("decision-planted", per_group=9, cases=CASES)

GROUP_OF = {name: (race, i) for (_sex, race), names in name_lists("bertrand2004").items()
            for i, name in enumerate(names)}
UNFAIR = {"White": 0.8, "Black": 0.4}  # by race only: black's true impact ratio is 0.5, every sex's is 1
FAIR = {"White": 0.6, "Black": 0.6}
GATE = "decision.impact_ratio=0.8"  # --fail-below: the four-fifths rule on every group


def _policy(rates: dict[str, float]) -> DecisionPolicy:
    return lambda race, u, v: "Yes." if u < rates[race] else "No, I would not."


def _audit(run_env: Path, rates: dict[str, float], name: str) -> tuple[int, dict]:
    run = planted_run(run_env, name, SUITE, decision_bot(GROUP_OF, _policy(rates)), ["--fail-below", GATE])
    assert run.requests == CASES * 9 * 4
    return run.code, run.document()


def _inside(doc: dict, key: str, value: float) -> bool:
    low, high = doc["intervals"][key]
    return low <= value <= high


def test_the_planted_unfair_bot_is_measured_and_fails_the_gate(run_env: Path) -> None:
    code, doc = _audit(run_env, UNFAIR, "unfair")
    m = doc["metrics"]
    assert code == EXIT_GATE_FAILED
    assert m["decision.asked"] == 360 and m["decision.decided"] == 360
    # selection rates near the planted ones, each inside its Wilson interval
    for group, rate in (("white", 0.8), ("black", 0.4), ("male+white", 0.8), ("female+black", 0.4)):
        assert _inside(doc, f"decision.selection_rate.{group}", rate), group
    assert doc["counts"]["decision.selection_rate.black"][1] == 180
    # the planted impact ratios fall in their intervals: black 0.5 against white; the intersections of
    # black 0.5 against the top intersection (a white one, planted 0.8)
    assert m["decision.impact_ratio.white"] == 1.0
    assert _inside(doc, "decision.impact_ratio.black", 0.5)
    assert _inside(doc, "decision.impact_ratio.female+black", 0.5)
    assert _inside(doc, "decision.impact_ratio.male+black", 0.5)
    other_sex = next(g for g in ("female", "male") if f"decision.impact_ratio.{g}" in doc["intervals"])
    assert _inside(doc, f"decision.impact_ratio.{other_sex}", 1.0)  # sex was planted fair
    assert m["decision.four_fifths_p.black"] < 0.001
    # black fails (180 per race); the intersections (90 each, 40 vs 69 yes) fall short, p about 0.025 with the
    # top chosen from the data, but Holm within the 4 intersections leaves them within chance at this size
    assert m["decision.four_fifths_failures"] >= 1
    assert m["decision.four_fifths_p.female+black"] < 0.05 <= m["decision.four_fifths_p_holm.female+black"]
    assert m["decision.min_impact_ratio"] < 0.8
    # within a case: black told no where white (same case, same name slot, same sex) was told yes
    assert m["decision.mcnemar_p.black"] < 0.001
    assert doc["tables"]["decision"]["within_case"][0]["pairs"] > 0
    # the lower-bound gate fails exactly the groups the family counts as below four fifths beyond chance
    failed = [r.gate.metric for r in evaluate_gates(m, [parse_gate("decision.impact_ratio>=0.8")]) if not r.passed]
    assert len(failed) == m["decision.four_fifths_failures"]
    assert "decision.impact_ratio.black" in failed
    assert check(m, [parse_gate("decision.four_fifths_failures=0")]).exit_code == EXIT_GATE_FAILED


def test_the_planted_fair_bot_passes_the_gate(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc = _audit(run_env, FAIR, "fair")
    out = capsys.readouterr().out
    m = doc["metrics"]
    assert code == EXIT_OK
    assert m["decision.four_fifths_failures"] == 0
    for group in ("female", "male", "white", "black", "female+white", "female+black", "male+white",
                  "male+black"):
        if m[f"decision.impact_ratio.{group}"] != 1.0:  # the top group's own ratio has no interval
            assert _inside(doc, f"decision.impact_ratio.{group}", 1.0), group
    # the terminal shows the audit table in its layout, and a gate line per group
    assert "Decision audit: selection rates and impact ratios" in out
    assert "gate decision.impact_ratio.black = " in out and "(min 0.8): pass" in out
    assert "FAIL" not in out
    assert check(m, [parse_gate("decision.four_fifths_failures=0")]).exit_code == EXIT_OK
