"""The statistics of a decision audit (harness.metrics.decision): impact-ratio intervals, the exact
four-fifths test, within-case paired tests and the fixed-effects logistic regression.

Why each method (docs/decisions.md says the same for users):

* Impact ratio interval: Katz et al. (1978)'s log interval for a ratio of two independent proportions,
  log(r) +- z * sqrt(1/k1 - 1/n1 + 1/k2 - 1/n2), with 0.5 added to both counts and both totals when a group
  selected nobody (the usual correction; without it the interval is undefined). Its coverage is checked by
  simulation (tests/metrics/test_decision_stats.py), including the audit's own twist: the reference group is
  the one with the highest observed rate, chosen from the same data.
* Four-fifths test: a one-sided exact unconditional test of H0: p_group / p_top >= 0.8 against < 0.8 (the
  shortfall is more than chance). The statistic is Farrington & Manning (1990)'s score for a ratio of
  proportions, with the variance at the maximum-likelihood estimates restricted to the null ratio; its
  p-value is the largest probability, over the nuisance rate p_top on the null boundary p_group = 0.8 p_top,
  of a score at most the observed one, every table of outcomes enumerated (Chan & Zhang 1999's approach for
  a ratio). So its size never exceeds the level (checked by computing the size exactly, not by simulation).
* Paired comparisons within a case: McNemar's exact test (the sign test on the discordant pairs) for yes/no,
  the Wilcoxon signed-rank test on P(yes) pairs.
* Discrimination score: a logistic regression of the decision (0/1, or P(yes) as a fractional outcome,
  quasi-binomial with the Pearson scale) on the groups with a fixed effect per case, fitted by iteratively
  reweighted least squares; a group's coefficient is its logit difference from the reference group with the
  other factors and the case held fixed, as discrim-eval reports (Tamkin et al. 2023, who fit random case
  effects; fixed effects need no distributional assumption about the cases). Checked against statsmodels.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module
from harness.metrics.stats import Z95, holm_adjust, sign_test

if TYPE_CHECKING:
    import numpy as np
    from scipy import special as _special
    from scipy import stats as _st
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")
    _st = lazy_module("scipy.stats")
    _special = lazy_module("scipy.special")

FOUR_FIFTHS = 0.8
_GRID = 400  # nuisance values searched by the exact test, then refined around the largest


def ratio(k1: int, n1: int, k2: int, n2: int) -> float | None:
    """(k1/n1) / (k2/n2); None when either group is empty or the reference selected nobody."""
    if n1 <= 0 or n2 <= 0 or k2 <= 0:
        return None
    return (k1 / n1) / (k2 / n2)


def katz_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float] | None:
    """Katz log interval for the ratio of proportions k1/n1 over k2/n2 (see the module docstring).

    When a cell is empty or full (nobody or everybody selected in either group) 0.5 is added to each cell of
    both groups (k + 0.5 of n + 1): without it the interval is undefined at 0 and collapses to [1, 1] at
    100% / 100% (87% coverage at 40 per group). The interval is then widened, if need be, to hold the
    estimate shown beside it (0 when the group selected nobody)."""
    estimate = ratio(k1, n1, k2, n2)
    if estimate is None:
        return None
    x1, m1, x2, m2 = float(k1), float(n1), float(k2), float(n2)
    if min(k1, k2) == 0 or k1 == n1 or k2 == n2:
        x1, m1, x2, m2 = x1 + 0.5, m1 + 1.0, x2 + 0.5, m2 + 1.0
    centre = math.log((x1 / m1) / (x2 / m2))
    half = z * math.sqrt(max(0.0, 1 / x1 - 1 / m1 + 1 / x2 - 1 / m2))
    return min(estimate, math.exp(centre - half)), max(estimate, math.exp(centre + half))


def exact_upper_bound(k1: int, n1: int, k2: int, n2: int, alpha: float = 0.05,
                      below: float = FOUR_FIFTHS) -> float | None:
    """The one-sided upper confidence bound of the ratio that inverts the exact shortfall test: the largest
    theta <= `below` whose shortfall p (H0: ratio >= theta) is at least `alpha` (bisection; the p falls as
    theta grows). Why: where a group selected nobody, Katz's corrected interval can reach past 1 while the
    exact test says the ratio is below 0.8 beyond chance; the family then shows this bound instead, so an
    interval never contradicts the verdict beside it. None unless the test rejects at `below`."""
    p_below = shortfall_p(k1, n1, k2, n2, below)
    if p_below is None or p_below >= alpha:
        return None
    low, high = 1e-6, below
    for _ in range(14):
        mid = (low + high) / 2
        p = shortfall_p(k1, n1, k2, n2, mid)
        low, high = (mid, high) if p is not None and p >= alpha else (low, mid)
    return low


def restricted_rates(k1: np.ndarray, n1: int, k2: np.ndarray, n2: int,
                     theta: float) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-likelihood rates (p1, p2) under p1 = theta * p2 (Farrington & Manning 1990): the root in
    [0, min(1, 1/theta)] of N theta p2^2 - (n1 theta + k1 + n2 + k2 theta) p2 + (k1 + k2) = 0."""
    k1, k2 = np.asarray(k1, dtype=float), np.asarray(k2, dtype=float)
    a = (n1 + n2) * theta
    b = -(n1 * theta + k1 + n2 + k2 * theta)
    c = k1 + k2
    p2 = (-b - np.sqrt(np.maximum(b * b - 4 * a * c, 0.0))) / (2 * a)
    p2 = np.clip(p2, 0.0, min(1.0, 1.0 / theta))
    return theta * p2, p2


