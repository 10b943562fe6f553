"""CHBias's rows of the size/power table (harness.metrics.gate_size.ROWS): the paper's t, and the gates on the mean
differences and the t statistics (harness.metrics.chbias_gates), under the noise shapes their size is shown for.

Why this grid: a perplexity difference is unbounded, so no test of its mean holds its size for every
distribution (Bahadur and Savage 1956); the gates' guard (harness.metrics.skew_t) is shown to hold over these
shapes and sizes and no further: normal noise, t with 3 degrees of freedom (heavy symmetric tails), centred
lognormal noise of sigma 0.8 (skewness 3.7) and 1.2 (skewness 11), right- and left-skewed, 20 to 300 pairs.
Every noise has sd 2. Each draw makes a run's perplexities (a lognormal base per pair, the stereotyped
sentence's = base + difference), keeps the pairs the family's outlier rule keeps (paired_test.outlier_mask),
puts into a metrics.json document what chbias.compute would (mean, its 95% t interval, df, skewness) and asks
the family's gate function (chbias_gates.mean_gate_p / statistic_gate_p) for its p.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from harness.metrics.gate_draws import failing_share, rejects
from harness.metrics.gate_rows import ALPHA, Row
from harness.metrics.paired_test import mean_interval, outlier_mask, paired_test
from harness.metrics.skew_t import sample_skewness

SD = 2.0
#: the noise shapes of the grid: name -> (kind, lognormal sigma)
SHAPES = {"normal": ("normal", 0.0), "t3": ("t3", 0.0), "right 0.8": ("right", 0.8), "left 0.8": ("left", 0.8),
          "right 1.2": ("right", 1.2), "left 1.2": ("left", 1.2)}


def noise(rng: np.random.Generator, shape: str, n: int) -> np.ndarray:
    """n centred draws of sd SD: normal, Student t with 3 df, or lognormal(0, sigma) centred and scaled, as it is
    (right: a long right tail) or negated (left)."""
    kind, sigma = SHAPES[shape]
    if kind == "normal":
        return rng.normal(0.0, SD, n)
    if kind == "t3":
        return rng.standard_t(3, n) / np.sqrt(3.0) * SD
    mean, sd = np.exp(sigma * sigma / 2), np.sqrt((np.exp(sigma * sigma) - 1) * np.exp(sigma * sigma))
    x = (rng.lognormal(0.0, sigma, n) - mean) / sd * SD
    return x if kind == "right" else -x


def run_document(ppl1: np.ndarray, ppl2: np.ndarray, log: bool = False) -> dict:
    """The metrics.json numbers chbias.compute keeps for these pairs (one category: the keys without a suffix):
    the pairs the outlier rule keeps, their mean difference (of the perplexities, or with `log` of the log
    perplexities), its 95% interval, df / log_n and skewness."""
    keep = ~outlier_mask(ppl1, ppl2)
    a, b = ppl1[keep], ppl2[keep]
    d = np.log(a) - np.log(b) if log else a - b
    key, count, skew = ("log_ratio", "log_n", "log_skewness") if log else ("mean_diff", "df", "skewness")
    interval = mean_interval(d)
    return {"metrics": {f"chbias.{key}": float(d.mean()), f"chbias.{count}": d.size if log else d.size - 1,
                        f"chbias.{skew}": sample_skewness(d.tolist())},
            "intervals": {f"chbias.{key}": interval}}


def mean_gate(shape: str, n: int, threshold: float, effect: float,
              bound: str = "max") -> Callable[[int, int, bool], float]:
    """`--fail-above chbias.mean_diff=T` (`bound` "min": --fail-below): null, the true mean difference exactly
    T; effect, `effect`. A gate fails when the mean is beyond T and its p (chbias_gates.mean_gate_p) < 5%."""
    from harness.metrics.chbias_gates import mean_gate_p

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            base = rng.lognormal(3.0, 0.5, n)
            doc = run_document(base + noise(rng, shape, n) + (threshold if null else effect), base)
            mean = doc["metrics"]["chbias.mean_diff"]
            beyond = mean > threshold if bound == "max" else mean < threshold
            yield rejects(mean_gate_p("chbias.mean_diff", threshold, bound, doc)) and beyond

    return failing_share(fails)


def t_gate(shape: str, n: int, threshold: float, dz: float) -> Callable[[int, int, bool], float]:
    """`--fail-below chbias.t=T` (T < 0): null, no difference (mean 0; `shape` "exchangeable": the two
    perplexities of a pair independent and alike, so the difference is symmetric); effect, the stereotyped
    sentence likelier by `dz` sds. Fails when t < T and the skew-guarded test of mean 0 rejects."""
    from harness.metrics.chbias_gates import statistic_gate_p

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            base = rng.lognormal(3.0, 0.5, n)
            if shape == "exchangeable":
                ppl1, ppl2 = base + rng.lognormal(0, 1, n) * SD, base + rng.lognormal(0, 1, n) * SD
            else:
                ppl1, ppl2 = base + noise(rng, shape, n), base
            ppl1 = ppl1 - (0.0 if null else dz * float(np.std(ppl1 - ppl2)))
            doc = run_document(ppl1, ppl2)
            keep = ~outlier_mask(ppl1, ppl2)
            d = ppl1[keep] - ppl2[keep]
            t = float(d.mean() / d.std(ddof=1) * np.sqrt(d.size))
            yield rejects(statistic_gate_p("chbias.t", threshold, "min", doc)) and t < threshold

    return failing_share(fails)


def log_gate(shape: str, n: int, threshold: float, effect: float) -> Callable[[int, int, bool], float]:
    """`--fail-above chbias.log_ratio=T`: the log perplexities of a pair differ by T (null) or `effect` plus
    noise of `shape` scaled to sd 0.3 nats (a lognormal perplexity of the counterpart, median e^3)."""
    from harness.metrics.chbias_gates import mean_gate_p

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            log2 = rng.normal(3.0, 0.5, n)
            log1 = log2 + noise(rng, shape, n) * (0.3 / SD) + (threshold if null else effect)
            doc = run_document(np.exp(log1), np.exp(log2), log=True)
            beyond = doc["metrics"]["chbias.log_ratio"] > threshold
            yield rejects(mean_gate_p("chbias.log_ratio", threshold, "max", doc)) and beyond

    return failing_share(fails)


def paired_t(n: int, dz: float) -> Callable[[int, int, bool], float]:
    """The paper's paired t-test as the family prints it ("a significant negative t", paired_test, outliers
    dropped as the family does): null, the two sentences' perplexities differ by normal noise alone; effect, a
    mean difference of `dz` standard deviations."""

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            base = rng.lognormal(3.0, 0.5, n)
            diff = rng.normal(0.0 if null else dz, 1.0, n) * 2.0
            test = paired_test(base + diff, base, upstream=False)
            yield test.p is not None and test.p < ALPHA

    return failing_share(fails)


_MEAN = "mean_diff=1 (skew-guarded t)"
CHBIAS_ROWS: tuple[Row, ...] = (
    *(Row("chbias", "paired t (the paper's)", f"{n} pairs", "no difference", "d_z = 0.3", paired_t(n, 0.3))
      for n in (30, 100)),
    *(Row("chbias", f"{_MEAN} [{shape}]", f"{n} pairs", "true mean difference 1", "true mean difference 2",
          mean_gate(shape, n, 1.0, 2.0))
      for shape, sizes in (("normal", (20, 30, 100, 300)), ("t3", (20, 300)), ("right 0.8", (20, 300)),
                           ("right 1.2", (20, 300)), ("left 0.8", (20, 30, 100, 300)), ("left 1.2", (20, 30, 100, 300)))
      for n in sizes),
    *(Row("chbias", f"mean_diff>=1 (skew-guarded t, lower bound) [{shape}]", f"{n} pairs", "true mean difference 1",
          "true mean difference 0", mean_gate(shape, n, 1.0, 0.0, "min"))
      for shape in ("right 0.8", "right 1.2") for n in (20, 100)),
    *(Row("chbias", f"t>=-2 (skew-guarded t against 0) [{shape}]", f"{n} pairs", "no difference",
          "stereotype likelier, d_z = 0.3", t_gate(shape, n, -2.0, 0.3))
      for shape, n in (("exchangeable", 30), ("exchangeable", 100), ("right 0.8", 30), ("right 1.2", 30))),
    *(Row("chbias", f"log_ratio=0 (skew-guarded t) [{shape}]", f"{n} pairs", "true mean log ratio 0",
          "true mean log ratio 0.1", log_gate(shape, n, 0.0, 0.1))
      for shape, n in (("normal", 30), ("left 0.8", 30), ("left 1.2", 100))),
)
