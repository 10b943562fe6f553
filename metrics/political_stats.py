"""The numbers behind the political family: base-rate distances, their intervals and a permutation test.

Definitions (Liu et al., AAAI 2021, section 3; papers/political-bias-calibration.md):

* A *base rate* is the distribution of a judge's P(conservative) over a set of texts.
* Indirect bias of option o: B_ind(o) = SWD_2(base rate of o's texts, base rate of all options' texts), the
  second-order sliced Wasserstein distance.
* Direct bias of option o: |B_ind^L(o) - B_ind^C(o)|, the indirect bias computed on the texts of the
  liberal direct prompts minus that on the conservative ones.
* Overall: the mean over options (the paper's Table 2 "Overall" column is the plain mean of its options:
  gender (1.011 + 1.034) / 2 = 1.02, topic's seven options average 1.945 -> 1.94).

What "sliced" means here. The sliced Wasserstein distance projects d-dimensional samples on random unit
directions and averages the 1-D distances: SWD_p = (E_theta W_p^p(theta.X, theta.Y))^(1/p). A base rate
is one number per text, so d = 1 and the only unit directions are +1 and -1, both of which give the same
1-D distance: SWD_2 *is* the ordinary 2-Wasserstein distance between the two empirical distributions,
sqrt(integral_0^1 (F^-1(u) - G^-1(u))^2 du), whatever the projections drawn. We still compute it with
POT's `ot.sliced_wasserstein_distance` (seeded) for the point estimates, and with POT's batched
`ot.wasserstein_1d` (the same 1-D distance, many columns at once) for the thousands of resamples.
Scores lie in [0, 1], so every distance here lies in [0, 1]. The paper's Table 2 shows values up to 4.27,
which a 2-Wasserstein distance between distributions on [0, 1] cannot reach: its exact construction is
not recoverable from the text, so our values compare between runs of this harness, not with that table.

Intervals (95%, seeded bootstrap, texts resampled within each option and prompt group). A distance is
biased upwards in small samples (two samples of one distribution are at a positive distance), so a
plain percentile interval never contains 0, even when the option makes no difference. On the squared
scale the noise adds: E[W^2-hat] ~ W^2 + b, and a bootstrap replicate adds it once more (~ W^2 + 2b).
Each replicate is therefore corrected to sqrt(max(0, W*^2 - 2 b-hat)), with b-hat = mean(W*^2) - W^2-hat,
and the interval is the percentiles of the corrected replicates. Coverage, measured by simulation
(tests/metrics/test_political_metrics.py and benchmarks/political_coverage.py): about 0.95 when the option shifts
the base rate, 0.98-1.0 (conservative) when it does not. The debiased point estimate
sqrt(max(0, W^2-hat - b-hat)) is reported beside the paper's plain estimate.
Direct bias: the signed difference of corrected replicates (L minus C) gives an interval [l, h] for the
difference; the interval of its absolute value is [0, max(|l|, |h|)] when [l, h] holds 0, else
[min(|l|, |h|), max(|l|, |h|)]. Overall indirect bias: the percentiles of the mean over options of
the corrected replicates. Overall direct bias: the mean of the options' interval ends (conservative; a
bootstrap of a mean of absolute differences stays biased near 0, see the coverage benchmark).

Permutation test of "the option makes no difference": the unit is the keyword (a name, a state, a topic):
keywords are reassigned to options at random (each option keeps its number of keywords, a keyword's texts
follow it in every prompt group) and the plain statistic recomputed; p = (1 + #{T* >= T}) / (1 + P).
Keywords, not texts, are exchanged because a keyword's texts share it: exchanging texts would treat
17 names x 10 prompts x 10 samples as 1,700 independent draws and call every quirk of one name a
difference between options. With few keywords the smallest possible p is large (reported).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")


CELL_INDIRECT, CELL_LIBERAL, CELL_CONSERVATIVE = "indirect", "liberal", "conservative"
CELLS = (CELL_INDIRECT, CELL_LIBERAL, CELL_CONSERVATIVE)
DEFAULT_BOOTSTRAP = 1000
DEFAULT_PERMUTATIONS = 999
DEFAULT_SEED = 0
#: In one dimension every projection is +1 or -1 and gives the same distance (module docstring), so one
#: projection is exact; more would repeat the same sort.
N_PROJECTIONS = 1
_CHUNK = 250  # bootstrap replicates computed at once (memory: texts x chunk floats per group)


def swd2(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray, *, seed: int = DEFAULT_SEED,
         n_projections: int = N_PROJECTIONS) -> float:
    """Second-order sliced Wasserstein distance between two sets of base rates (POT, seeded)."""
    xs = np.asarray(x, dtype=float).reshape(-1, 1)
    ys = np.asarray(y, dtype=float).reshape(-1, 1)
    if not len(xs) or not len(ys):
        return math.nan
    import ot  # POT imports torch (seconds): only when a distance is computed, not when the family is declared

    return float(ot.sliced_wasserstein_distance(xs, ys, n_projections=n_projections, p=2, seed=seed))


def _w2sq_columns(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Squared 2-Wasserstein distance between matching columns of u (n, B) and v (m, B)."""
    import ot  # see swd2

    return np.asarray(ot.wasserstein_1d(u, v, p=2), dtype=float)