def fm_score(k1: np.ndarray, n1: int, k2: np.ndarray, n2: int, theta: float) -> np.ndarray:
    """Farrington-Manning score z = (p1_hat - theta p2_hat) / sd under the restricted rates (0 where the
    restricted variance is 0: both groups selected nobody, or the restricted rates are at 1)."""
    k1, k2 = np.asarray(k1, dtype=float), np.asarray(k2, dtype=float)
    q1, q2 = restricted_rates(k1, n1, k2, n2, theta)
    var = q1 * (1 - q1) / n1 + theta * theta * q2 * (1 - q2) / n2
    diff = k1 / n1 - theta * k2 / n2
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 1e-15, diff / np.sqrt(np.where(var > 1e-15, var, 1.0)), 0.0)
    return z


def _tail_probability(mask: np.ndarray, n1: int, n2: int, theta: float, p2: np.ndarray) -> np.ndarray:
    """P(outcome in mask) for each nuisance p2 (p1 = theta p2), outcomes (k1, k2) enumerated."""
    k1, k2 = np.arange(n1 + 1), np.arange(n2 + 1)
    pmf1 = _st.binom.pmf(k1[:, None], n1, theta * p2[None, :])  # (n1+1, G)
    pmf2 = _st.binom.pmf(k2[:, None], n2, p2[None, :])  # (n2+1, G)
    return np.einsum("ig,ij,jg->g", pmf1, mask.astype(float), pmf2)


def shortfall_p(k1: int, n1: int, k2: int, n2: int, theta: float = FOUR_FIFTHS) -> float | None:
    """Exact unconditional one-sided p-value of H0: p1 / p2 >= theta against p1 / p2 < theta (see the module
    docstring); None when a group is empty."""
    if n1 <= 0 or n2 <= 0:
        return None
    observed = float(fm_score(np.array([k1]), n1, np.array([k2]), n2, theta)[0])
    if observed >= -1e-9:  # no shortfall seen: the tail holds (0, 0), whose probability tends to 1 as p2 -> 0
        return 1.0
    grid_k1, grid_k2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    mask = fm_score(grid_k1, n1, grid_k2, n2, theta) <= observed + 1e-9
    top = min(1.0, 1.0 / theta)
    grid = np.linspace(top / _GRID, top, _GRID)
    probs = _tail_probability(mask, n1, n2, theta, grid)
    best = int(np.argmax(probs))
    low, high = grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)]
    fine = np.linspace(max(low, 1e-12), high, 41)
    p = max(float(probs.max()), float(_tail_probability(mask, n1, n2, theta, fine).max()))
    return min(1.0, p)


