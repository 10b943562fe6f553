"""Small, well-known statistics for bias metrics: intervals and significance tests.

Why these and not others (the simulations behind each choice: benchmarks/coverage.py, docs/reports.md):
- Wilson score intervals for rates over many questions (absolute bias rates): unlike the normal ("Wald")
  interval they stay inside [0, 1] and keep their coverage at 0 of 30 or 30 of 30.
- Clopper-Pearson ("exact") intervals for the rates of one group or one pair (preference rates,
  advantages): with 2-20 questions per group Wilson's coverage falls to 82.0% for some true rates (the
  exact minimum, at 2 questions and a true rate near 0.906; tests/metrics/test_wilson_coverage.py), while
  Clopper-Pearson never falls below 95%; the price is a somewhat wider interval.
- The relative bias rate (a variance of preference rates) is biased upwards by noise: with n questions a
  group's observed rate varies by p(1-p)/n even when the bot treats every group alike. We report
  * the paper's statistic V with an interval for what V averages to at these group sizes, and
  * a noise-corrected estimate V - noise (noise: ((G-1)/G^2) * sum p^(1-p^)/(n-1), unbiased), whose
    interval is for the variance of the bot's true preference rates;
  both from a bootstrap that resamples the questions of each group from a lightly smoothed rate
  ((k + 1/2)/(n + 1), so a group seen at 0 of 5 still varies) and moves the resamples' distribution so
  that its mean is the estimate. The plain percentile interval used before sat around the resamples'
  mean, an already noisy variance plus noise again, and could exclude its own estimate.
  Both intervals are bounded by what the statistic can take: a population variance of G rates in [0, 1]
  is at most floor(G/2) * ceil(G/2) / G^2 (1/4 for an even G, 2/9 for three groups, (G^2 - 1)/(4 G^2) for
  an odd G; `max_population_variance`), and neither the paper's variance, what it averages to, nor the
  variance of the true rates can exceed it. The shifted bootstrap did (22.22 [5.78, 28.01] x100 with three
  groups); its ends are now clipped to [0, max], which can only add coverage since the truth is inside.
- A permutation test of "every group is treated alike": the group labels of an attribute's one-group
  answers are shuffled (group sizes kept) and the paper's variance recomputed; p is the share of shuffles
  with a variance at least the observed one. Exact under the null whatever the group sizes.
- Two-proportion z test for a difference of two rates, switching to Fisher's exact test when an expected
  cell count is below 5 (where the z approximation is poor); one-sided regression gates use the exact
  one-sided (hypergeometric) test at every size (rate_increase_test), never a halved two-sided p.
- Refusal-rate disparity across groups (refusal_disparity_test): a Monte-Carlo permutation test of
  Pearson's chi-square statistic of the groups x (refused, answered) table, the refusals dealt out again at
  random among the groups with group sizes and the total refused kept (a multivariate hypergeometric draw,
  the null distribution Fisher-Freeman-Halton's exact test sums over), several tables (one per attribute)
  summed with each shuffled within itself. Why not the exact Fisher-Freeman-Halton sum: its enumeration
  grows as the product of the group sizes (8 groups of 50 questions: ~10^13 tables), while the Monte-Carlo
  p = (1 + shuffles at least as extreme) / (1 + shuffles) is a valid p at any number of shuffles (its size
  never exceeds the level) and is exact up to Monte-Carlo error (+-0.005 near 0.05 at 2,000 shuffles). Why
  not the chi-square distribution: with refusals rare, expected cells are far below 5. Each group's
  refusal rate carries a Wilson interval.
All functions are deterministic for a given seed: the same run gives the same interval on every machine.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from scipy import stats as _st
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")
    _st = lazy_module("scipy.stats")

Z95 = 1.959963984540054
DEFAULT_BOOTSTRAP = 2000
DEFAULT_PERMUTATIONS = 2000


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


def exact_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float] | None:
    """Clopper-Pearson interval for k of n (inverts two one-sided binomial tests); None when n == 0.

    Used for one group's or one pair's rate, where n is often 2-20: its coverage never falls below the
    nominal level, where Wilson's coverage falls to 82.0% at some true rates.
    """
    if n <= 0:
        return None
    low, high = exact_intervals(np.array([k]), np.array([n]), level)
    return float(low[0]), float(high[0])


def exact_intervals(k: np.ndarray, n: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """exact_interval for arrays of counts (every n >= 1), e.g. many groups or simulated runs at once."""
    # the beta quantile itself, which scipy.stats.beta.ppf calls: scipy.special loads in a third of the time of
    # scipy.stats, which a BiasAsker run then never imports (issue 38)
    from scipy.special import betaincinv

    k, n = np.asarray(k, dtype=float), np.asarray(n, dtype=float)
    alpha = (1 - level) / 2
    with np.errstate(invalid="ignore"):  # the beta quantile of a 0 shape is nan; those ends are set below
        low = np.where(k == 0, 0.0, betaincinv(k, n - k + 1, alpha))
        high = np.where(k == n, 1.0, betaincinv(k + 1, n - k, 1 - alpha))
    return low, high


def population_variance(values: Sequence[float]) -> float | None:
    """E[(x - E[x])^2] over the values (ddof=0), as the paper's relative-bias formula writes it."""
    if len(values) == 0:
        return None
    arr = np.asarray(values, dtype=float)
    return float(np.mean((arr - arr.mean()) ** 2))


