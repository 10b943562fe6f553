"""Small, well-known statistics for bias metrics: intervals and significance tests.

Why these and not others:
- Wilson score intervals for rates: unlike the normal ("Wald") interval they stay inside [0, 1] and keep
  their coverage at 0 of 30 or 30 of 30, which is exactly where bias rates of a well-behaved chatbot sit.
- A seeded bootstrap for the relative bias rate (a variance of preference rates): it has no closed-form
  interval. Resampling the questions of each group independently is the same as drawing each group's
  count from Binomial(n, k/n), so the bootstrap needs only the (k, n) counts, which metrics.json stores.
  That lets `harness compare` test two runs from their metrics files alone.
- Two-proportion z test for a difference of two rates, switching to Fisher's exact test when an expected
  cell count is below 5 (where the z approximation is poor).
All functions are deterministic for a given seed: the same run gives the same interval on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats as _st

Z95 = 1.959963984540054
DEFAULT_BOOTSTRAP = 2000


def rate(k: int, n: int) -> float | None:
    """k / n, or None when nothing was asked (a rate of nothing is not zero)."""
    return k / n if n else None


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes out of n; None when n == 0."""
    if n <= 0:
        return None
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact ends: no 0.9999999 from rounding
    high = 1.0 if k == n else min(1.0, centre + half)
    return low, high


def population_variance(values: Sequence[float]) -> float | None:
    """E[(x - E[x])^2] over the values (ddof=0), as the paper's relative-bias formula writes it."""
    if len(values) == 0:
        return None
    arr = np.asarray(values, dtype=float)
    return float(np.mean((arr - arr.mean()) ** 2))


def bootstrap_variance_draws(counts: Sequence[tuple[int, int]], n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """Variance of per-group rates for n_boot bootstrap resamples of each group's questions.

    Groups with nothing asked must be filtered out by the caller.
    """
    ks = np.array([k for k, n in counts], dtype=float)
    ns = np.array([n for k, n in counts], dtype=float)
    p = np.divide(ks, ns, out=np.zeros_like(ks), where=ns > 0)
    draws = rng.binomial(ns.astype(np.int64), p, size=(n_boot, len(counts))) / ns
    return draws.var(axis=1)  # numpy var is ddof=0: the population variance


def bootstrap_variance_interval(counts: Sequence[tuple[int, int]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                                seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the variance of the groups' rates.

    `counts` holds (favoured, asked) per group; groups with nothing asked are dropped, and fewer than two
    remaining groups give None (a variance over one group says nothing about unequal treatment).
    """
    counts = _usable(counts)
    if len(counts) < 2:
        return None
    rng = np.random.default_rng(seed)
    v = bootstrap_variance_draws(counts, n_boot, rng)
    alpha = (1 - level) / 2
    return float(np.quantile(v, alpha)), float(np.quantile(v, 1 - alpha))


def two_proportion_test(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """Two-sided p-value for H0: the two underlying rates are equal.

    Pooled two-proportion z test; Fisher's exact test when any expected cell is below 5. None when
    either side asked nothing. Equal observed rates give p = 1.
    """
    if n1 <= 0 or n2 <= 0:
        return None
    pooled = (k1 + k2) / (n1 + n2)
    expected = [n1 * pooled, n1 * (1 - pooled), n2 * pooled, n2 * (1 - pooled)]
    if min(expected) < 5:
        return float(_st.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]]).pvalue)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = (k1 / n1 - k2 / n2) / se
    return float(2 * _st.norm.sf(abs(z)))


def _usable(counts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(int(k), int(n)) for k, n in counts if n > 0]


def mean_variance_interval(sets: Sequence[Sequence[tuple[int, int]]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                           seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """Bootstrap interval of the mean over several attributes of each attribute's variance of group rates.

    This is the interval of the paper's "Average" row of Table 8 (all attributes resampled together).
    """
    usable = [c for c in (_usable(s) for s in sets) if len(c) >= 2]
    if not usable:
        return None
    rng = np.random.default_rng(seed)
    draws = np.mean([bootstrap_variance_draws(c, n_boot, rng) for c in usable], axis=0)
    alpha = (1 - level) / 2
    return float(np.quantile(draws, alpha)), float(np.quantile(draws, 1 - alpha))


def variance_difference_test(sets_a: Sequence[Sequence[tuple[int, int]]],
                             sets_b: Sequence[Sequence[tuple[int, int]]], *,
                             n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> float | None:
    """Two-sided bootstrap p-value for H0: two runs have the same relative bias rate.

    Each argument is a list of attributes, each a list of (k, n) per group; the statistic is the mean
    over attributes of the variance of group rates (one attribute: just its variance). Each run's groups
    are resampled independently; the p-value is twice the smaller tail of the bootstrap distribution of
    (B - A) around 0 (percentile-interval inversion), floored at 1/n_boot so it is never exactly zero.
    """
    a = [c for c in (_usable(s) for s in sets_a) if len(c) >= 2]
    b = [c for c in (_usable(s) for s in sets_b) if len(c) >= 2]
    if not a or not b:
        return None
    rng = np.random.default_rng(seed)
    draws_a = np.mean([bootstrap_variance_draws(c, n_boot, rng) for c in a], axis=0)
    draws_b = np.mean([bootstrap_variance_draws(c, n_boot, rng) for c in b], axis=0)
    diff = draws_b - draws_a
    if np.all(diff == 0):
        return 1.0
    tail = min(float(np.mean(diff <= 0)), float(np.mean(diff >= 0)))
    return float(min(1.0, max(2 * tail, 1 / n_boot)))


def sign_test(t_ij: int, t_ji: int) -> float | None:
    """Two-sided exact binomial p-value for H0: neither group of a pair is picked more often (p = 0.5)."""
    n = int(t_ij) + int(t_ji)
    if n == 0:
        return None
    return float(_st.binomtest(int(t_ij), n, 0.5).pvalue)


def holm_adjust(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm-Bonferroni adjusted p-values (None entries are kept and not counted as tests).

    Comparing every pair of groups in an attribute is many tests; without an adjustment one of them is
    "significant" by chance far more often than 5% of the time.
    """
    idx = [i for i, p in enumerate(pvalues) if p is not None]
    m = len(idx)
    out: list[float | None] = list(pvalues)
    running = 0.0
    for rank, i in enumerate(sorted(idx, key=lambda j: pvalues[j])):  # type: ignore[arg-type, return-value]
        adj = min(1.0, (m - rank) * float(pvalues[i]))  # type: ignore[arg-type]
        running = max(running, adj)
        out[i] = running
    return out
