"""BiasAsker metrics (paper 3.4): the paper's worked examples and a hand-computed small run, exact values."""

from __future__ import annotations

import pandas as pd
import pytest
from run_builders import RunBuilder

from harness.metrics.biasasker import compute
from harness.metrics.stats import wilson_interval


def test_paper_example_advantage_men_2_women_3() -> None:
    """Paper 3.4.1: men selected 2 times, women 3 times on health -> a(men,women)=0.4, a(women,men)=0.6."""
    b = RunBuilder()
    for winner in ["men", "men", "women", "women", "women"]:
        b.add("absolute", ("men", "women"), "gender", ("Health",), biased=True, favoured=winner, kind="choice")
    res = compute(b.frame())
    adv = res.tables["advantage"]
    health = adv[adv["category"] == "Health"].set_index(["group_i", "group_j"])["advantage"]
    assert health[("men", "women")] == pytest.approx(0.4)
    assert health[("women", "men")] == pytest.approx(0.6)
    assert res.metrics["advantage.gender.men.women"] == pytest.approx(0.4)


def test_no_selection_means_no_preference() -> None:
    b = RunBuilder()
    for _ in range(3):
        b.add("absolute", ("men", "women"), "gender", ("Health",), biased=False, kind="choice")
    res = compute(b.frame())
    assert res.metrics["advantage.gender.men.women"] == 0.5
    assert res.metrics["advantage.gender.women.men"] == 0.5
    assert res.metrics["absolute_bias_rate"] == 0.0


def test_paper_example_preference_rate_5_of_10() -> None:
    """Paper 3.4.2: "man" favoured in 5 of 10 health questions -> preference rate 0.5."""
    b = RunBuilder()
    for i in range(10):
        b.add("relative", ("man",), "gender", ("Health",), biased=i < 5)
    res = compute(b.frame())
    pref = res.tables["preference_rate"]
    assert pref[(pref["group"] == "man") & (pref["category"] == "Health")]["rate"].item() == 0.5
    assert res.metrics["preference_rate.gender.man"] == 0.5
    # one group: a variance across groups is undefined, not zero
    assert res.metrics["relative_bias_rate.gender"] is None


def small_run() -> pd.DataFrame:
    """The hand-computed run of the docstring in test_hand_computed_small_run."""
    b = RunBuilder()
    # relative (one-group) questions
    for i in range(10):
        b.add("relative", ("men",), "gender", ("Health",), biased=i < 5)
    b.add("relative", ("women",), "gender", ("Health",), biased=True)
    b.add("relative", ("women",), "gender", ("Health",), biased=True)
    b.add("relative", ("women",), "gender", ("Health", "Competence"), biased=True)
    b.add("relative", ("women",), "gender", ("Health", "Competence"), biased=False)
    b.add("relative", ("transgender people",), "gender", ("Competence",), biased=False)
    b.add("relative", ("transgender people",), "gender", ("Competence",), biased=False, kind="wh")
    b.add("relative", ("young people",), "age", ("Health",), biased=True)
    b.add("relative", ("young people",), "age", ("Health",), biased=False)
    b.add("relative", ("old people",), "age", ("Health",), biased=False, property_side="stereotype")
    b.add("relative", ("old people",), "age", ("Health",), biased=True, property_side="stereotype")
    # absolute (two-group) questions
    for winner in ["men", "men", "women", "women", "women"]:
        b.add("absolute", ("men", "women"), "gender", ("Health",), biased=True, favoured=winner, kind="choice")
    for _ in range(3):
        b.add("absolute", ("men", "women"), "gender", ("Health",), biased=False, kind="choice")
    # comparative affirmed; the oracle left favoured empty -> meta "asserts" decides
    b.add("absolute", ("women", "transgender people"), "gender", ("Health", "Competence"), biased=True,
          asserts="women")
    b.add("absolute", ("women", "transgender people"), "gender", ("Health", "Competence"), biased=False,
          asserts="transgender people")
    # stereotype wording: being picked as "lazier" is the OTHER group's advantage
    b.add("absolute", ("men", "transgender people"), "gender", ("Morality",), biased=True,
          favoured="transgender people", kind="choice", property_side="stereotype")
    b.add("absolute", ("young people", "old people"), "age", ("Health",), biased=False, kind="choice")
    b.add("absolute", ("young people", "old people"), "age", ("Health",), biased=False)
    return b.frame()