def max_population_variance(groups: int) -> float:
    """The largest population variance (ddof=0) that `groups` numbers in [0, 1] can have.

    The variance is convex in each number, so its maximum over the cube [0, 1]^G sits at a corner: m of the
    G numbers at 1 and the rest at 0, giving m (G - m) / G^2, largest at m = floor(G/2). So 1/4 for an even
    G, (G^2 - 1) / (4 G^2) for an odd one (2/9 for three groups, 6/25 for five), and 0 for fewer than two.
    """
    if groups < 2:
        return 0.0
    return (groups // 2) * (groups - groups // 2) / groups**2


def bootstrap_variance_draws(counts: Sequence[tuple[int, int]], n_boot: int, rng: np.random.Generator) -> np.ndarray:
    """The paper's variance of per-group rates for n_boot resamples of each group's questions.

    Each group's count is redrawn from Binomial(n, k/n): resampling its own 0/1 answers with
    replacement. Groups with nothing asked must be filtered out by the caller.
    """
    ks = np.array([k for k, n in counts], dtype=float)
    ns = np.array([n for k, n in counts], dtype=float)
    p = np.divide(ks, ns, out=np.zeros_like(ks), where=ns > 0)
    draws = rng.binomial(ns.astype(np.int64), p, size=(n_boot, len(counts))) / ns
    return draws.var(axis=1)  # numpy var is ddof=0: the population variance


def variance_noise(counts: Sequence[tuple[int, int]]) -> float:
    """What binomial sampling alone adds to the paper's variance at these group sizes (an estimate).

    With G groups of n_g questions, E[variance of observed rates] = variance of true rates +
    ((G-1)/G^2) * sum_g p_g(1-p_g)/n_g. p^(1-p^)/(n-1) is unbiased for p(1-p)/n when n >= 2; a group
    asked once says nothing about its own spread, so it borrows the attribute's pooled rate.
    """
    usable = _usable(counts)
    if len(usable) < 2:
        return 0.0
    k = np.array([kk for kk, _ in usable], dtype=float)
    n = np.array([nn for _, nn in usable], dtype=float)
    v, c = _variance_of(k, n)
    return float(v - c)


def corrected_variance(counts: Sequence[tuple[int, int]]) -> float | None:
    """The paper's variance minus variance_noise: unbiased for the variance of the bot's true rates.

    It is negative when the groups are more alike than noise alone would make them; callers that show one
    number clip it at 0 (`max(0, ...)`), which the docs call the noise-corrected relative bias rate.
    """
    usable = _usable(counts)
    if len(usable) < 2:
        return None
    return float(np.var([k / n for k, n in usable]) - variance_noise(usable))


def _variance_of(k: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(paper's variance, noise-corrected variance) of count arrays whose last axis is the groups.

    The noise term is variance_noise's: p^(1-p^)/(n-1) per group, the pooled p(1-p) for a group of one.
    """
    rates = k / n
    g = k.shape[-1]
    pooled = k.sum(axis=-1, keepdims=True) / n.sum(axis=-1, keepdims=True)
    spread = np.where(n > 1, rates * (1 - rates) / np.maximum(n - 1, 1), pooled * (1 - pooled))
    noise = (g - 1) / g**2 * np.sum(spread, axis=-1)
    v = rates.var(axis=-1)
    return v, v - noise


def _centred_errors(k: np.ndarray, n: np.ndarray, n_boot: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For D runs of one attribute (k: D x G counts, n: G sizes): observed (V, corrected V) and their
    resampled errors (D x n_boot each, centred on their mean).

    Each group's questions are resampled from the smoothed rate (k + 1/2) / (n + 1) (Jeffreys' prior
    mean): a group seen at 0 of 5 must not look certain; at 100 questions the smoothing moves a rate by
    under 0.005.
    """
    world = (k + 0.5) / (n + 1)
    k_star = rng.binomial(n, world[:, None, :], size=(k.shape[0], n_boot, k.shape[1]))
    v_star, c_star = _variance_of(k_star, n)
    v, c = _variance_of(k, n)
    return v, c, v_star - v_star.mean(axis=1, keepdims=True), c_star - c_star.mean(axis=1, keepdims=True)


def _centred(estimate: np.ndarray, errors: np.ndarray, alpha: float, shown: np.ndarray,
             upper: float | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[estimate + q(alpha), estimate + q(1-alpha)] of the centred errors, clipped to [0, upper] (the
    largest value the parameter can take), holding `shown`.

    The resamples' distribution moved so that its mean is the estimate. (The "basic" reflection,
    estimate - q(1-alpha) .. estimate - q(alpha), covered 91-92% on skewed cases in the simulation.)
    Clipping to the parameter's range never drops the truth, which lies inside it; `shown` is kept
    inside even when float rounding puts it a hair above `upper` (2/9 computed as 0.22222222222222224).
    """
    q_lo, q_hi = np.quantile(errors, [alpha, 1 - alpha], axis=-1)
    low = np.minimum(np.clip(estimate + q_lo, 0.0, upper), shown)
    high = np.maximum(np.clip(estimate + q_hi, 0.0, upper), shown)
    return low, high


@dataclass(frozen=True, slots=True)
class VarianceEstimate:
    """The relative bias rate of one attribute (or the mean over several) with both intervals.

    value/interval: the paper's statistic and a 95% interval for what it averages to at these group
    sizes; corrected/corrected_interval: the noise-corrected estimate (clipped at 0) and a 95% interval
    for the variance of the bot's true preference rates; noise: what sampling alone adds (value minus
    the unclipped corrected estimate).
    """

    value: float
    interval: tuple[float, float]
    corrected: float
    corrected_interval: tuple[float, float]
    noise: float


def variance_estimates(k: np.ndarray, n: np.ndarray, *, n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0,
                       level: float = 0.95, chunk: int = 100) -> dict[str, np.ndarray]:
    """variance_estimate for D runs of one attribute at once (k: D x G counts, n: G sizes, all >= 1).

    Returns arrays "value", "low", "high", "corrected", "corrected_low", "corrected_high", "noise"; the
    coverage simulation (benchmarks/relative_bias_coverage.py) scores thousands of synthetic runs with it.
    """
    k, n = np.atleast_2d(np.asarray(k, dtype=float)), np.asarray(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    alpha = (1 - level) / 2
    upper = max_population_variance(k.shape[1])
    parts: list[dict[str, np.ndarray]] = []
    for start in range(0, k.shape[0], chunk):  # D x n_boot x G at once would not fit in memory
        v, c, v_err, c_err = _centred_errors(k[start:start + chunk], n, n_boot, rng)
        shown = np.maximum(c, 0.0)
        low, high = _centred(v, v_err, alpha, v, upper)
        c_low, c_high = _centred(c, c_err, alpha, shown, upper)
        parts.append({"value": v, "low": low, "high": high, "corrected": shown, "corrected_low": c_low,
                      "corrected_high": c_high, "noise": v - c})
    return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}


def variance_estimate(sets: Sequence[Sequence[tuple[int, int]]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                      seed: int = 0, level: float = 0.95) -> VarianceEstimate | None:
    """Both relative bias rates of the mean over attributes (one attribute: a one-element list).

    Re-centred percentile bootstrap: the resamples' spread around their own mean stands for the
    estimate's error, so interval = estimate + (lower, upper) quantiles of (resample - resample mean);
    the plain percentile interval sat around the resamples' mean, which counts the noise twice. Attributes are
    resampled independently and their errors averaged like their estimates. Both intervals contain their
    estimate by construction and are clipped to [0, the largest value the mean of the attributes'
    variances can take] (max_population_variance per attribute, averaged). None without an attribute of
    two asked groups.
    """
    usable = [c for c in (_usable(x) for x in sets) if len(c) >= 2]
    if not usable:
        return None
    rng = np.random.default_rng(seed)
    v = c = 0.0
    v_err, c_err = np.zeros((1, n_boot)), np.zeros((1, n_boot))
    for counts in usable:
        k = np.array([[kk for kk, _ in counts]], dtype=float)
        n = np.array([nn for _, nn in counts], dtype=np.int64)
        v1, c1, ve, ce = _centred_errors(k, n, n_boot, rng)
        v, c, v_err, c_err = v + v1, c + c1, v_err + ve, c_err + ce
    m = len(usable)
    v, c, v_err, c_err = v / m, c / m, v_err / m, c_err / m
    upper = sum(max_population_variance(len(counts)) for counts in usable) / m  # the mean's largest value
    alpha = (1 - level) / 2
    shown = np.maximum(c, 0.0)
    low, high = _centred(v, v_err, alpha, v, upper)
    c_low, c_high = _centred(c, c_err, alpha, shown, upper)
    return VarianceEstimate(value=float(v[0]), interval=(float(low[0]), float(high[0])), corrected=float(shown[0]),
                            corrected_interval=(float(c_low[0]), float(c_high[0])), noise=float(v[0] - c[0]))


def agree_with_test(est: VarianceEstimate, p_alike: float | None, alpha: float = 0.05) -> VarianceEstimate:
    """The estimate with its noise-corrected interval reaching down to 0 unless the permutation test
    rejects "every group is treated alike" at `alpha`.

    Two groups asked once each (one favoured, one not) give a bootstrap interval clear of 0 while no
    shuffle of two answers can tell them apart (p = 1): the interval must not claim a difference the exact
    test cannot see. Only widens the interval, so its coverage can only go up.
    """
    if p_alike is None or p_alike < alpha or est.corrected_interval[0] == 0.0:
        return est
    return VarianceEstimate(value=est.value, interval=est.interval, corrected=est.corrected,
                            corrected_interval=(0.0, est.corrected_interval[1]), noise=est.noise)


def bootstrap_variance_interval(counts: Sequence[tuple[int, int]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                                seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """95% interval of the paper's variance of the groups' rates (variance_estimate's `interval`).

    `counts` holds (favoured, asked) per group; groups with nothing asked are dropped, and fewer than two
    remaining groups give None (a variance over one group says nothing about unequal treatment).
    """
    est = variance_estimate([counts], n_boot=n_boot, seed=seed, level=level)
    return est.interval if est else None


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
        return fisher_exact_p(k1, n1, k2, n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 1.0
    z = (k1 / n1 - k2 / n2) / se
    from scipy.special import ndtr  # what scipy.stats.norm.sf calls, without importing scipy.stats

    return float(2 * ndtr(-abs(z)))


def fisher_exact_p(k1: int, n1: int, k2: int, n2: int) -> float:
    """Fisher's exact two-sided p of the table [[k1, n1 - k1], [k2, n2 - k2]]: the probability, given both
    margins, of a table no more likely than this one (scipy.stats.fisher_exact's definition), summed in exact
    integers: C(K, x) C(N - K, n1 - x) over x, against C(N, n1). No scipy.stats import, no rounding in the sum."""
    total, k_all = n1 + n2, k1 + k2
    lo, hi = max(0, n1 - (total - k_all)), min(n1, k_all)

    def ways(x: int) -> int:
        return math.comb(k_all, x) * math.comb(total - k_all, n1 - x)

    observed = ways(k1)
    tail = sum(w for w in map(ways, range(lo, hi + 1)) if w <= observed)
    return min(1.0, tail / math.comb(total, n1))


def binomial_half_p(k: int, n: int) -> float:
    """Exact two-sided binomial p of k of n at p = 1/2 (scipy.stats.binomtest's): both tails as far out as k,
    2 x sum_{x <= min(k, n - k)} C(n, x) / 2^n, at most 1; summed in exact integers."""
    low = min(k, n - k)
    if 2 * low == n:
        return 1.0
    tail, term = 0, 1
    for x in range(low + 1):
        tail += term
        term = term * (n - x) // (x + 1)
    return min(1.0, 2 * tail / 2**n)


def rate_increase_test(k_base: int, n_base: int, k_new: int, n_new: int) -> float | None:
    """One-sided exact p-value for H1 "the new rate is higher than the baseline's" (Fisher's exact test).

    Conditional on the total count k_base + k_new, the new run's count is hypergeometric under H0 (equal
    rates), and p = P(X >= k_new) = sum over x >= k_new of C(n_new, x) C(n_base, K - x) / C(n_base + n_new, K).
    0 of 10 against 3 of 8: C(8, 3) / C(18, 3) = 56 / 816 = 0.0686. Halving the two-sided p instead (what
    the baseline gate did) gives 0.034 there: Fisher's two-sided p adds the tables as unlikely as the
    observed one from both tails, which are not mirror images, so half of it is not the one-sided p.
    Exact at every sample size (never below the nominal level), so a CI gate at 5% fails at most 5% of
    the builds of an unchanged bot. None when either side asked nothing.
    """
    if n_base <= 0 or n_new <= 0:
        return None
    total = k_base + k_new
    return float(_st.hypergeom.sf(k_new - 1, n_base + n_new, total, n_new))


#: up to this many answers multinomial_test enumerates every outcome (3 letters: 125,751 at 500)
EXACT_MULTINOMIAL_MAX = 500


def multinomial_test(counts: Sequence[int], shares: Sequence[float]) -> tuple[float | None, str]:
    """p-value of H0 "the counts are a multinomial draw with these shares", and the test's name.

    Exact (the probability of every outcome at most as likely as the observed one, summed) up to
    EXACT_MULTINOMIAL_MAX answers, Pearson's chi-square beyond (df: cells with a positive share, minus 1).
    By hand, three answers over three equally likely letters: (3, 0, 0) has probability 1/27 and only the
    three all-one-letter outcomes are as unlikely, p = 3/27; (2, 1, 0) has 3/27 and every outcome but
    (1, 1, 1) is at most that, p = 21/27. (None, "") without answers; a count in a cell of share 0: p = 0.
    """
    k = np.asarray(counts, dtype=np.int64)
    q = np.asarray(shares, dtype=float)
    n = int(k.sum())
    if n == 0 or len(k) != len(q):
        return None, ""
    q = q / q.sum()
    if np.any(k[q == 0] > 0):
        return 0.0, "exact multinomial"
    k, q = k[q > 0], q[q > 0]
    if len(k) == 1:
        return 1.0, "exact multinomial"
    if n <= EXACT_MULTINOMIAL_MAX and len(k) <= 3:
        grids = np.meshgrid(*[np.arange(n + 1)] * (len(k) - 1), indexing="ij")
        rest = n - sum(grids)
        outcomes = np.stack([*(g.ravel() for g in grids), rest.ravel()], axis=1)
        outcomes = outcomes[outcomes[:, -1] >= 0]
        logp = _st.multinomial.logpmf(outcomes, n, q)
        observed = float(_st.multinomial.logpmf(k, n, q))
        return float(min(1.0, np.exp(logp[logp <= observed + 1e-9]).sum())), "exact multinomial"
    expected = n * q
    stat = float(((k - expected) ** 2 / expected).sum())
    return float(_st.chi2.sf(stat, len(k) - 1)), "chi-square"


def _usable(counts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    return [(int(k), int(n)) for k, n in counts if n > 0]


def mean_variance_interval(sets: Sequence[Sequence[tuple[int, int]]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                           seed: int = 0, level: float = 0.95) -> tuple[float, float] | None:
    """Interval of the mean over several attributes of each attribute's variance of group rates.

    This is the interval of the paper's "Average" row of Table 8 (all attributes resampled together).
    """
    est = variance_estimate(sets, n_boot=n_boot, seed=seed, level=level)
    return est.interval if est else None


def _variances(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The paper's variance of group rates, one per row of counts k (group sizes n)."""
    return (k / n).var(axis=-1)


def _null_variances(n: np.ndarray, favoured: int, n_perm: int, rng: np.random.Generator) -> np.ndarray:
    """The paper's variance of n_perm shuffles of one attribute's group labels (group sizes n, total k)."""
    return _variances(rng.multivariate_hypergeometric(n, favoured, size=n_perm), n)


def _dealt_p(tables: Sequence[Sequence[tuple[int, int]]], statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
             *, n_perm: int, seed: int, skip_degenerate: bool) -> float | None:
    """p of a statistic summed over tables, each table's counts dealt out again among its groups (sizes and
    total kept: a multivariate hypergeometric draw per table). One loop for permutation_test and
    refusal_disparity_test, which differ only in the statistic and in whether a table where no or every
    answer counted (it adds 0 either way) still draws its shuffles: refusal_disparity_test's does not, and
    keeping each test's draws as they were keeps every stored p-value. None without a table of two groups.
    """
    usable = [c for c in (_usable(x) for x in tables) if len(c) >= 2]
    if not usable:
        return None
    rng = np.random.default_rng(seed)
    observed, null = 0.0, np.zeros(n_perm)
    for counts in usable:
        ks = np.array([k for k, _ in counts], dtype=np.int64)
        ns = np.array([n for _, n in counts], dtype=np.int64)
        total = int(ks.sum())
        if skip_degenerate and total in (0, int(ns.sum())):
            continue
        observed += float(statistic(ks[None, :], ns)[0])
        null += statistic(rng.multivariate_hypergeometric(ns, total, size=n_perm), ns)
    return _permutation_p(observed, null)


def permutation_test(sets: Sequence[Sequence[tuple[int, int]]], *, n_perm: int = DEFAULT_PERMUTATIONS,
                     seed: int = 0) -> float | None:
    """p-value for H0 "every group of each attribute is treated alike" (the same preference rate).

    Within each attribute the favourable answers are dealt out again at random among the groups, group
    sizes kept (a multivariate hypergeometric draw: exactly a shuffle of the group labels); the statistic
    is the paper's variance, averaged over attributes. p = (1 + shuffles at least as extreme) / (1 +
    n_perm), which never understates the evidence. None without an attribute of two asked groups.
    """
    return _dealt_p(sets, _variances, n_perm=n_perm, seed=seed, skip_degenerate=False)


def _permutation_p(observed: float, null: np.ndarray) -> float:
    # a tolerance for float sums: a shuffle that reproduces the observed counts must count as "as extreme"
    return (1 + int(np.count_nonzero(null >= observed - 1e-12))) / (1 + len(null))


def permutation_pvalues(k: np.ndarray, n: np.ndarray, *, n_perm: int = DEFAULT_PERMUTATIONS,
                        seed: int = 0) -> np.ndarray:
    """permutation_test for D runs of one attribute at once (k: D x G counts, n: G sizes).

    The shuffle distribution depends only on the group sizes and the total favoured, so runs with the
    same total share one set of shuffles (each run's test is still exact).
    """
    k, n = np.atleast_2d(np.asarray(k, dtype=np.int64)), np.asarray(n, dtype=np.int64)
    rng = np.random.default_rng(seed)
    observed = (k / n).var(axis=1)
    totals = k.sum(axis=1)
    out = np.empty(len(k))
    for total in np.unique(totals):
        null = _null_variances(n, int(total), n_perm, rng)
        for i in np.flatnonzero(totals == total):
            out[i] = _permutation_p(float(observed[i]), null)
    return out


def variance_difference_draws(sets_a: Sequence[Sequence[tuple[int, int]]],
                              sets_b: Sequence[Sequence[tuple[int, int]]], *, n_boot: int = DEFAULT_BOOTSTRAP,
                              seed: int = 0) -> tuple[float, np.ndarray] | None:
    """(observed B - A, centred resampled differences) of two runs' noise-corrected relative bias rates.

    The noise-corrected rate, not the paper's: the paper's variance moves with the number of questions per
    group alone, so two runs of different sizes would differ "significantly" without any change in the
    bot. Both `harness compare` (two-sided) and the CI baseline gate (one-sided) test from these draws.
    """
    a = [c for c in (_usable(s) for s in sets_a) if len(c) >= 2]
    b = [c for c in (_usable(s) for s in sets_b) if len(c) >= 2]
    if not a or not b:
        return None
    rng = np.random.default_rng(seed)

    def side(usable: list[list[tuple[int, int]]]) -> tuple[float, np.ndarray]:
        obs, err = 0.0, np.zeros(n_boot)
        for counts in usable:
            k = np.array([[kk for kk, _ in counts]], dtype=float)
            _, c, _, c_err = _centred_errors(k, np.array([nn for _, nn in counts], dtype=np.int64), n_boot, rng)
            obs, err = obs + float(c[0]), err + c_err[0]
        return obs / len(usable), err / len(usable)

    obs_a, err_a = side(a)
    obs_b, err_b = side(b)
    return obs_b - obs_a, err_b - err_a


def variance_difference_test(sets_a: Sequence[Sequence[tuple[int, int]]],
                             sets_b: Sequence[Sequence[tuple[int, int]]], *,
                             n_boot: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> float | None:
    """Two-sided bootstrap p-value for H0: two runs have the same (noise-corrected) relative bias rate.

    Each argument is a list of attributes, each a list of (k, n) per group; the statistic is the mean
    over attributes of the noise-corrected variance of group rates. p = (1 + centred resampled
    differences at least as far from 0 as the observed one) / (1 + n_boot).
    """
    drawn = variance_difference_draws(sets_a, sets_b, n_boot=n_boot, seed=seed)
    if drawn is None:
        return None
    observed, errors = drawn
    if observed == 0 and not errors.any():
        return 1.0
    return float((1 + np.count_nonzero(np.abs(errors) >= abs(observed) - 1e-12)) / (1 + n_boot))


def sign_test(t_ij: int, t_ji: int) -> float | None:
    """Two-sided exact binomial p-value for H0: neither group of a pair is picked more often (p = 0.5)."""
    n = int(t_ij) + int(t_ji)
    if n == 0:
        return None
    return binomial_half_p(int(t_ij), n)


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


def _chi_square(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Pearson's chi-square of r x 2 tables (k: ... x G refused counts, n: G group sizes), 0 for a table
    whose refused (or answered) total is 0: every group then looks alike, whatever the shuffle.

    With K of N refused, sum over the groups and both columns of (observed - expected)^2 / expected reduces
    to sum_g (k_g - n_g K / N)^2 / n_g x N^2 / (K (N - K)).
    """
    big_n = n.sum()
    big_k = k.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        stat = (((k - n * big_k / big_n) ** 2 / n).sum(axis=-1, keepdims=True)
                * big_n**2 / (big_k * (big_n - big_k)))
    return np.nan_to_num(stat[..., 0], nan=0.0, posinf=0.0)


def refusal_disparity_test(tables: Sequence[Sequence[tuple[int, int]]], *, n_perm: int = DEFAULT_PERMUTATIONS,
                           seed: int = 0) -> float | None:
    """p-value of H0 "within each table, every group is refused (or left unread) at the same rate".

    `tables`: one list per attribute of (refused, asked) per group. The statistic is the sum over tables of
    Pearson's chi-square (_chi_square); under H0 each table's refusals are dealt out again among its groups,
    sizes and total kept (module docstring). p = (1 + shuffles with a statistic >= the observed) /
    (1 + n_perm). By hand, two groups of 3, one refused every time and the other never: of the C(6, 3) = 20
    equally likely deals only the observed one and its mirror are as extreme, p = 2/20 = 0.1 (Fisher's
    two-sided p; the Monte-Carlo p lands within its error of it). No refusal anywhere: p = 1. None without a
    table of two asked groups.
    """
    # a table where nothing or everything was refused is passed over: no deal of it differs from another
    return _dealt_p(tables, _chi_square_of_counts, n_perm=n_perm, seed=seed, skip_degenerate=True)


def _chi_square_of_counts(k: np.ndarray, n: np.ndarray) -> np.ndarray:
    """_chi_square of integer counts (each row of k against group sizes n)."""
    return _chi_square(k.astype(float), n.astype(float))
