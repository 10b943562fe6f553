"""Coverage of StereoSet's 95% intervals (cluster bootstrap over target terms, harness.metrics.stereoset).

Simulated as the data set is built: K target terms, each with its own n_t examples (drawn like the dev split's
26.7 examples per term, at least 3) and its own true chance p_t that the stereotype beats the anti-stereotype
and q_t that a meaningful candidate beats the unrelated one (Beta draws around the population means p and q).
The truth is the population's figure, SS = 100 p, LMS = 100 q, ICAT = LMS x min(SS, 100 - SS) / 50: what the
macro average over terms estimates when terms are a sample of the terms one could have chosen. Each
replicate draws the terms and their examples, computes the family's per-term SS_t and LMS_t (per_target) and
the family's bootstrap interval (bootstrap), and counts whether it holds the truth.

    .venv/bin/python benchmarks/stereoset_coverage.py [--reps 400]

Result (this script, 2026-12-01, 400 replicates per row, draws as in the family: 2,000):
see docs/stereoset.md, "Intervals", for the table this prints.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from harness.metrics.stereoset import bootstrap, icat, per_target

SCENARIOS = (  # (K terms, population p, q): the whole dev split, a bias type's share, a small type (religion)
    (79, 0.60, 0.90), (79, 0.50, 0.90), (32, 0.60, 0.85), (12, 0.65, 0.90), (4, 0.60, 0.90),
)
CONCENTRATION = 20.0  # Beta(p c, (1 - p) c): the spread of the terms' own chances around the population's


def replicate(rng: np.random.Generator, k: int, p: float, q: float, draws: int) -> dict[str, bool]:
    """One simulated data set: does each interval hold the population's figure?"""
    n = np.maximum(3, rng.poisson(26.7, size=k))
    p_t = rng.beta(p * CONCENTRATION, (1 - p) * CONCENTRATION, size=k)
    q_t = rng.beta(q * CONCENTRATION, (1 - q) * CONCENTRATION, size=k)
    rows = []
    for t in range(k):
        pro = rng.random(n[t]) < p_t[t]
        related = (rng.random(n[t]) < q_t[t]).astype(int) + (rng.random(n[t]) < q_t[t]).astype(int)
        rows += [{"target": f"t{t}", "pro": bool(a), "related": int(b)} for a, b in zip(pro, related, strict=True)]
    terms = per_target(pd.DataFrame(rows), chat=False)
    ci = bootstrap(terms, draws=draws, seed=int(rng.integers(1 << 31)))
    truth = {"ss": 100 * p, "lms": 100 * q, "icat": icat(100 * q, 100 * p)}
    return {name: name in ci and ci[name][0] <= truth[name] <= ci[name][1] for name in truth}


def coverage(k: int, p: float, q: float, reps: int, draws: int = 2000, seed: int = 0) -> dict[str, float]:
    """Share of `reps` replicates whose interval holds the truth, per figure."""
    rng = np.random.default_rng(seed)
    hits = [replicate(rng, k, p, q, draws) for _ in range(reps)]
    return {name: float(np.mean([h[name] for h in hits])) for name in ("ss", "lms", "icat")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=400)
    args = parser.parse_args()
    print(f"{'K terms':>8} {'p':>5} {'q':>5} {'SS':>7} {'LMS':>7} {'ICAT':>7}   ({args.reps} replicates)")
    for k, p, q in SCENARIOS:
        cov = coverage(k, p, q, args.reps)
        print(f"{k:>8} {p:>5.2f} {q:>5.2f} {cov['ss']:>7.1%} {cov['lms']:>7.1%} {cov['icat']:>7.1%}")


if __name__ == "__main__":
    main()
