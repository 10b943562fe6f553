"""One-sided tests of an estimate against a gate's threshold: "is the true value beyond T, beyond chance?".

Why: a gate that compares the point value fails a bot sitting exactly at its limit about half the time (the
estimate is above T as often as below), so its size at the null boundary is 42-50%, not the 5% a test's is.
A threshold gate (harness.gates.checks, the families' EstimateGate declarations) fails only when one of these
p values, of H0 "true value <= T" (an upper bound, --fail-above) or ">= T" (a lower bound, --fail-below), is
below the gates' 5% level. Each test is exact or checked by simulation at its null boundary
(harness.metrics.gate_size, benchmarks/gate_size_power.py):

* binomial_p: a share k of n, the exact one-sided binomial test (the tail sum of Binomial(n, T)). By hand,
  15 of 100 against 0.1: P(K >= 15) = 1 - sum_{i<15} C(100, i) 0.1^i 0.9^(100-i) = 0.0726.
* weighted_binomials_p: w1 k1/n1 + w2 k2/n2 (CBBQ's S_total), two independent shares. The null is a line of
  (p1, p2); the tail P(W >= w) grows with each share, so its supremum over the null lies on the boundary
  w1 p1 + w2 p2 = T: the p is the largest exact tail over a grid of boundary points (every outcome of the
  two counts enumerated), valid at any size (the normal tail beyond EXACT_OUTCOMES outcomes).
* difference_p: (t - o) / n, two cells of one multinomial of n (BBQ's s_AMB = (1 - accuracy) x s_DIS of the
  ambiguous answers, the third cell the "unknown" answers): the exact tail of t - o, its supremum over the
  null boundary pt - po = T and the third cell's share (the family's Bonett-Price interval inverted at the
  one-sided level, tried first, exceeded 5% at the boundary: 5.5% at n = 20, 6.2% at T = 0.3, n = 80; it is
  kept beyond DIFFERENCE_EXACT_N questions, where its size is within 0.001 of 5%).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from scipy import stats as _st
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")
    _st = lazy_module("scipy.stats")

#: Gate.bound values (harness.gates.checks.MAX / MIN), repeated here so the metrics layer needs no gate import
UPPER, LOWER = "max", "min"
#: above this many outcomes of two counts the weighted test takes the normal tail of the estimate
EXACT_OUTCOMES = 250_000
#: boundary points the weighted test's supremum is taken over
BOUNDARY_POINTS = 81


def binomial_p(k: int, n: int, share: float, bound: str = UPPER) -> float | None:
    """The exact one-sided binomial p of k of n against the share `share`: P(K >= k) for an upper bound (H0
    "true share <= share"), P(K <= k) for a lower bound; None when nothing was counted (n = 0)."""
    if n <= 0:
        return None
    if (share < 0.0 and bound != LOWER) or (share > 1.0 and bound == LOWER):
        return 0.0  # no true share is within a limit beyond [0, 1]: every count is beyond it
    share = min(1.0, max(0.0, share))
    if bound == LOWER:
        return float(min(1.0, _st.binom.cdf(k, n, share)))
    return float(min(1.0, _st.binom.sf(k - 1, n, share)))


def binomial_critical(n: int, share: float, bound: str = UPPER, alpha: float = 0.05) -> int | None:
    """The count at which binomial_p first falls below alpha: the smallest k with P(K >= k) < alpha (upper
    bound), the largest with P(K <= k) < alpha (lower bound); None when no count of n gets there."""
    if n <= 0:
        return None
    ks = np.arange(n + 1)
    if bound == LOWER:
        ok = ks[_st.binom.cdf(ks, n, share) < alpha]
        return int(ok.max()) if ok.size else None
    ok = ks[_st.binom.sf(ks - 1, n, share) < alpha]
    return int(ok.min()) if ok.size else None


def _boundary(weights: tuple[float, float], threshold: float) -> np.ndarray:
    """Points (p1, p2) on w1 p1 + w2 p2 = threshold inside the unit square (empty when the line misses it)."""
    w1, w2 = weights
    low, high = max(0.0, (threshold - w2) / w1), min(1.0, threshold / w1)
    if low > high + 1e-12:
        return np.empty((0, 2))
    p1 = np.linspace(low, high, BOUNDARY_POINTS)
    return np.column_stack([p1, np.clip((threshold - w1 * p1) / w2, 0.0, 1.0)])


@lru_cache(maxsize=32)
def _weighted_table(n1: int, n2: int, w1: float, w2: float, threshold: float, bound: str) -> np.ndarray:
    """The weighted test's p of every outcome (k1, k2): the largest tail over the null boundary."""
    k1, k2 = np.arange(n1 + 1), np.arange(n2 + 1)
    value = (w1 * k1[:, None] / n1 + w2 * k2[None, :] / n2).ravel()
    order = np.argsort(value if bound != LOWER else -value, kind="stable")  # the extreme end last
    ranked = value[order]
    # outcomes tied in value share one tail: the tail of the first of its tie group (1e-12 apart count as tied)
    step = np.abs(np.diff(ranked)) > 1e-12
    first = np.concatenate([[0], np.flatnonzero(step) + 1])
    group = np.cumsum(np.concatenate([[True], step])) - 1
    best = np.zeros(value.size)
    for p1, p2 in _boundary((w1, w2), threshold):
        pmf = np.outer(_st.binom.pmf(k1, n1, p1), _st.binom.pmf(k2, n2, p2)).ravel()[order]
        tail = np.cumsum(pmf[::-1])[::-1]  # P(W at least as extreme as this outcome), from its tie group on
        best = np.maximum(best, tail[first][group])
    p = np.ones(value.size) if not len(_boundary((w1, w2), threshold)) else np.minimum(1.0, best)
    out = np.empty(value.size)
    out[order] = p
    return out.reshape(n1 + 1, n2 + 1)