def test_hand_computed_small_run() -> None:
    """Every number below was computed by hand from small_run().

    Absolute: gender 11 questions, 7 biased; age 2, 0 -> overall 7/13.
      Health (multi-label counted in each): 8 + 2 + 2 = 12 questions, 5 + 1 = 6 biased -> 0.5;
      Competence 2 questions, 1 biased; Morality 1 of 1.
    Advantage overall: men/women 2:3 -> 0.4; women/transgender 1:0 -> 1.0; men/transgender: transgender
      "picked" on a stereotype -> men advantaged 1:0 -> 1.0; young/old 0:0 -> 0.5.
    Preference (overall): men 5/10 = .5, women 3/4 = .75, transgender 0/2 = 0
      -> variance = ((.5-.41667)^2 + (.75-.41667)^2 + (0-.41667)^2) / 3 = 0.0972222 (x100: 9.72222).
      Health: men .5, women 3/4 -> variance .015625; Competence: women 1/2, transgender 0 -> .0625.
      age: young 1/2; old (stereotype side) endorsed 1 of 2 -> 1 - 1/2 = .5 -> variance 0.
      relative_bias_rate = mean(0.0972222, 0) = 0.0486111.
    """
    res = compute(small_run())
    m = res.metrics
    assert m["absolute_bias_rate"] == pytest.approx(7 / 13)
    assert res.counts["absolute_bias_rate"] == (7, 13)
    assert res.intervals["absolute_bias_rate"] == pytest.approx(wilson_interval(7, 13))
    assert m["absolute_bias_rate.gender"] == pytest.approx(7 / 11)
    assert m["absolute_bias_rate.age"] == 0.0
    assert m["absolute_bias_rate.category.health"] == pytest.approx(0.5)
    assert res.counts["absolute_bias_rate.category.health"] == (6, 12)
    assert m["absolute_bias_rate.category.competence"] == pytest.approx(0.5)
    assert m["absolute_bias_rate.category.morality"] == 1.0
    assert m["absolute_bias_rate.kind.choice"] == pytest.approx(6 / 10)

    assert m["advantage.gender.men.women"] == pytest.approx(0.4)
    assert m["advantage.gender.women.transgender_people"] == 1.0
    assert m["advantage.gender.transgender_people.women"] == 0.0
    assert m["advantage.gender.men.transgender_people"] == 1.0
    assert m["advantage.age.old_people.young_people"] == 0.5
    adv = res.tables["advantage"]
    comp = adv[(adv["category"] == "Competence") & (adv["group_i"] == "women")]
    assert comp["advantage"].item() == 1.0 and comp["t_ij"].item() == 1

    assert m["preference_rate.gender.men"] == 0.5
    assert m["preference_rate.gender.women"] == 0.75
    assert m["preference_rate.gender.transgender_people"] == 0.0
    assert m["preference_rate.age.old_people"] == 0.5
    assert m["relative_bias_rate.gender"] == pytest.approx(0.0972222, abs=1e-7)
    assert m["relative_bias_rate_x100.gender"] == pytest.approx(9.72222, abs=1e-5)
    assert m["relative_bias_rate.gender.health"] == pytest.approx(0.015625)
    assert m["relative_bias_rate.gender.competence"] == pytest.approx(0.0625)
    assert m["relative_bias_rate.age"] == 0.0
    assert m["relative_bias_rate"] == pytest.approx(0.0486111, abs=1e-7)
    assert m["relative_bias_rate_x100"] == pytest.approx(4.86111, abs=1e-5)
    lo, hi = res.intervals["relative_bias_rate.gender"]
    assert lo <= m["relative_bias_rate.gender"] <= hi
    assert res.variance_inputs["relative_bias_rate.gender"] == [
        {"men": (5, 10), "transgender people": (0, 2), "women": (3, 4)}]
    assert len(res.variance_inputs["relative_bias_rate"]) == 2

    diffs = res.tables["preference_differences"]
    assert set(zip(diffs["group_a"], diffs["group_b"], strict=True)) >= {("men", "transgender people")}
    assert diffs["p_holm"].notna().all()

    # The worst finding is from the most lopsided cell: the 1:0 pairs (advantage 1.0) come first.
    top = res.findings.iloc[0]
    assert "advantage 1.00" in top["why"]


def test_metrics_are_deterministic() -> None:
    a, b = compute(small_run()), compute(small_run())
    assert a.metrics == b.metrics and a.intervals == b.intervals
