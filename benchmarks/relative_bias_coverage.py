"""Coverage of the BiasAsker intervals and the permutation test's false-positive rate, by simulation.

Synthetic bots with known per-group preference rates answer n questions per group; each draw is scored
with the harness's own functions (harness.metrics.stats) and we count how often the 95% intervals hold
the true value:
- the paper's relative bias rate V: truth = what V averages to at these group sizes,
  Var(p) + ((G-1)/G^2) * sum p(1-p)/n;
- the noise-corrected relative bias rate: truth = Var(p), the spread of the bot's true rates;
- each group's preference rate (Clopper-Pearson): truth = p of that group;
and, when all groups are equal, how often the permutation test says p < 0.05 (it should be <= 5%).

    python benchmarks/relative_bias_coverage.py                # the full table (a few minutes)
    python benchmarks/relative_bias_coverage.py --draws 200    # quicker, rougher
    python benchmarks/relative_bias_coverage.py --only maximum # the scenarios at the largest variance

tests/metrics/test_relative_bias_coverage.py runs the acceptance scenarios through `simulate` with 1,000 draws.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np

from harness.metrics.stats import (
    exact_intervals,
    max_population_variance,
    permutation_pvalues,
    variance_estimates,
)

#: name -> true preference rate per group. "equal" rows are where the permutation test must hold its level.
SCENARIOS: dict[str, tuple[float, ...]] = {
    "3 groups equal at 0.3": (0.3, 0.3, 0.3),
    "7 groups equal at 0.5": (0.5,) * 7,
    "12 groups equal at 0.1": (0.1,) * 12,
    "4 groups: two at 0, two at 1": (0.0, 0.0, 1.0, 1.0),
    "5 groups, one at 0 and one at 1": (0.0, 1.0, 0.3, 0.3, 0.5),
    "7 groups, one at 0 and one at 1": (0.0, 1.0, 0.2, 0.4, 0.5, 0.6, 0.8),
    "6 groups, two at 0": (0.0, 0.0, 0.2, 0.2, 0.2, 0.2),
    "7 groups spread 0.1-0.9": tuple(np.round(np.linspace(0.1, 0.9, 7), 4)),
    "7 groups spread 0.35-0.55": tuple(np.round(np.linspace(0.35, 0.55, 7), 4)),
    "5 groups, one apart (0.3 vs 0.6)": (0.3, 0.3, 0.3, 0.3, 0.6),
    # at and near the largest variance G rates can have (max_population_variance: 1/4, 2/9 for three)
    "2 groups at 0 and 1 (the maximum)": (0.0, 1.0),
    "3 groups at 0, 1, 1 (the maximum)": (0.0, 1.0, 1.0),
    "3 groups near the maximum (.02, .98, .98)": (0.02, 0.98, 0.98),
    "4 groups near the maximum (.03 x2, .97 x2)": (0.03, 0.03, 0.97, 0.97),
    "5 groups near the maximum (.05 x2, .95 x3)": (0.05, 0.05, 0.95, 0.95, 0.95),
    # near the lower bound of the rates and of the variance at once
    "4 groups equal at 0.02": (0.02,) * 4,
}
SIZES = (5, 20, 100)


@dataclass(frozen=True)
class Coverage:
    """Shares of draws (0-1): interval held the truth, held its own estimate, stayed inside what the
    statistic can take ([0, max_population_variance(G)] for both variance intervals); permutation p < 0.05."""

    paper: float
    corrected: float
    preference: float
    contains_estimate: float
    permutation_rejects: float
    in_range: float = 1.0


def simulate(rates: tuple[float, ...], n: int, *, draws: int = 1000, seed: int = 0, n_boot: int = 1000,
             n_perm: int = 1000) -> Coverage:
    """Score `draws` synthetic runs of a bot with these true group rates and n questions per group."""
    rng = np.random.default_rng(seed)
    p = np.asarray(rates, dtype=float)
    g = len(p)
    sizes = np.full(g, n)
    true_var = float(p.var())
    true_paper = true_var + (g - 1) / g**2 * float(np.sum(p * (1 - p) / n))
    ks = rng.binomial(n, p, size=(draws, g))
    est = variance_estimates(ks, sizes, n_boot=n_boot, seed=seed + 1)
    p_alike = permutation_pvalues(ks, sizes, n_perm=n_perm, seed=seed + 2)
    # as harness.metrics.stats.agree_with_test: the corrected interval reaches 0 unless the test rejects
    est["corrected_low"] = np.where(p_alike >= 0.05, 0.0, est["corrected_low"])
    eps = 1e-12  # float sums: an interval [0, 0] holds a true variance of exactly 0
    paper = (est["low"] - eps <= true_paper) & (true_paper <= est["high"] + eps)
    corrected = (est["corrected_low"] - eps <= true_var) & (true_var <= est["corrected_high"] + eps)
    holds = ((est["low"] <= est["value"]) & (est["value"] <= est["high"])
             & (est["corrected_low"] <= est["corrected"]) & (est["corrected"] <= est["corrected_high"]))
    upper = max_population_variance(g) + eps  # a variance at the maximum computes to it within float rounding
    in_range = ((est["low"] >= 0) & (est["high"] <= upper) & (est["corrected_low"] >= 0)
                & (est["corrected_high"] <= upper))
    low, high = exact_intervals(ks, np.broadcast_to(sizes, ks.shape))
    pref = (low <= p) & (p <= high)
    in_range &= np.all((low >= 0) & (high <= 1), axis=1)
    rejects = p_alike < 0.05
    return Coverage(paper=float(paper.mean()), corrected=float(corrected.mean()), preference=float(pref.mean()),
                    contains_estimate=float(holds.mean()), permutation_rejects=float(rejects.mean()),
                    in_range=float(in_range.mean()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples per draw (the harness default)")
    ap.add_argument("--perm", type=int, default=2000, help="permutations per draw (the harness default)")
    ap.add_argument("--only", default="", help="only the scenarios whose name contains this text (e.g. maximum)")
    args = ap.parse_args()
    print(f"{args.draws} draws per row; 95% intervals; permutation test at 5% (equal groups: its false-positive rate)")
    print(f"{'scenario':44s} {'n':>4s} {'V (paper)':>10s} {'corrected':>10s} {'pref rate':>10s} "
          f"{'holds est':>10s} {'in range':>10s} {'perm p<.05':>10s}")
    for name, rates in SCENARIOS.items():
        if args.only not in name:
            continue
        for n in SIZES:
            t = time.perf_counter()
            c = simulate(rates, n, draws=args.draws, n_boot=args.boot, n_perm=args.perm)
            print(f"{name:44s} {n:4d} {c.paper:10.3f} {c.corrected:10.3f} {c.preference:10.3f} "
                  f"{c.contains_estimate:10.3f} {c.in_range:10.3f} {c.permutation_rejects:10.3f}   "
                  f"({time.perf_counter() - t:.1f}s)", flush=True)


if __name__ == "__main__":
    main()
