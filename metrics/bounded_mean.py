"""A one-sided test of the mean of bounded values whose size holds for ANY distribution on [low, high].

Why: StereoSet's SS, LMS and ICAT (means over target terms of per-term shares in [0, 100]) and tod's BLEU
figures (means of sentence BLEU in [0, 1], turns clustered in dialogues) have no parametric sampling model: a
t-test's size depends on their skew, a bare comparison fails a bot at the limit about half the time. A test by
betting (Waudby-Smith & Ramdas 2023, "Estimating means of bounded random variables by betting", JRSS-B) needs
only the bounds.

The test. Scale every value to x in [0, 1] and the threshold to t. For H0 "mean <= t" (an upper bound, a
`--fail-above` gate) a gambler starts with 1 and bets a constant fraction on each unit: its wealth is
K(lam) = prod_i (1 + lam w_i (x_i - t)), 0 <= lam < 1 / (t max w), which stays positive. Under H0 each factor's
mean is 1 + lam w_i (mu_i - t), and by the concavity of log (AM-GM) the product of those means is at most
(1 + lam (sum_i w_i mu_i / sum_i w_i - t))^n <= 1 when the weights average 1: K(lam) is an e-value for the
weighted mean of the units' means, even when the units' means differ (targets and dialogues are not alike).
The mixture over a grid of constant bets (WSR's "grid Kelly" bettor; a constant bet, not a predictable one,
so the p does not depend on the order of the units, and validity needs no identical distribution) is an
e-value too, and p = min(1, 1 / mean_lam K(lam)) by Markov's inequality: P(p <= alpha) <= alpha under H0,
for every alpha and every distribution on the bounds. H0 "mean >= t" (a lower bound) bets the other way:
1 - lam w_i (x_i - t), lam < 1 / ((1 - t) max w).

The unit is the cluster the metric averages over (StereoSet: the target term; tod: the dialogue, its turns
averaged first and the dialogue weighted by its turns, w_i = n_i / mean n, so the tested mean is the metric's
own turn-weighted mean); units are independent given the design (which terms, which dialogues, how many
turns). Hoeffding's bound (hoeffding_p) is valid under the same assumptions and is kept for the power
comparison (benchmarks/bounded_mean_size.py): the betting test has more power wherever the values' variance is
below its worst case.

By hand (tests/metrics/test_bounded_mean.py): x = (1, 1), t = 1/2, one bet lam = 1: K = (1 + 1/2)^2 = 9/4.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
    from scipy import optimize as _opt
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")
    _opt = lazy_module("scipy.optimize")

UPPER, LOWER = "max", "min"  # Gate.bound values (harness.gates.checks.MAX / MIN)
#: the constant bets mixed, as fractions of the largest bet that keeps every factor positive
BETS = 40


def _bets() -> np.ndarray:
    """The mixture's bets, spread evenly over (0, 1) (a log-spaced half towards small bets was tried: it lost
    power at 30-100 units, 32% against 50% at 30 units and a mean 0.1 beyond t, for nothing gained there)."""
    return (np.arange(BETS) + 0.5) / BETS


def _units(
    values: Sequence[float], low: float, high: float, weights: Sequence[float] | None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The set-up every test here shares: the values scaled from [low, high] to x in [0, 1] and the weights
    to average 1 (None: alike), or None with no value (each caller then answers None). One place, so the
    keywords low, high and weights mean the same in betting_p, confidence_bound and hoeffding_p."""
    if not len(values):
        return None
    x = (np.asarray(values, dtype=float) - low) / (high - low)
    if np.any(x < -1e-9) or np.any(x > 1 + 1e-9):
        raise ValueError(f"a value lies outside [{low:g}, {high:g}]")
    w = np.ones(len(x)) if weights is None else np.asarray(weights, dtype=float)
    w = w / w.mean() if len(w) else w
    return np.clip(x, 0.0, 1.0), w


def log_wealth(x: np.ndarray, t: float, w: np.ndarray, bound: str = UPPER) -> float:
    """log of the mixture's wealth (mean over the bets of K(lam)) for data x in [0, 1], threshold t in (0, 1),
    weights w averaging 1 (module docstring)."""
    side, room = (1.0, t) if bound != LOWER else (-1.0, 1.0 - t)
    lam = _bets() / (room * float(w.max()))
    factors = 1.0 + side * lam[:, None] * (w * (x - t))[None, :]
    with np.errstate(divide="ignore"):
        logs = np.log(np.maximum(factors, 0.0)).sum(axis=1)
    top = float(logs.max())
    return top + float(np.log(np.mean(np.exp(logs - top)))) if np.isfinite(top) else -np.inf


def betting_p(
    values: Sequence[float],
    threshold: float,
    bound: str = UPPER,
    *,
    low: float = 0.0,
    high: float = 1.0,
    weights: Sequence[float] | None = None,
) -> float | None:
    """The one-sided p of H0 "mean <= threshold" (bound "max") or ">= threshold" ("min") of values in
    [low, high], each unit weighted by `weights` (None: alike); None with no value. Valid for any distribution
    (module docstring); a threshold at or beyond the bounds is decided by the data alone."""
    units = _units(values, low, high, weights)
    if units is None:
        return None
    x, w = units
    t = (threshold - low) / (high - low)
    if bound != LOWER:
        if t >= 1.0:
            return 1.0  # no mean exceeds the top of the range
        if t <= 0.0:
            return 0.0 if np.any(x > 0) else 1.0
    else:
        if t <= 0.0:
            return 1.0
        if t >= 1.0:
            return 0.0 if np.any(x < 1) else 1.0
    return float(min(1.0, np.exp(-log_wealth(x, t, w, bound))))


def confidence_bound(
    values: Sequence[float],
    alpha: float,
    bound: str = UPPER,
    *,
    low: float = 0.0,
    high: float = 1.0,
    weights: Sequence[float] | None = None,
) -> float | None:
    """The one-sided 1 - alpha confidence bound of the mean the test inverts: "max" the upper bound (the
    largest m that H0 "mean >= m" keeps at alpha), "min" the lower bound; None with no value. The test's p is
    monotone in m (each bet's factor moves one way with it), so the bound is the root of p(m) = alpha."""
    units = _units(values, low, high, weights)
    if units is None:
        return None
    x, w = units
    mean = float(np.average(x, weights=w))
    tested = LOWER if bound == UPPER else UPPER  # an upper bound is what a lower-bound null cannot exceed

    def gap(m: float) -> float:
        return log_wealth(x, m, w, tested) + float(np.log(alpha))

    edge = 1.0 - 1e-12 if bound == UPPER else 1e-12
    if gap(edge) <= 0:
        m = edge
    elif gap(mean) >= 0:
        m = mean
    else:
        m = float(_opt.brentq(gap, min(mean, edge), max(mean, edge), xtol=1e-10))
    return low + (high - low) * m


def hoeffding_p(
    values: Sequence[float], threshold: float, bound: str = UPPER, *, low: float = 0.0, high: float = 1.0
) -> float | None:
    """Hoeffding's one-sided p, exp(-2 n d^2) for the scaled mean's distance d beyond the threshold (1 within
    it): valid for any distribution on the bounds, and the baseline the betting test's power is compared to."""
    units = _units(values, low, high, None)
    if units is None:
        return None
    x, t = units[0], (threshold - low) / (high - low)
    d = (x.mean() - t) if bound != LOWER else (t - x.mean())
    return float(min(1.0, np.exp(-2.0 * len(x) * d * d))) if d > 0 else 1.0