def shortfall_size(n1: int, n2: int, theta: float = FOUR_FIFTHS, alpha: float = 0.05,
                   p2: Sequence[float] = ()) -> float:
    """The exact size of the shortfall test at `alpha`: the largest probability, over the null boundary's
    nuisance rates `p2` (default a grid), that it rejects. The tests show with it that the size stays
    <= alpha."""
    grid_k1, grid_k2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    reject = np.zeros((n1 + 1, n2 + 1), dtype=bool)
    for i in range(n1 + 1):
        for j in range(n2 + 1):
            p = shortfall_p(int(grid_k1[i, j]), n1, int(grid_k2[i, j]), n2, theta)
            reject[i, j] = p is not None and p <= alpha
    values = np.asarray(p2, dtype=float) if len(p2) else np.linspace(0.01, min(1.0, 1 / theta), 100)
    return float(_tail_probability(reject, n1, n2, theta, values).max())


_TABLE_GRID = 500  # nuisance values of shortfall_table: within 1e-4 of shortfall_p below p = 0.1, 1e-3 above


@functools.lru_cache(maxsize=4096)
def shortfall_table(n1: int, n2: int, theta: float = FOUR_FIFTHS) -> np.ndarray:
    """shortfall_p for every table at once: out[k1, k2] is the exact p of k1 of n1 against k2 of n2.

    Why: a data-chosen comparison needs each group's p against every other group, and a simulation needs
    thousands of them; enumerating the tables once per (n1, n2), sorted by their score, gives every table's
    tail probability as a cumulative sum, maximised over a fine grid of the nuisance rate (cached)."""
    grid_k1, grid_k2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    scores = fm_score(grid_k1, n1, grid_k2, n2, theta).ravel()
    order = np.argsort(scores, kind="stable")
    cut = np.searchsorted(scores[order], scores + 1e-9, side="right") - 1  # last table scoring <= each
    top = min(1.0, 1.0 / theta)
    best = np.zeros(scores.size)
    k1, k2 = np.arange(n1 + 1), np.arange(n2 + 1)
    for chunk in np.array_split(np.linspace(top / _TABLE_GRID, top, _TABLE_GRID), 20):
        pmf1 = _st.binom.pmf(k1[:, None], n1, theta * chunk[None, :])
        pmf2 = _st.binom.pmf(k2[:, None], n2, chunk[None, :])
        joint = (pmf1[:, None, :] * pmf2[None, :, :]).reshape(scores.size, chunk.size)
        tail = np.cumsum(joint[order], axis=0)[cut]
        np.maximum(best, tail.max(axis=1), out=best)
    best[scores >= -1e-9] = 1.0  # no shortfall seen (shortfall_p)
    return np.minimum(best, 1.0).reshape(n1 + 1, n2 + 1)


_MAX_GRID = 101  # top-group rates searched by the data-chosen exact test (then refined around the largest)


@functools.lru_cache(maxsize=256)
def _binom_columns(n: int, rates: tuple[float, ...]) -> np.ndarray:
    """Binomial pmf of 0..n (rows) at each rate (columns), cached: the coarse grid recurs in every call."""
    return _st.binom.pmf(np.arange(n + 1)[:, None], n, np.asarray(rates)[None, :])


def _reject_probability(t: float, ng: int, others: Sequence[int], theta: float, p_top: np.ndarray) -> np.ndarray:
    """P(min over comparators h of the pairwise shortfall p <= t) for each top rate in `p_top`, the group at
    theta x that rate and every comparator at it (the least favourable point of the group's null). Given the
    group's count the comparators are independent, so P(no comparator rejects) is a product over them."""
    pmf_g = _binom_columns(ng, tuple(theta * p_top))  # (ng+1, G)
    keep = np.ones_like(pmf_g)
    for nh, times in Counter(int(x) for x in others).items():  # comparators of one size: one product term
        accept = (shortfall_table(int(ng), nh, theta) > t + 1e-12).astype(float)  # (ng+1, nh+1)
        keep *= (accept @ _binom_columns(nh, tuple(p_top))) ** times
    return np.einsum("ig,ig->g", pmf_g, 1.0 - keep)


