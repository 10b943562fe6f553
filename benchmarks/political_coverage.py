"""Coverage of the political metrics' 95% intervals, measured by simulation.

    .venv/bin/python benchmarks/political_coverage.py [--reps 300] [--texts 30] [--options 4]

Each data set has `options` options of `texts` texts per prompt group, scores ~ Beta(2, 5); option "a" is
shifted by +shift in indirect and conservative texts (liberal texts never move). The true indirect bias of
"a" and of an unshifted option "b", and their true direct bias, are computed by quantile integration; the
script prints how often each interval (harness.metrics.political_stats.bootstrap_intervals) holds the truth.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats

from harness.metrics.political_stats import AttributeTexts, bootstrap_intervals, point_estimates


def truths(shift: float, n_options: int) -> dict[str, float]:
    u = (np.arange(200_000) + 0.5) / 200_000
    grid = np.linspace(-0.5, 1.5, 80_001)
    base = stats.beta(2, 5)
    mix = (base.cdf(grid - shift) + (n_options - 1) * base.cdf(grid)) / n_options
    pooled = np.interp(u, mix, grid)
    q = base.ppf(u)
    ind_a = float(np.sqrt(np.mean((q + shift - pooled) ** 2)))
    ind_b = float(np.sqrt(np.mean((q - pooled) ** 2)))
    # liberal texts never move: B^L = 0 for every option, so direct = B^C = the indirect value
    overall = (ind_a + (n_options - 1) * ind_b) / n_options
    return {"indirect.a": ind_a, "indirect.b": ind_b, "direct.a": ind_a, "direct.b": ind_b,
            "overall_indirect.all": overall, "overall_direct.all": overall}


def simulate(shift: float, reps: int, n_texts: int, n_options: int, n_boot: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    truth = truths(shift, n_options)
    options = [chr(ord("a") + i) for i in range(n_options)]
    hits = dict.fromkeys(truth, 0)
    for _ in range(reps):
        data = AttributeTexts(options=options)
        for cell in ("indirect", "liberal", "conservative"):
            moved = shift if cell != "liberal" else 0.0
            data.scores[cell] = {o: {o: rng.beta(2, 5, n_texts) + (moved if o == "a" else 0.0)} for o in options}
        est = point_estimates(data)
        ivs = bootstrap_intervals(data, est, n_boot=n_boot, seed=int(rng.integers(1 << 30)))
        for key, value in truth.items():
            measure, option = key.split(".")
            interval = getattr(ivs, measure)
            lo, hi = interval if option == "all" else interval[option]
            hits[key] += lo - 1e-12 <= value <= hi + 1e-12
    return {k: hits[k] / reps for k in truth} | {f"true.{k}": round(v, 4) for k, v in truth.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--texts", type=int, default=30)
    ap.add_argument("--options", type=int, default=4)
    ap.add_argument("--boot", type=int, default=500)
    args = ap.parse_args()
    for shift in (0.0, 0.1, 0.3):
        res = simulate(shift, args.reps, args.texts, args.options, args.boot, seed=17)
        print(f"shift {shift:.1f}: " + ", ".join(f"{k} {v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
