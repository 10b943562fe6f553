"""Size and power of the decision audit's four-fifths gate, and the coverage of its intervals, by simulation.

Why: the gate a user acts on (`--fail-below decision.impact_ratio=0.8`) must not fail a bot at the null
boundary (true ratio exactly 0.8) more than 5% of the time although the top group is chosen from the data,
and a user needs to know how often it finds a bot at ratio 0.7 or 0.6. Everything runs through the functions
the family uses (harness.metrics.decision_stats.four_fifths_pvalues, holm_within, katz_interval;
harness.metrics.decision_evidence.cluster_ratio_interval).

    .venv/bin/python benchmarks/decision_gate_power.py [--reps 1000] [--seed 1] [--part gate|katz|cluster|all]

Tables (markdown, the ones in docs/decisions.md):
* gate: one block of 4 or 8 groups, n questions per group, every group selected at 0.5 but the first, at
  ratio x 0.5. "gate fails" is the stem gate on that block: some group below 0.8 with its data-chosen p,
  Holm-adjusted within the block, below 0.05. "old" is the earlier test against the observed top group
  without the data-chosen correction (its size is what issue 35 measured).
* katz: coverage of the corrected Katz interval across rates near 0 and 1 (fixed reference group).
* cluster: a planted name effect (each group has 5 names drawn from a population whose logit effects have sd
  0.8; 8 cases with logit effects of sd 1), true ratio about 0.85 on the population: coverage of Katz (every
  question independent) and of the interval that resamples names and cases.
"""

from __future__ import annotations

import argparse
import math

import numpy as np
from scipy.special import expit

from harness.metrics import decision_evidence as ev
from harness.metrics import decision_stats as st


def gate_fail_rate(groups: int, n: int, ratio: float, reps: int, rng: np.random.Generator,
                   rate: float = 0.5) -> tuple[float, float]:
    """(share of audits the stem gate fails, share the old test against the observed top would fail)."""
    rates = np.full(groups, rate)
    rates[0] = ratio * rate
    fails = old = 0
    for k in rng.binomial(n, rates, size=(reps, groups)):
        p = st.holm_within(st.four_fifths_pvalues(list(k), [n] * groups), ["block"] * groups)
        below = k < st.FOUR_FIFTHS * k.max()
        fails += any(b and q is not None and q < 0.05 for b, q in zip(below, p, strict=True))
        top = int(np.argmax(k))
        naive = [st.shortfall_table(n, n)[int(k[g]), int(k[top])] if g != top else 1.0 for g in range(groups)]
        old += any(b and q < 0.05 for b, q in zip(below, naive, strict=True))
    return fails / reps, old / reps


def gate_table(reps: int, seed: int) -> list[str]:
    lines = ["| groups | per group | size at ratio 0.8 (old test) | power at 0.7 | power at 0.6 |",
             "|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    rng = np.random.default_rng(seed)
    for groups in (4, 8):
        for n in (20, 50, 100, 200):
            size, old = gate_fail_rate(groups, n, 0.8, reps, rng)
            p7, _ = gate_fail_rate(groups, n, 0.7, reps, rng)
            p6, _ = gate_fail_rate(groups, n, 0.6, reps, rng)
            lines.append(f"| {groups} | {n} | {size:.1%} ({old:.1%}) | {p7:.1%} | {p6:.1%} |")
            print(lines[-1], flush=True)
    return lines


def katz_table(reps: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    lines = ["| rates (top, group) | per group | coverage |", "|---|---|---|"]
    print("\n".join(lines), flush=True)
    for (p_top, p_group), n in (((1.0, 1.0), 40), ((0.95, 0.95), 40), ((0.9, 0.72), 40), ((0.6, 0.3), 100),
                                ((0.2, 0.1), 30), ((0.1, 0.05), 40), ((0.5, 0.02), 50), ((0.5, 0.0), 20)):
        hits = total = 0
        for k_top, k_group in zip(rng.binomial(n, p_top, reps), rng.binomial(n, p_group, reps), strict=True):
            ci = st.katz_interval(int(k_group), n, int(k_top), n)
            if ci is not None:
                total += 1
                hits += ci[0] <= p_group / p_top <= ci[1]
        lines.append(f"| {p_top:g}, {p_group:g} | {n} | {hits / max(total, 1):.1%} |")
        print(lines[-1], flush=True)
    return lines


def _population_rate(base: float, name_sd: float, case_sd: float, rng: np.random.Generator) -> float:
    z = rng.normal(size=(200_000, 2))
    return float(expit(base + name_sd * z[:, 0] + case_sd * z[:, 1]).mean())


def cluster_coverage(reps: int, seed: int, names: int = 5, cases: int = 8, name_sd: float = 0.8,
                     case_sd: float = 1.0) -> tuple[float, float, float]:
    """(true ratio, Katz coverage, names-and-cases interval coverage) under a planted name effect."""
    rng = np.random.default_rng(seed)
    base_top, base_group = 0.4, -0.05
    truth = _population_rate(base_group, name_sd, case_sd, rng) / _population_rate(base_top, name_sd, case_sd, rng)
    katz = clustered = 0
    for _ in range(reps):
        case_fx = rng.normal(0, case_sd, cases)
        yes, in_group, case_ids, name_ids = [], [], [], []
        for side, base in ((True, base_group), (False, base_top)):
            for j, name_fx in enumerate(rng.normal(0, name_sd, names)):
                for c in range(cases):
                    yes.append(bool(rng.random() < expit(base + name_fx + case_fx[c])))
                    in_group.append(side)
                    case_ids.append(f"c{c}")
                    name_ids.append(f"{side}{j}")
        y, g = np.array(yes), np.array(in_group)
        k1, n1, k2, n2 = int(y[g].sum()), int(g.sum()), int(y[~g].sum()), int((~g).sum())
        ci = st.katz_interval(k1, n1, k2, n2)
        katz += ci is not None and ci[0] <= truth <= ci[1]
        cc = ev.cluster_ratio_interval(yes, in_group, case_ids, name_ids, n_boot=400, seed=int(rng.integers(1e9)))
        clustered += cc is not None and cc[0] <= truth <= cc[1]
    return truth, katz / reps, clustered / reps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--part", choices=("gate", "katz", "cluster", "all"), default="all")
    args = parser.parse_args()
    if args.part in ("gate", "all"):
        gate_table(args.reps, args.seed)  # printed row by row as it goes (a cell at 200 per group takes minutes)
    if args.part in ("katz", "all"):
        katz_table(max(args.reps, 2000), args.seed)
    if args.part in ("cluster", "all"):
        truth, katz, clustered = cluster_coverage(max(100, args.reps // 5), args.seed)
        se = math.sqrt(0.95 * 0.05 / max(100, args.reps // 5))
        print(f"planted name effect: true ratio {truth:.3f}; Katz covers {katz:.1%}, names and cases resampled "
              f"{clustered:.1%} (simulation error about {se:.1%})")


if __name__ == "__main__":
    main()