def _weighted_normal(
    k1: np.ndarray, n1: int, k2: np.ndarray, n2: int, weights: tuple[float, float], threshold: float, bound: str
) -> np.ndarray:
    """The weighted test's p beyond EXACT_OUTCOMES outcomes: the estimate's normal tail, its variance at the null
    boundary point nearest the observed first share (as a score test takes it)."""
    w1, w2 = weights
    points = _boundary(weights, threshold)
    if not len(points):
        return np.ones(np.broadcast(k1, k2).shape)
    est = w1 * k1 / n1 + w2 * k2 / n2
    nearest = np.abs(points[:, 0][None, :] - np.ravel(k1 / n1)[:, None]).argmin(axis=1).reshape(np.shape(k1))
    p1, p2 = points[nearest, 0], points[nearest, 1]
    se = np.sqrt(np.maximum(1e-15, w1 * w1 * p1 * (1 - p1) / n1 + w2 * w2 * p2 * (1 - p2) / n2))
    z = (est - threshold) / se
    return np.asarray(_st.norm.sf(z) if bound != LOWER else _st.norm.cdf(z), dtype=float)


def weighted_table(n1: int, n2: int, weights: tuple[float, float], threshold: float, bound: str = UPPER) -> np.ndarray:
    """weighted_binomials_p of every outcome (k1, k2) at once, an (n1 + 1) x (n2 + 1) array (the power of the
    gate sums the outcomes' probabilities where it is below alpha)."""
    w1, w2 = float(weights[0]), float(weights[1])
    if (n1 + 1) * (n2 + 1) <= EXACT_OUTCOMES:
        return _weighted_table(n1, n2, w1, w2, float(threshold), bound)
    k1, k2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    return _weighted_normal(k1, n1, k2, n2, (w1, w2), float(threshold), bound)


def weighted_binomials_p(
    k1: int, n1: int, k2: int, n2: int, weights: tuple[float, float], threshold: float, bound: str = UPPER
) -> float | None:
    """The one-sided p of H0 "w1 p1 + w2 p2 <= threshold" (upper bound; ">=" for a lower one) from k1 of n1
    and k2 of n2: the supremum over the null boundary of the exact tail (module docstring); None when a count
    is empty."""
    if n1 <= 0 or n2 <= 0:
        return None
    w1, w2 = float(weights[0]), float(weights[1])
    if (n1 + 1) * (n2 + 1) <= EXACT_OUTCOMES:
        return float(_weighted_table(n1, n2, w1, w2, float(threshold), bound)[k1, k2])
    return float(_weighted_normal(np.array(k1), n1, np.array(k2), n2, (w1, w2), float(threshold), bound))


#: up to this many questions the s_AMB-like test is exact; beyond, the Bonett-Price z of the estimate
DIFFERENCE_EXACT_N = 400
#: the nuisance ("unknown" answers') shares the exact difference test's supremum is taken over
NUISANCE_POINTS = 41


@lru_cache(maxsize=32)
def difference_table(n: int, threshold: float, bound: str = UPPER) -> np.ndarray:
    """The exact difference test's p of every outcome, indexed by t - o + n: the largest over the share u of
    the third cell (the nuisance, on a grid) of P(T - O at least as extreme) with pt - po = threshold and
    pt + po = 1 - u (the tail grows with pt - po, so the composite null's supremum lies on that boundary)."""
    t, o = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = t + o <= n
    d = (t - o)[ok] + n
    best = np.zeros(2 * n + 1)
    for u in np.linspace(0.0, max(0.0, 1 - abs(threshold)), NUISANCE_POINTS):
        pt, po = (1 - u + threshold) / 2, (1 - u - threshold) / 2
        shares = np.clip([pt, po, u], 0.0, 1.0)
        logpmf = _st.multinomial.logpmf(np.stack([t[ok], o[ok], n - t[ok] - o[ok]], axis=-1), n, shares / shares.sum())
        pmf = np.bincount(d, weights=np.exp(np.nan_to_num(logpmf, nan=-np.inf)), minlength=2 * n + 1)
        tail = np.cumsum(pmf[::-1])[::-1] if bound != LOWER else np.cumsum(pmf)
        best = np.maximum(best, tail)
    return np.minimum(1.0, best)


def difference_ps(t: np.ndarray, o: np.ndarray, n: int, threshold: float, bound: str = UPPER) -> np.ndarray:
    """difference_p of many outcomes (t, o) of one n at once (the size and power tables enumerate them)."""
    t, o = np.asarray(t), np.asarray(o)
    if n <= DIFFERENCE_EXACT_N:
        return np.asarray(difference_table(n, float(threshold), bound)[t - o + n], dtype=float)
    pt, po = (t + 1) / (n + 2), (o + 1) / (n + 2)
    d = pt - po
    se = np.sqrt(np.maximum(1e-15, pt + po - d * d) / (n + 2))
    z = (d - threshold) / se
    return np.asarray(_st.norm.sf(z) if bound != LOWER else _st.norm.cdf(z), dtype=float)


def difference_p(t: int, o: int, n: int, threshold: float, bound: str = UPPER) -> float | None:
    """The one-sided p of H0 "pt - po <= threshold" (upper bound; ">=" for a lower one) for two cells t, o of
    one multinomial of n, from the estimate (t - o) / n itself: exact up to DIFFERENCE_EXACT_N (the tail's
    supremum over the third cell's share, difference_table), beyond it the Bonett-Price z of the interval the
    family reports (bbq.s_amb_interval) at the one-sided level. None when n = 0."""
    if n <= 0:
        return None
    return float(difference_ps(np.array(t), np.array(o), n, threshold, bound))