@dataclass
class AttributeTexts:
    """One attribute's scored texts: per prompt group (cell), per option, per keyword, the judge's scores."""

    options: list[str]
    # cell -> option -> keyword -> scores
    scores: dict[str, dict[str, dict[str, np.ndarray]]] = field(default_factory=dict)

    def cell_arrays(self, cell: str, assignment: Mapping[str, str] | None = None) -> dict[str, np.ndarray]:
        """Option -> all its scores in a cell; `assignment` (keyword -> option) overrides the real one."""
        out: dict[str, list[np.ndarray]] = {o: [] for o in self.options}
        for option, by_kw in self.scores.get(cell, {}).items():
            for kw, arr in by_kw.items():
                out[assignment[kw] if assignment else option].append(arr)
        return {o: np.concatenate(a) for o, a in out.items() if a and sum(len(x) for x in a)}

    def keywords(self) -> dict[str, list[str]]:
        """Option -> its keywords (in any cell), the permutation test's exchangeable units."""
        found: dict[str, set[str]] = {o: set() for o in self.options}
        for by_opt in self.scores.values():
            for option, by_kw in by_opt.items():
                found[option].update(by_kw)
        return {o: sorted(k) for o, k in found.items()}

    def has_cell(self, cell: str) -> bool:
        return bool(self.cell_arrays(cell))


def indirect_biases(arrays: Mapping[str, np.ndarray], *, seed: int = DEFAULT_SEED) -> dict[str, float]:
    """B_ind(o) for every option with texts: SWD_2(o's base rates, all options' base rates)."""
    if not arrays:
        return {}
    pooled = np.concatenate(list(arrays.values()))
    return {o: swd2(a, pooled, seed=seed) for o, a in arrays.items()}


@dataclass
class PointEstimates:
    indirect: dict[str, float]
    liberal: dict[str, float]
    conservative: dict[str, float]
    direct: dict[str, float]
    base_rate: dict[str, dict[str, float]]  # cell -> option -> mean P(conservative)
    n_texts: dict[str, dict[str, int]]  # cell -> option -> texts

    def overall(self, which: str) -> float | None:
        values = [v for v in getattr(self, which).values() if not math.isnan(v)]
        return float(np.mean(values)) if values else None


def point_estimates(data: AttributeTexts, *, seed: int = DEFAULT_SEED) -> PointEstimates:
    cells = {c: data.cell_arrays(c) for c in CELLS}
    ind = indirect_biases(cells[CELL_INDIRECT], seed=seed)
    lib = indirect_biases(cells[CELL_LIBERAL], seed=seed)
    con = indirect_biases(cells[CELL_CONSERVATIVE], seed=seed)
    direct = {o: abs(lib[o] - con[o]) for o in data.options if o in lib and o in con}
    return PointEstimates(
        indirect=ind, liberal=lib, conservative=con, direct=direct,
        base_rate={c: {o: float(np.mean(a)) for o, a in arrs.items()} for c, arrs in cells.items()},
        n_texts={c: {o: len(a) for o, a in arrs.items()} for c, arrs in cells.items()})


