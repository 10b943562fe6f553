"""The CHBias paired test (harness.metrics.paired_test): values computed by hand, pair-wise outlier removal,
what is dropped and counted, the one-line reading, and the interval's coverage by simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from harness.metrics.paired_test import mean_interval, outlier_mask, paired_test, read_out

# T1 (stereotyped) and T2 (counterpart) perplexities of four pairs; d = T1 - T2 = [-1, 1, -3, 1].
T1 = [10.0, 12.0, 9.0, 15.0]
T2 = [11.0, 11.0, 12.0, 14.0]


def t_cdf_df3(t: float) -> float:
    """Student's t CDF for 3 degrees of freedom in closed form: 1/2 + (x/(1+x^2) + atan x)/pi, x = t/sqrt 3."""
    x = t / math.sqrt(3)
    return 0.5 + (x / (1 + x * x) + math.atan(x)) / math.pi


def test_t_p_interval_and_effect_size_by_hand() -> None:
    r = paired_test(T1, T2)
    # mean d = -0.5; deviations -0.5, 1.5, -2.5, 1.5 -> sum of squares 11, variance 11/3, sd 1.914854
    sd = math.sqrt(11 / 3)
    se = sd / 2
    assert r.n == 4 and r.df == 3
    assert r.mean_diff == pytest.approx(-0.5)
    assert r.sd_diff == pytest.approx(sd)
    assert r.t == pytest.approx(-0.5 / se)  # -0.522233
    assert r.t == pytest.approx(-0.522233, abs=1e-6)
    assert r.p == pytest.approx(2 * t_cdf_df3(-0.5 / se), rel=1e-9)  # 0.637618
    assert r.cohen_dz == pytest.approx(-0.5 / sd)  # -0.261116 = t / sqrt(n)
    assert r.cohen_dz == pytest.approx(r.t / 2)
    t975_df3 = 3.182446305284263  # the 97.5% point of t with 3 df (statistical tables: 3.182)
    assert r.ci_low == pytest.approx(-0.5 - t975_df3 * se, rel=1e-9)  # -3.546960
    assert r.ci_high == pytest.approx(-0.5 + t975_df3 * se, rel=1e-9)  # 2.546960
    assert r.mean_t1 == pytest.approx(11.5) and r.mean_t2 == pytest.approx(12.0)
    assert r.t1_lower_share == pytest.approx(0.5)
    # Wilcoxon: |d| = 1, 1, 3, 1 -> the three 1s share ranks 1-3 (2 each), 3 gets rank 4;
    # positive ranks 2 + 2 = 4, negative 2 + 4 = 6, the statistic is the smaller: 4.
    assert r.wilcoxon_w == pytest.approx(4.0)
    assert not r.significant


def test_wilcoxon_exact_p_by_hand() -> None:
    # d = 1..5, all positive: W- = 0; of the 2^5 equally likely sign patterns only "all +" and "all -"
    # are as extreme, so the exact two-sided p is 2/32.
    r = paired_test([2, 4, 6, 8, 10], [1, 2, 3, 4, 5])
    assert r.wilcoxon_w == 0.0
    assert r.wilcoxon_p == pytest.approx(2 / 32)


def test_a_significant_negative_t_reads_as_preferring_the_stereotype() -> None:
    rng = np.random.default_rng(1)
    t2 = rng.uniform(20, 40, size=60)
    t1 = t2 - 3 + rng.normal(0, 1, size=60)  # the stereotyped sentences are clearly less perplexing
    r = paired_test(t1, t2)
    assert r.t < 0 and r.p < 0.001 and r.significant
    assert r.reading.startswith("a significant negative t")
    assert "the model finds the stereotyped sentence more likely" in r.reading
    flipped = paired_test(t2, t1)
    assert flipped.t == pytest.approx(-r.t)
    assert "counterpart sentence more likely" in flipped.reading
    assert read_out(0.4, 0.69, 50).startswith("no significant difference")
    assert read_out(None, None, 1) == "no test: 1 usable pair"