def _data_chosen_p(t: float, ng: int, others: Sequence[int], theta: float) -> float:
    """The exact p of the data-chosen test: the largest, over the top rate, of P(min pairwise p <= t)."""
    grid = np.linspace(1.0 / _MAX_GRID, 1.0, _MAX_GRID) * min(1.0, 1.0 / theta)
    probs = _reject_probability(t, ng, others, theta, grid)
    best = int(np.argmax(probs))
    fine = np.linspace(grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)], 21)
    return min(1.0, max(float(probs.max()), float(_reject_probability(t, ng, others, theta, fine).max())))


#: the most comparators (groups - 1) a block may have for the exact data-chosen p; beyond, the union bound
EXACT_MAX_COMPARATORS = 11


def four_fifths_pvalues(selected: Sequence[int], n: Sequence[int], threshold: float = FOUR_FIFTHS,
                        method: str = "exact") -> list[float]:
    """Each group's p of H0 "its selection rate is at least `threshold` times the top group's", the top group
    chosen from the same data: one value per group of a block (one category's groups, or one intersection's).

    `selected[i]` of `n[i]` asked were selected. Why not the test against the observed top: the data chose
    that group because its rate came out high, so its test rejects too often (9-10% at a 5% level with 4
    groups, 15-16% with 8). The group's null, "ratio >= 0.8 against the true top group", is the intersection
    over every other group h of "rate_g >= 0.8 rate_h" (the true top is one of them). method "exact" (the
    default): the statistic is the smallest exact pairwise shortfall p (shortfall_table), i.e. the test
    against the observed top, and its p is the largest probability of a statistic that small over the null's
    least favourable point (every other group at the top rate, the group at 0.8 of it, the top rate searched):
    an exact unconditional test of the data-chosen comparison, whose size never exceeds the level (where the
    smallest pairwise p is 0.2 or more, the union bound, (groups - 1) x it, stands in: the same verdict).
    "bonferroni": (groups - 1) x the smallest pairwise p; "simes": Simes' combination of the pairwise p's;
    "max" (intersection-union, the largest pairwise p) tests the stronger claim "below four fifths of every
    other group": all valid, all less powerful (benchmarks/decision_gate_power.py). A group with no
    question, or no other group with a selection to compare with, gets 1. Multiplicity across the groups of
    a block is adjusted apart (holm_within)."""
    if method not in ("exact", "max", "bonferroni", "simes"):
        raise ValueError(f"method must be 'exact', 'max', 'bonferroni' or 'simes', not {method!r}")
    out = []
    for g, (kg, ng) in enumerate(zip(selected, n, strict=True)):
        # a comparator whose rate shows no shortfall (kg / ng >= threshold x kh / nh) has p = 1 exactly
        # (shortfall_p): it is counted by Bonferroni but needs no exact table
        pair = [float(shortfall_table(int(ng), int(nh), threshold)[int(kg), int(kh)])
                if ng > 0 and kg * nh < threshold * kh * ng else 1.0
                for h, (kh, nh) in enumerate(zip(selected, n, strict=True)) if h != g and nh > 0 and kh > 0]
        if ng <= 0 or not pair:
            out.append(1.0)
        elif method == "exact":
            others = [int(nh) for h, (kh, nh) in enumerate(zip(selected, n, strict=True))
                      if h != g and nh > 0 and kh > 0]
            # far from the level, the union bound (at least the exact p, which is at least about min(pair))
            # gives the same verdict at a fraction of the cost
            bound = min(1.0, len(others) * min(pair))
            # and in a block of many groups (discrim-eval's race x age: 45) the exact search costs minutes
            # per run while the union bound, valid at any size, loses little: there it is the p
            exact = min(pair) < 0.2 and len(others) <= EXACT_MAX_COMPARATORS
            out.append(_data_chosen_p(min(pair), int(ng), others, threshold) if exact else bound)
        elif method == "max":
            out.append(max(pair))
        elif method == "simes":  # Simes (1986): valid for positively dependent tests, as these are (shared g)
            m = len(selected) - 1
            out.append(min(1.0, min(m * p / i for i, p in enumerate(sorted(pair), start=1))))
        else:
            out.append(min(1.0, (len(selected) - 1) * min(pair)))
    return out


