"""Size and power of the betting test of a bounded mean (harness.metrics.bounded_mean) beside Hoeffding's and a
one-sample t-test's, by simulation.

    nice -n 15 .venv/bin/python benchmarks/bounded_mean_size.py [--draws N] [--seed S]

H0 "mean <= 0.6" on [0, 1] (StereoSet's SS gate at 60, scaled), drawn at the boundary mean 0.6 from a Bernoulli
(0 or 1: the largest variance a mean of 0.6 allows), a beta (3.6, 2.4), and a left-skewed two-point law (0 with
probability 1/13, else 0.65: the t-test's worst kind, a rare low value), for 20, 50 and 200 units; the power at
mean 0.7 (Bernoulli, beta; the two-point law moved to 0 w.p. 1/13, else 0.758). The last line gives wall and CPU
seconds and the load average it ran at. docs/reports.md ("Bounded means") holds its output.
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from scipy import stats

from harness.metrics import bounded_mean as bm

T = 0.6


def draw(rng: np.random.Generator, law: str, mean: float, n: int) -> np.ndarray:
    """n values in [0, 1] of the law with the given mean."""
    if law == "bernoulli":
        return (rng.random(n) < mean).astype(float)
    if law == "beta":
        return rng.beta(6 * mean, 6 * (1 - mean), n)
    high = mean * 13 / 12  # 0 with probability 1/13, else `high`: the mean is 12/13 high
    return np.where(rng.random(n) < 1 / 13, 0.0, high)


def rates(law: str, n: int, mean: float, draws: int, seed: int) -> tuple[float, float, float]:
    """The share of draws each test (betting, Hoeffding, t) rejects H0 "mean <= T" at 5%."""
    rng = np.random.default_rng(seed)
    hits = np.zeros(3)
    for _ in range(draws):
        x = draw(rng, law, mean, n)
        t_p = stats.ttest_1samp(x, T, alternative="greater").pvalue if x.std() > 0 else float(x.mean() <= T)
        hits += [bm.betting_p(x, T) < 0.05, bm.hoeffding_p(x, T) < 0.05, t_p < 0.05]
    return tuple(hits / draws)  # type: ignore[return-value]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start, cpu = time.perf_counter(), time.process_time()
    sigma = math.sqrt(0.05 * 0.95 / args.draws)
    print(f"draws per cell: {args.draws} (a size's binomial error at 5%: +-{sigma:.3f}); H0 mean <= {T}")
    print("| law | units | size: betting | Hoeffding | t-test | power at 0.7: betting | Hoeffding | t-test |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for i, law in enumerate(("bernoulli", "beta", "two-point")):
        for j, n in enumerate((20, 50, 200)):
            seed = args.seed + 10 * i + 2 * j
            size = rates(law, n, T, args.draws, seed)
            power = rates(law, n, 0.7, args.draws, seed + 1)
            print(f"| {law} | {n} | " + " | ".join(f"{v:.3f}" for v in (*size, *power)) + " |", flush=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"({time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU, load average {load})")


if __name__ == "__main__":
    main()