def test_identical_and_missing_pairs_are_dropped_and_counted() -> None:
    r = paired_test([10, 12, 9, 15, 7, None, 8.0], [11, 11, 12, 14, 7, 5.0, float("nan")],
                    identical=[False, False, False, False, True, False, False])
    assert (r.pairs, r.identical, r.missing, r.n) == (7, 1, 2, 4)
    assert r.t == pytest.approx(paired_test(T1, T2).t)  # what is left is exactly the four pairs above


def test_outliers_are_removed_by_pair_keeping_alignment() -> None:
    # Twenty pairs; pair 7 has an absurd T1 value. mean(T1) = 14.5, std (ddof 0) = sqrt(384.75) = 19.62,
    # so the cut-off is 14.5 + 3 * 19.62 = 73.3 and 100 is out; T2 has no outlier.
    t1 = [10.0] * 20
    t1[7] = 100.0
    t2 = [10.0 + 0.1 * i for i in range(20)]
    mask = outlier_mask(np.array(t1), np.array(t2), "pair")
    assert mask.tolist() == [i == 7 for i in range(20)]
    r = paired_test(t1, t2)
    assert r.outliers == 1 and r.n == 19
    kept1 = [v for i, v in enumerate(t1) if i != 7]
    kept2 = [v for i, v in enumerate(t2) if i != 7]
    assert r.mean_diff == pytest.approx(float(np.mean(np.subtract(kept1, kept2))))  # still aligned
    assert paired_test(t1, t2, outliers="none").n == 20
    # upstream drops the outlier from T1 only and compares unequal lists with Welch's test
    assert r.upstream["t_welch"] is not None and r.upstream["t_rel"] is not None


def test_difference_mode_uses_the_paired_differences() -> None:
    # T2 follows T1 within 0.1 except pair 3, off by 5: inside both lists' ranges (no per-list outlier),
    # but 5 is far beyond the differences' mean + 3 std (about 0.25 + 3 * 1.09).
    t1 = np.array([10.0 + i for i in range(20)])
    t2 = t1 + np.array([0.1 * (-1) ** i for i in range(20)])
    t2[3] = t1[3] + 5.0
    assert not outlier_mask(t1, t2, "pair").any()
    assert outlier_mask(t1, t2, "difference").tolist() == [i == 3 for i in range(20)]
    assert paired_test(t1, t2, outliers="difference").outliers == 1
    with pytest.raises(ValueError, match="unknown outlier mode"):
        paired_test(t1, t2, outliers="lists")


def test_unequal_lengths_and_constant_differences() -> None:
    with pytest.raises(ValueError, match="equal lengths"):
        paired_test([1.0, 2.0], [1.0])
    r = paired_test([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])  # every difference is 1: no variance, no t
    assert r.t is None and r.p is None and r.mean_diff == pytest.approx(1.0)
    assert r.reading == "no test: every pair has the same difference"


def test_interval_coverage_and_false_positive_rate_by_simulation() -> None:
    """In 1,000 simulated studies of 15 paired differences the 95% interval holds the true mean difference
    about 95% of the time; in 300 studies of skewed (perplexity-like) pairs with no true difference the
    test rejects about 5% of the time."""
    rng = np.random.default_rng(20240601)
    reps, n, true_diff = 1000, 15, 0.7
    covered = 0
    for _ in range(reps):
        lo, hi = mean_interval(true_diff + rng.normal(0, 1.5, size=n))
        covered += lo <= true_diff <= hi
    assert 0.93 <= covered / reps <= 0.97  # binomial sd at 1,000 reps: 0.0069
    rejected = 0
    for _ in range(300):
        base = rng.lognormal(3, 0.4, size=n)
        rejected += paired_test(base + rng.normal(0, 1.5, size=n), base, outliers="none", upstream=False).p < 0.05
    assert 0.015 <= rejected / 300 <= 0.095  # binomial sd at 300: 0.0126 (a one-sided p would give ~0.10)