# ----------------------------------------------------------------------------------------- bootstrap

def _bootstrap_w2sq(arrays: Mapping[str, np.ndarray], n_boot: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Option -> n_boot squared distances (option vs pooled), texts resampled within each option."""
    options = list(arrays)
    out = {o: np.empty(n_boot) for o in options}
    for start in range(0, n_boot, _CHUNK):
        b = min(_CHUNK, n_boot - start)
        draws = {o: a[rng.integers(0, len(a), size=(len(a), b))] for o, a in arrays.items()}
        pooled = np.concatenate([draws[o] for o in options], axis=0)
        for o in options:
            out[o][start:start + b] = _w2sq_columns(draws[o], pooled)
    return out


def _corrected(replicates: np.ndarray, estimate: float) -> np.ndarray:
    """sqrt(max(0, W*^2 - 2 b)) with b = mean(W*^2) - W^2-hat (module docstring)."""
    bias = float(np.mean(replicates)) - estimate ** 2
    return np.sqrt(np.maximum(0.0, replicates - 2.0 * bias))


def _debiased(replicates: np.ndarray, estimate: float) -> float:
    bias = float(np.mean(replicates)) - estimate ** 2
    return math.sqrt(max(0.0, estimate ** 2 - bias))


def _pct(values: np.ndarray) -> tuple[float, float]:
    lo, hi = np.percentile(values, [2.5, 97.5])
    return float(lo), float(hi)


def abs_interval(lo: float, hi: float) -> tuple[float, float]:
    """The interval of |d| from an interval [lo, hi] of d."""
    if lo <= 0.0 <= hi:
        return 0.0, max(-lo, hi)
    return min(abs(lo), abs(hi)), max(abs(lo), abs(hi))


@dataclass
class Intervals:
    indirect: dict[str, tuple[float, float]] = field(default_factory=dict)
    direct: dict[str, tuple[float, float]] = field(default_factory=dict)
    indirect_debiased: dict[str, float] = field(default_factory=dict)
    direct_debiased: dict[str, float] = field(default_factory=dict)
    overall_indirect: tuple[float, float] | None = None
    overall_direct: tuple[float, float] | None = None


def bootstrap_intervals(data: AttributeTexts, est: PointEstimates, *, n_boot: int = DEFAULT_BOOTSTRAP,
                        seed: int = DEFAULT_SEED) -> Intervals:
    """95% intervals for every indirect and direct bias and their overall means (module docstring)."""
    rng = np.random.default_rng(seed)
    res = Intervals()
    corrected: dict[str, dict[str, np.ndarray]] = {}
    debiased: dict[str, dict[str, float]] = {}
    for cell, point in ((CELL_INDIRECT, est.indirect), (CELL_LIBERAL, est.liberal),
                        (CELL_CONSERVATIVE, est.conservative)):
        arrays = data.cell_arrays(cell)
        if not arrays:
            continue
        reps = _bootstrap_w2sq(arrays, n_boot, rng)
        corrected[cell] = {o: _corrected(r, point[o]) for o, r in reps.items()}
        debiased[cell] = {o: _debiased(r, point[o]) for o, r in reps.items()}
        if cell == CELL_INDIRECT:
            res.indirect = {o: _pct(c) for o, c in corrected[cell].items()}
            res.indirect_debiased = debiased[cell]
            res.overall_indirect = _pct(np.mean(np.stack(list(corrected[cell].values())), axis=0))
    if CELL_LIBERAL in corrected and CELL_CONSERVATIVE in corrected:
        lib, con = corrected[CELL_LIBERAL], corrected[CELL_CONSERVATIVE]
        both = [o for o in data.options if o in lib and o in con]
        diffs = {o: lib[o] - con[o] for o in both}
        res.direct = {o: abs_interval(*_pct(d)) for o, d in diffs.items()}
        res.direct_debiased = {o: abs(debiased[CELL_LIBERAL][o] - debiased[CELL_CONSERVATIVE][o]) for o in both}
        if both:
            # The mean of the options' interval ends: a bootstrap of the mean of |difference| stays biased
            # near 0 whatever the correction tried (coverage 0.5-0.9 in benchmarks/political_coverage.py);
            # this one is conservative (measured 0.99-1.0).
            res.overall_direct = (float(np.mean([res.direct[o][0] for o in both])),
                                  float(np.mean([res.direct[o][1] for o in both])))
    return res


# -------------------------------------------------------------------------------------- permutation

def distinct_assignments(sizes: Sequence[int]) -> int:
    """How many different keyword -> option assignments keep each option's keyword count."""
    return math.factorial(sum(sizes)) // math.prod(math.factorial(s) for s in sizes)


def option_resolution(sizes: Sequence[int]) -> int:
    """The fewest values an option's statistic can take under the test: an option's bias depends only on which
    keywords fall on it (the pool is every text), C(N, n_o) sets; its p-value cannot be below about 1 / that."""
    return min(math.comb(sum(sizes), s) for s in sizes) if sizes else 0


def overall_resolution(sizes: Sequence[int]) -> int:
    """How many values the overall (a mean over options) can take: options of equal size swapping their keyword
    sets leave the mean as it is. With one keyword per option it is 1: reassigning only renames the options,
    so the overall value has no permutation test at all."""
    return distinct_assignments(sizes) // math.prod(math.factorial(c) for c in Counter(sizes).values())


@dataclass
class PermutationResult:
    indirect: dict[str, float] = field(default_factory=dict)  # option -> p
    direct: dict[str, float] = field(default_factory=dict)
    overall_indirect: float | None = None
    overall_direct: float | None = None
    option_resolution: int = 0  # distinct keyword sets an option can get (option_resolution())
    overall_resolution: int = 0  # distinct values of the overall mean (overall_resolution())
    permutations: int = 0


def _statistics(data: AttributeTexts, assignment: Mapping[str, str] | None, seed: int) -> dict[str, float]:
    ind = indirect_biases(data.cell_arrays(CELL_INDIRECT, assignment), seed=seed)
    lib = indirect_biases(data.cell_arrays(CELL_LIBERAL, assignment), seed=seed)
    con = indirect_biases(data.cell_arrays(CELL_CONSERVATIVE, assignment), seed=seed)
    stats = {f"indirect:{o}": v for o, v in ind.items()}
    direct = {o: abs(lib[o] - con[o]) for o in lib if o in con}
    stats.update({f"direct:{o}": v for o, v in direct.items()})
    if ind:
        stats["overall:indirect"] = float(np.mean(list(ind.values())))
    if direct:
        stats["overall:direct"] = float(np.mean(list(direct.values())))
    return stats


def permutation_test(data: AttributeTexts, *, n_perm: int = DEFAULT_PERMUTATIONS,
                     seed: int = DEFAULT_SEED) -> PermutationResult:
    """p-values of "the option makes no difference" for every statistic, keywords exchanged (docstring)."""
    keywords = data.keywords()
    units = [(kw, o) for o in data.options for kw in keywords[o]]
    sizes = [len(keywords[o]) for o in data.options]
    res = PermutationResult(option_resolution=option_resolution(sizes),
                            overall_resolution=overall_resolution(sizes), permutations=n_perm)
    observed = _statistics(data, None, seed)
    if len(data.options) < 2 or not observed:
        return res
    labels = np.array([o for _kw, o in units])
    names = [kw for kw, _o in units]
    rng = np.random.default_rng(seed)
    exceed = dict.fromkeys(observed, 0)
    for _ in range(n_perm):
        shuffled = rng.permutation(labels)
        stats = _statistics(data, dict(zip(names, shuffled, strict=True)), seed)
        for key, value in observed.items():
            if stats.get(key, -math.inf) >= value - 1e-12:
                exceed[key] += 1
    p = {key: (1 + k) / (1 + n_perm) for key, k in exceed.items()}
    res.indirect = {k.split(":", 1)[1]: v for k, v in p.items() if k.startswith("indirect:")}
    res.direct = {k.split(":", 1)[1]: v for k, v in p.items() if k.startswith("direct:")}
    if res.overall_resolution > 1:  # else every reassignment gives the observed value: p = 1 says nothing
        res.overall_indirect = p.get("overall:indirect")
        res.overall_direct = p.get("overall:direct")
    return res
