"""Political bias metrics (harness.metrics.political): values computed by hand, a constructed set with one
shifted option, and the coverage of the intervals measured by simulation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from harness.metrics import FAMILIES
from harness.metrics.political import compute
from harness.metrics.political_stats import (
    AttributeTexts,
    abs_interval,
    bootstrap_intervals,
    distinct_assignments,
    option_resolution,
    overall_resolution,
    point_estimates,
    swd2,
)


def frame_of(rows: list[tuple[str, str, str, list[float]]], attribute: str = "gender") -> pd.DataFrame:
    """(cell, option, keyword, scores) -> the text frame compute() accepts."""
    out = []
    for cell, option, keyword, scores in rows:
        for i, s in enumerate(scores):
            out.append({"probe_id": f"{cell}-{option}-{keyword}-{i}", "attribute": attribute, "option": option,
                        "keyword": keyword, "cell": cell, "score": s, "prompt": "p", "reply": "r"})
    return pd.DataFrame(out)


def test_family_is_registered_for_continuations():
    assert FAMILIES["political"].kinds == frozenset({"political"})
    assert FAMILIES["political"].spec.compute is not None  # its declaration (harness.political.method)


def test_swd_of_two_small_base_rate_sets_by_hand():
    # quantile functions: x = 0.1 on (0, 1/2], 0.5 on (1/2, 1]; y = 0.3 / 0.6 / 0.9 on thirds.
    # W2^2 = 1/3 (0.1-0.3)^2 + 1/6 (0.1-0.6)^2 + 1/6 (0.5-0.6)^2 + 1/3 (0.5-0.9)^2 = 0.11
    assert swd2([0.1, 0.5], [0.3, 0.9, 0.6]) == pytest.approx(math.sqrt(0.11), abs=1e-12)
    # 1-D: every projection is +-1, so more projections or another seed change nothing
    assert swd2([0.1, 0.5], [0.3, 0.9, 0.6], n_projections=50, seed=7) == pytest.approx(math.sqrt(0.11))
    assert swd2([0.2, 0.2], [0.2]) == 0.0
    assert swd2([0.0], [1.0]) == pytest.approx(1.0)


def test_indirect_and_direct_bias_by_hand():
    df = frame_of([
        ("indirect", "male", "Jake", [0.2, 0.4]), ("indirect", "female", "Amy", [0.6, 0.8]),
        ("liberal", "male", "Jake", [0.1, 0.3]), ("liberal", "female", "Amy", [0.1, 0.3]),
        ("conservative", "male", "Jake", [0.5, 0.5]), ("conservative", "female", "Amy", [0.9, 0.9]),
    ])
    res = compute(df, n_boot=200, n_perm=20)
    m = res.metrics
    # male vs pooled {.2,.4,.6,.8}: quarters (0, .2-.4, .4-.6, .4-.8) -> W2^2 = (0 + .04 + .04 + .16)/4 = .06
    assert m["political.gender.indirect.male"] == pytest.approx(math.sqrt(0.06))
    assert m["political.gender.indirect.female"] == pytest.approx(math.sqrt(0.06))
    assert m["political.gender.indirect"] == pytest.approx(math.sqrt(0.06))
    # liberal texts are alike (B^L = 0); conservative: .5 vs pooled {.5,.5,.9,.9} -> W2^2 = .16/2 = .08
    assert m["political.gender.direct.male"] == pytest.approx(math.sqrt(0.08))
    assert m["political.gender.direct.female"] == pytest.approx(math.sqrt(0.08))
    assert m["political.gender.base_rate.indirect.male"] == pytest.approx(0.3)
    assert m["political.gender.base_rate.conservative.female"] == pytest.approx(0.9)
    assert m["political.gender.texts"] == 12 and "political.gender.unscored" not in m
    # Table 2 layout: a row per measure, a column per option and Overall
    table = res.tables["gender"]
    assert list(table.columns) == ["measure", "male", "female", "Overall"]
    assert table.iloc[0]["male"].startswith("0.245 [")
    # one keyword on each of two options: only 2 assignments exist, said in a note; the overall value is
    # the same under both (the options are only renamed), so it gets no p-value at all
    assert distinct_assignments([1, 1]) == 2
    assert any("only 2 different sets of keywords" in n for n in res.notes)
    assert m["political.gender.indirect.p_value"] is None and m["political.gender.direct.p_value"] is None
    assert any("overall values have no permutation p-value" in n for n in res.notes)


def test_intervals_and_p_values_do_not_depend_on_the_transcript_order():
    df = _topic_like(np.random.default_rng(5), n_kw=2, per_kw=4)
    first = compute(df, n_boot=100, n_perm=30)
    again = compute(df.sample(frac=1.0, random_state=1).reset_index(drop=True), n_boot=100, n_perm=30)
    assert again.intervals == first.intervals
    assert {k: v for k, v in again.metrics.items() if k.endswith("p_value")} == \
        {k: v for k, v in first.metrics.items() if k.endswith("p_value")}


def test_unscored_texts_are_counted_and_left_out():
    df = frame_of([("indirect", "male", "Jake", [0.2, float("nan"), 0.4]),
                   ("indirect", "female", "Amy", [0.6, 0.8])])
    res = compute(df, n_boot=50, n_perm=5)
    assert res.metrics["political.gender.unscored"] == 1
    assert res.metrics["political.gender.indirect.male"] == pytest.approx(math.sqrt(0.06))
    assert "political.gender.direct" not in res.metrics
    assert any("could not score 1 of 5" in n for n in res.notes)
    assert any("direct bias is not measured" in n for n in res.notes)


def test_resolution_of_the_permutation_test_by_hand():
    # 4 keywords, 2 per option: 6 assignments; an option gets one of C(4, 2) = 6 sets; the overall mean takes
    # at most 3 values (swapping the two options' sets leaves it as it is)
    assert (distinct_assignments([2, 2]), option_resolution([2, 2]), overall_resolution([2, 2])) == (6, 6, 3)
    # 7 options of one keyword: 5040 assignments, 7 sets per option, one overall value
    assert (distinct_assignments([1] * 7), option_resolution([1] * 7), overall_resolution([1] * 7)) == (5040, 7, 1)
    # unequal sizes: 3!/(1! 2!) = 3 assignments, all different for the overall too
    assert (option_resolution([1, 2]), overall_resolution([1, 2])) == (3, 3)


def test_abs_interval():
    assert abs_interval(-0.1, 0.3) == (0.0, 0.3)
    assert abs_interval(-0.4, -0.1) == (0.1, 0.4)
    assert abs_interval(0.2, 0.5) == (0.2, 0.5)


def _topic_like(rng: np.random.Generator, n_kw: int = 5, per_kw: int = 6, shift: float = 0.2) -> pd.DataFrame:
    """Seven options of n_kw keywords; only 'shifted' moves, by +shift, in indirect and conservative texts."""
    rows = []
    for i in range(7):
        option = "shifted" if i == 0 else f"option{i}"
        for k in range(n_kw):
            for cell in ("indirect", "liberal", "conservative"):
                s = rng.beta(2, 5, per_kw)
                if option == "shifted" and cell != "liberal":
                    s = np.clip(s + shift, 0, 1)
                rows.append((cell, option, f"{option}-kw{k}", list(s)))
    return frame_of(rows, attribute="topic")


def test_shifted_option_has_the_larger_bias_and_the_other_interval_covers_zero():
    res = compute(_topic_like(np.random.default_rng(11)), n_boot=200, n_perm=99)
    m, ci = res.metrics, res.intervals
    for measure in ("indirect", "direct"):
        shifted, other = f"political.topic.{measure}.shifted", f"political.topic.{measure}.option3"
        assert m[shifted] > 2 * m[other]
        assert ci[shifted][0] > 0.05  # clearly away from 0
        assert ci[other][0] == 0.0  # cannot be told from "no bias"
        assert ci[shifted][0] > ci[other][0]
        assert m[f"{shifted}.p_value"] <= 0.02  # 99 permutations: the smallest p is 0.01
        assert m[f"{other}.p_value"] > 0.05
    # the paper's plain estimate is biased upwards in small samples; the debiased one is below it
    assert m["political.topic.indirect.option3.debiased"] < m["political.topic.indirect.option3"]
    assert res.findings is not None and len(res.findings) > 0


def _true_indirect(shift: float, n_options: int) -> tuple[float, float]:
    """True W2 of the shifted and of an unshifted option vs the pool, by quantile integration."""
    u = (np.arange(100_000) + 0.5) / 100_000
    grid = np.linspace(-0.5, 1.5, 40_001)
    base = stats.beta(2, 5)
    mix = (base.cdf(grid - shift) + (n_options - 1) * base.cdf(grid)) / n_options
    pooled = np.interp(u, mix, grid)
    q = base.ppf(u)
    return float(np.sqrt(np.mean((q + shift - pooled) ** 2))), float(np.sqrt(np.mean((q - pooled) ** 2)))


@pytest.mark.parametrize("shift", [0.0, 0.3])
def test_interval_coverage_by_simulation(shift):
    """60 simulated data sets (4 options x 30 texts per prompt group; option a moves by `shift` in indirect
    and conservative texts, never in liberal ones): the 95% intervals hold the true indirect and direct
    bias of the shifted and of an unshifted option, and the overall values, about 95% of the time or more
    (benchmarks/political_coverage.py measures 0.92-1.0 on 200 sets)."""
    true_shifted, true_other = _true_indirect(shift, 4)
    truths = {("indirect", "a"): true_shifted, ("indirect", "b"): true_other,
              ("direct", "a"): true_shifted, ("direct", "b"): true_other,  # B^L = 0 for every option
              ("overall_indirect", ""): (true_shifted + 3 * true_other) / 4,
              ("overall_direct", ""): (true_shifted + 3 * true_other) / 4}
    rng = np.random.default_rng(2024)
    hits = dict.fromkeys(truths, 0)
    reps = 60
    for _ in range(reps):
        data = AttributeTexts(options=["a", "b", "c", "d"])
        for cell in ("indirect", "liberal", "conservative"):
            moved = 0.0 if cell == "liberal" else shift
            data.scores[cell] = {o: {o: rng.beta(2, 5, 30) + (moved if o == "a" else 0.0)} for o in data.options}
        est = point_estimates(data)
        ivs = bootstrap_intervals(data, est, n_boot=150, seed=int(rng.integers(1 << 30)))
        for (measure, option), truth in truths.items():
            lo, hi = getattr(ivs, measure)[option] if option else getattr(ivs, measure)
            hits[(measure, option)] += lo - 1e-12 <= truth <= hi + 1e-12
    coverage = {k: v / reps for k, v in hits.items()}
    # 60 sets: a true 0.93 falls below 0.83 with probability < 0.01; a plain percentile interval scores 0
    assert min(coverage.values()) >= 0.83, coverage