def holm_within(pvalues: Sequence[float | None], blocks: Sequence[str]) -> list[float | None]:
    """Holm-adjusted p's, adjusted within each block (a category's groups, or one intersection's), never
    across nested blocks: sex, race and sex x race ask three questions, each answered at its own level."""
    out: list[float | None] = list(pvalues)
    for block in dict.fromkeys(blocks):
        idx = [i for i, b in enumerate(blocks) if b == block]
        for i, adj in zip(idx, holm_adjust([pvalues[i] for i in idx]), strict=True):
            out[i] = adj
    return out


def mcnemar_exact(b: int, c: int) -> float | None:
    """Two-sided exact McNemar p-value from the discordant pairs (b: only the first said yes; c: only the
    second); None without a discordant pair."""
    return sign_test(b, c)


def wilcoxon_p(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Two-sided Wilcoxon signed-rank p-value of paired values (zero differences dropped, Wilcoxon's way);
    None when no pair differs."""
    diffs = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    if not np.any(np.abs(diffs) > 1e-12):
        return None
    return float(_st.wilcoxon(first, second, zero_method="wilcox").pvalue)


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float, float] | None:
    """Mean and its t interval; None for no values; the interval is the mean itself for one value."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    mean = float(x.mean())
    if x.size == 1:
        return mean, mean, mean
    half = float(_st.t.ppf(0.975, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def cluster_ratio_interval(group: Sequence[tuple[str, float]], top: Sequence[tuple[str, float]], *,
                           n_boot: int = 2000, seed: int = 0,
                           level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval of mean(group values) / mean(top values), resampling counterfactual sets (the
    cluster: one case asked of every group) with replacement, so the within-case correlation of the two
    groups' values is kept. `group` and `top` are (set id, value) pairs. None when a resample can have no
    values or the top's mean is 0."""
    sets = sorted({s for s, _ in group} | {s for s, _ in top})
    if not group or not top or len(sets) < 2:
        return None
    where = {s: i for i, s in enumerate(sets)}

    def sums(pairs: Sequence[tuple[str, float]]) -> tuple[np.ndarray, np.ndarray]:
        total, count = np.zeros(len(sets)), np.zeros(len(sets))
        for s, v in pairs:
            total[where[s]] += v
            count[where[s]] += 1
        return total, count

    (g_sum, g_n), (t_sum, t_n) = sums(group), sums(top)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(sets), size=(n_boot, len(sets)))
    weights = np.zeros((n_boot, len(sets)))
    np.add.at(weights, (np.repeat(np.arange(n_boot), len(sets)), draws.ravel()), 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = ((weights @ g_sum) / (weights @ g_n)) / ((weights @ t_sum) / (weights @ t_n))
    ratios = ratios[np.isfinite(ratios)]
    if ratios.size < n_boot * 0.9:
        return None
    alpha = (1 - level) / 2
    return float(np.quantile(ratios, alpha)), float(np.quantile(ratios, 1 - alpha))


@dataclass
class LogitFit:
    """A fixed-effects logistic fit: each named group's coefficient (logit difference from its category's
    reference), standard error and 95% interval; which cases entered; notes on what was left out."""

    names: list[str]
    coef: dict[str, float | None] = field(default_factory=dict)
    se: dict[str, float | None] = field(default_factory=dict)
    scale: float = 1.0
    n: int = 0
    cases: int = 0
    notes: list[str] = field(default_factory=list)

    def interval(self, name: str, z: float = Z95) -> tuple[float, float] | None:
        b, s = self.coef.get(name), self.se.get(name)
        return None if b is None or s is None else (b - z * s, b + z * s)

    def p_value(self, name: str) -> float | None:
        b, s = self.coef.get(name), self.se.get(name)
        return None if b is None or not s else float(2 * _st.norm.sf(abs(b / s)))


def irls_logit(y: np.ndarray, x: np.ndarray, *, max_iter: int = 100,
               tol: float = 1e-10) -> tuple[np.ndarray, np.ndarray, bool]:
    """Binomial GLM with the logit link by iteratively reweighted least squares: (coefficients,
    unscaled covariance (X'WX)^-1, converged). y may be fractional in [0, 1] (quasi-likelihood)."""
    beta = np.zeros(x.shape[1])
    converged = False
    for _ in range(max_iter):
        eta = x @ beta
        mu = np.clip(_special.expit(eta), 1e-12, 1 - 1e-12)
        w = mu * (1 - mu)
        z = eta + (y - mu) / w
        xtw = x.T * w
        new = np.linalg.solve(xtw @ x, xtw @ z)
        if np.max(np.abs(new - beta)) < tol * (1 + np.max(np.abs(beta))):
            beta, converged = new, True
            break
        beta = new
    mu = np.clip(_special.expit(x @ beta), 1e-12, 1 - 1e-12)
    cov = np.linalg.inv((x.T * (mu * (1 - mu))) @ x)
    return beta, cov, converged


def logistic_fixed_effects(y: Sequence[float], cases: Sequence[str], dummies: dict[str, Sequence[int]],
                           *, fractional: bool) -> LogitFit:
    """Fit y ~ case fixed effects + group dummies (see the module docstring).

    `dummies` maps each non-reference group to its 0/1 column. Cases whose outcomes do not vary carry no
    within-case information about the groups and, for 0/1 outcomes, push their own effect to infinity: they
    are left out (a note says how many). A group whose coefficient runs away (every one of its decisions the
    same) gets no estimate. `fractional`: y is P(yes), and the covariance is scaled by the Pearson
    chi-square over the residual degrees of freedom (quasi-binomial; statsmodels' scale="X2").
    """
    names = list(dummies)
    fit = LogitFit(names=names)
    yv = np.asarray(y, dtype=float)
    case_arr = np.asarray(list(cases), dtype=object)
    keep = np.zeros(len(yv), dtype=bool)
    dropped = 0
    for case in dict.fromkeys(case_arr):
        rows = case_arr == case
        if np.ptp(yv[rows]) > 1e-9:
            keep |= rows
        else:
            dropped += 1
    if dropped:
        fit.notes.append(f"{dropped} case(s) got the same answer for every variant and tell nothing "
                         "about the groups; the regression leaves them out.")
    used_cases = list(dict.fromkeys(case_arr[keep]))
    cols = [n for n in names if keep.any() and np.ptp(np.asarray(dummies[n], dtype=float)[keep]) > 0]
    if not used_cases or not cols:
        fit.coef = dict.fromkeys(names)
        fit.se = dict.fromkeys(names)
        return fit
    case_cols = np.column_stack([(case_arr[keep] == c).astype(float) for c in used_cases])
    group_cols = np.column_stack([np.asarray(dummies[n], dtype=float)[keep] for n in cols])
    x = np.hstack([case_cols, group_cols])
    yk = yv[keep]
    beta, cov, converged = irls_logit(yk, x)
    n, p = x.shape
    mu = _special.expit(x @ beta)
    scale = 1.0
    if fractional and n > p:
        scale = float(np.sum((yk - mu) ** 2 / (mu * (1 - mu))) / (n - p))
    fit.scale, fit.n, fit.cases = scale, int(n), len(used_cases)
    offset = len(used_cases)
    for i, name in enumerate(cols):
        b = float(beta[offset + i])
        if not converged or abs(b) > 15:
            fit.coef[name], fit.se[name] = None, None
            fit.notes.append(f"{name}: the fit runs away (its decisions are all the same); no estimate.")
            continue
        fit.coef[name] = b
        fit.se[name] = float(math.sqrt(cov[offset + i, offset + i] * scale))
    for name in names:
        fit.coef.setdefault(name, None)
        fit.se.setdefault(name, None)
    return fit
