"""Gates with a direction: upper bounds (`--fail-above`, `METRIC=V`, `METRIC<=V`) and lower bounds
(`--fail-below`, `METRIC>=V`), and the shortfall gate a family declares for a metric where lower is worse
(harness.core.kinds.ShortfallGate: the decision family's impact ratios and their exact shortfall p).

The metrics below are made by hand; the Holm adjustments are computed by hand in the comments.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli import main
from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK, EXIT_USAGE, ConfigError, HarnessError
from harness.gates.checks import MAX, MIN, Gate, check, evaluate_gates, parse_gate, parse_gates
from harness.gates.defaults import default_gates
from harness.gates.fairness import evaluate_gate, load_spec


def test_both_directions_parse_and_the_old_form_is_unchanged() -> None:
    assert parse_gate("absolute_bias_rate=0.1") == Gate("absolute_bias_rate", 0.1) == Gate("absolute_bias_rate",
                                                                                           0.1, MAX)
    assert parse_gate("absolute_bias_rate <= 10%") == Gate("absolute_bias_rate", pytest.approx(0.1), MAX)
    assert parse_gate(" decision.impact_ratio >= 0.8 ") == Gate("decision.impact_ratio", 0.8, MIN)
    assert parse_gate("decision.impact_ratio>=80%") == Gate("decision.impact_ratio", pytest.approx(0.8), MIN)
    assert str(Gate("a", 0.1)) == "a <= 0.1" and str(Gate("b", 0.8, MIN)) == "b >= 0.8"
    # the options: METRIC=VALUE takes the option's direction; an operator that agrees is accepted too
    assert parse_gates(["a=0.1", "b<=2"], ["c=0.8", "d>=0.5"]) == [
        Gate("a", 0.1, MAX), Gate("b", 2.0, MAX), Gate("c", 0.8, MIN), Gate("d", 0.5, MIN)]
    assert parse_gates(None, None) == []


@pytest.mark.parametrize(("above", "below", "says"), [
    (["decision.impact_ratio>=0.8"], [], "pass it as --fail-below decision.impact_ratio=0.8"),
    ([], ["absolute_bias_rate<=0.1"], "pass it as --fail-above absolute_bias_rate=0.1"),
    ([], ["decision.impact_ratio"], "--fail-below takes METRIC=VALUE"),
    ([], ["=0.8"], "--fail-below takes METRIC=VALUE"),
    ([], ["decision.impact_ratio=high"], "not a number"),
    ([], ["decision.impact_ratio=inf"], "finite"),
    (["a<0.1"], [], "--fail-above takes METRIC=VALUE"),
])
def test_a_bad_gate_is_one_sentence_and_exit_2(above: list[str], below: list[str], says: str) -> None:
    with pytest.raises(HarnessError) as exc:
        parse_gates(above, below)
    assert exc.value.exit_code == EXIT_USAGE and "\n" not in str(exc.value) and says in str(exc.value)


def test_the_decision_kind_declares_the_four_fifths_rule_as_its_default_gate() -> None:
    assert default_gates(["decision"]) == [Gate("decision.impact_ratio", 0.8, MIN),
                                           Gate("decision.refusal_disparity", 0.1, MAX)]


#: a decision audit's metrics, by hand: white and male are their categories' top groups (ratio 1, no test)
AUDIT = {"total": 100.0, "answered": 100.0, "error_rate": 0.0, "decision.asked": 100.0,
         "decision.decided": 100.0, "decision.selection_rate": 0.5, "decision.min_impact_ratio": 0.5,
         "decision.impact_ratio.white": 1.0, "decision.impact_ratio.black": 0.5,
         "decision.impact_ratio.asian": 0.7, "decision.impact_ratio.male": 1.0,
         "decision.impact_ratio.female": 0.9, "decision.four_fifths_p.black": 0.001,
         "decision.four_fifths_p.asian": 0.03, "decision.four_fifths_p.female": 0.9}


def test_a_gate_on_the_stem_covers_every_group_with_holm_adjusted_shortfall_p() -> None:
    results = evaluate_gates(AUDIT, [parse_gate("decision.impact_ratio>=0.8")])
    by_key = {r.gate.metric: r for r in results}
    assert list(by_key) == [f"decision.impact_ratio.{g}" for g in ("white", "black", "asian", "male", "female")]
    # Holm over the 3 tested groups: sorted 0.001, 0.03, 0.9 -> 3 x 0.001 = 0.003, 2 x 0.03 = 0.06, 0.9
    assert by_key["decision.impact_ratio.black"].chance_p == pytest.approx(0.003)
    assert by_key["decision.impact_ratio.asian"].chance_p == pytest.approx(0.06)
    assert by_key["decision.impact_ratio.female"].chance_p == pytest.approx(0.9)
    assert [r.gate.metric for r in results if not r.passed] == ["decision.impact_ratio.black"]
    asian = by_key["decision.impact_ratio.asian"]  # below 0.8, but not beyond chance once adjusted
    assert asian.passed and "within chance" in asian.detail and "Holm-adjusted over the 3 groups" in asian.detail
    outcome = check(AUDIT, [parse_gate("decision.impact_ratio>=0.8")])
    assert outcome.exit_code == EXIT_GATE_FAILED
    assert outcome.message == ("Gate failed: decision.impact_ratio.black: 0.5 is below 0.8 beyond chance: "
                               "shortfall p = 0.003, Holm-adjusted over the 3 groups tested.")
    assert str(by_key["decision.impact_ratio.white"]) == "gate decision.impact_ratio.white = 1 (min 0.8): pass"


def test_a_gate_on_one_group_reads_its_own_p_unadjusted() -> None:
    (asian,) = evaluate_gates(AUDIT, [parse_gate("decision.impact_ratio.asian>=0.8")])
    assert asian.chance_p == pytest.approx(0.03) and not asian.passed  # one group: 0.03 < 0.05
    (female,) = evaluate_gates(AUDIT, [parse_gate("decision.impact_ratio.female>=0.8")])
    assert female.passed and female.detail == ""  # 0.9 is not below 0.8


def test_another_threshold_without_the_runs_counts_compares_the_bare_value_and_says_so() -> None:
    """At 0.9 the gate reads the four-fifths test at 0.9 from the run's counts (test_impact_ratio_any_threshold);
    metrics alone hold none, so the bare ratio is compared and its line says why."""
    results = evaluate_gates(AUDIT, [parse_gate("decision.impact_ratio>=0.9")])
    failed = {r.gate.metric: r for r in results if not r.passed}
    assert set(failed) == {"decision.impact_ratio.black", "decision.impact_ratio.asian"}  # 0.9 itself holds
    assert all(r.chance_p is None for r in results)
    assert "compared as a bare threshold: this run holds none of the numbers its declared test (the decision " \
        "audit's) reads" in failed["decision.impact_ratio.asian"].detail


def test_a_lower_bound_on_an_undeclared_metric_compares_the_value() -> None:
    audit = {**AUDIT, "custom.lowest_ratio": 0.5}  # no family declares it: a bare comparison that says so
    held = check(audit, [parse_gate("custom.lowest_ratio>=0.5")])  # equal to the threshold holds
    assert held.exit_code == EXIT_OK
    failed = check(audit, [parse_gate("custom.lowest_ratio>=0.6")])
    assert failed.exit_code == EXIT_GATE_FAILED
    assert failed.message == ("Gate failed: custom.lowest_ratio: 0.5 is below 0.6; compared as a bare "
                              "threshold: no test declared for this metric, so noise alone can fail it.")
    # the direction is the gate's, not the metric's: an upper bound on a ratio is one, and is refused in one
    # sentence (parity is 1; a ratio is gated from below, metrics/decision_gates.py)
    with pytest.raises(HarnessError, match="upper bound on an impact ratio"):
        check(AUDIT, [parse_gate("decision.impact_ratio.black=0.4")], run={"metrics": AUDIT})


def test_a_stem_with_no_group_says_why_and_an_unknown_stem_is_unknown() -> None:
    nobody = {k: v for k, v in AUDIT.items() if ".impact_ratio." not in k and "four_fifths" not in k}
    nobody["decision.selection_rate"] = 0.0
    with pytest.raises(HarnessError, match="no group was ever told yes, so no impact ratio exists"):
        evaluate_gates(nobody, [parse_gate("decision.impact_ratio>=0.8")])
    with pytest.raises(HarnessError, match="Unknown metric 'decision.impact_rat'"):
        evaluate_gates(AUDIT, [parse_gate("decision.impact_rat>=0.8")])
    with pytest.raises(HarnessError, match="Unknown metric 'decision.impact_ratio'"):  # a stem is a lower bound's
        evaluate_gates(AUDIT, [parse_gate("decision.impact_ratio=1.2")])


def test_a_fairness_file_gates_a_lower_bound_in_both_spellings(tmp_path: Path) -> None:
    path = tmp_path / "fairness_decisions.yaml"
    path.write_text("target: local\nsuite: decision-hiring-en\ngates:\n  - decision.impact_ratio>=0.8\n"
                    "  - decision.selection_rate=0.9\n  - decision.selection_rate>=0.2\n", encoding="utf-8")
    gates = {g.key: g for g in load_spec(path).gates}
    assert (gates["decision.impact_ratio"].min, gates["decision.impact_ratio"].max) == (0.8, None)
    assert (gates["decision.selection_rate"].min, gates["decision.selection_rate"].max) == (0.2, 0.9)
    outcome = evaluate_gate(gates["decision.impact_ratio"], AUDIT)
    assert not outcome.passed and outcome.value == 0.5  # the lowest group's
    assert outcome.reason == ("decision.impact_ratio.black: 0.5 is below 0.8 beyond chance: shortfall p = 0.003, "
                              "Holm-adjusted over the 3 groups tested")
    assert evaluate_gate(gates["decision.selection_rate"], AUDIT).passed
    mapping = tmp_path / "fairness_map.yaml"
    mapping.write_text("target: local\nsuite: s\ngates:\n  decision.impact_ratio.asian: {min: 0.8}\n", "utf-8")
    (asian,) = load_spec(mapping).gates
    assert evaluate_gate(asian, AUDIT).reason.startswith("decision.impact_ratio.asian: 0.7 is below 0.8 beyond")
    bad = tmp_path / "fairness_bad.yaml"
    bad.write_text("target: local\nsuite: s\ngates:\n  - decision.impact_ratio>0.8\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="fairness_bad.yaml: Gate 'decision.impact_ratio>0.8' is malformed"):
        load_spec(bad)


def test_the_commands_refuse_a_gate_against_their_direction_before_any_work(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "no-such-run", "--fail-above", "decision.impact_ratio>=0.8"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "pass it as --fail-below decision.impact_ratio=0.8" in err and "no-such-run" not in err
    assert main(["run", "--suite", "builtin-en", "--target", "local", "--dry-run",
                 "--fail-below", "refusal_rate<=0.1"]) == EXIT_USAGE
    assert "pass it as --fail-above refusal_rate=0.1" in capsys.readouterr().err
