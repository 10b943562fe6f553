"""Fisher's exact test and the p = 1/2 binomial test summed in exact integers (metrics.stats), so a BiasAsker
run never imports scipy.stats (~1 CPU s of a 4,000-reply run, issue 38): hand-computed values, and scipy's own
p-values over a grid of tables."""

from __future__ import annotations

import pytest

from harness.metrics.stats import binomial_half_p, fisher_exact_p, sign_test, two_proportion_test


def test_binomial_half_p_by_hand() -> None:
    assert binomial_half_p(0, 3) == pytest.approx(2 / 8)  # 2 x P(X = 0) = 2 x 1/8
    assert binomial_half_p(1, 4) == pytest.approx(2 * (1 + 4) / 16)  # both tails as far out as 1 of 4
    assert binomial_half_p(3, 4) == binomial_half_p(1, 4)
    assert binomial_half_p(5, 5) == pytest.approx(2 / 32)
    assert binomial_half_p(2, 4) == 1.0 and binomial_half_p(2, 3) == 1.0  # at most 1
    assert sign_test(9, 1) == pytest.approx(2 * (1 + 10) / 1024)


def test_fisher_exact_by_hand() -> None:
    # the tea-tasting table [[3, 1], [1, 3]]: ways(x) = C(4, x) C(4, 4 - x) = 1, 16, 36, 16, 1 of C(8, 4) = 70;
    # the tables no more likely than x = 3 (16 ways) are 1 + 16 + 16 + 1 = 34
    assert fisher_exact_p(3, 4, 1, 4) == pytest.approx(34 / 70)
    assert fisher_exact_p(2, 4, 2, 4) == 1.0  # the most likely table
    assert fisher_exact_p(4, 4, 0, 4) == pytest.approx(2 / 70)
    assert two_proportion_test(4, 4, 0, 4) == pytest.approx(2 / 70)  # expected cells of 2: Fisher's


def test_the_exact_sums_are_scipys_p_values() -> None:
    from scipy import stats

    for n1 in range(1, 6):
        for n2 in range(1, 8):
            for k1 in range(n1 + 1):
                for k2 in range(n2 + 1):
                    want = stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue
                    assert fisher_exact_p(k1, n1, k2, n2) == pytest.approx(want, rel=1e-12, abs=1e-15)
    for n in (*range(1, 30), 61, 200):
        for k in range(n + 1):
            assert binomial_half_p(k, n) == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12, abs=1e-15)
    assert two_proportion_test(60, 100, 40, 100) == pytest.approx(  # the z test's normal tail
        2 * stats.norm.sf(abs(0.2 / (0.25 * 0.02) ** 0.5)), rel=1e-12)
