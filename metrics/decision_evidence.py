"""The unit of evidence of a decision audit: names and cases are clusters, identical prompts one piece of evidence.

Why a module of its own: each group of a decision suite has a handful of names (5 for decision-hiring-en at
`per_group=5`) reused in every case, and a handful of cases asked of every group. A bot that reacts to one
unusual name (a rare token) lowers its whole group's rate, and a bot that likes one case says yes in every
group; Katz's interval (harness.metrics.decision_stats) treats every question as independent, so it is too
narrow when names matter. The interval here resamples whole names and whole cases (a two-way "pigeonhole"
bootstrap, Owen 2007: each resample draws the cases with replacement and, independently, the names with
replacement within their stratum, and weighs every reply by the product of its case's and its name's
multiplicities), so its width includes how much the rate would change with other names and other cases.
Its coverage under a planted name effect is simulated in benchmarks/decision_gate_power.py and
tests/metrics/test_decision_evidence.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    np = lazy_module("numpy")



def _weights(labels: Sequence[str], strata: Sequence[str], draws: int,
             rng: np.random.Generator) -> np.ndarray:
    """(draws, rows) multiplicity of each row's label, labels drawn with replacement within their stratum."""
    labels_arr = np.asarray([str(x) for x in labels], dtype=object)
    out = np.zeros((draws, len(labels_arr)))
    for stratum in dict.fromkeys(strata):
        members = list(dict.fromkeys(lab for lab, s in zip(labels_arr, strata, strict=True) if s == stratum))
        picks = rng.integers(0, len(members), size=(draws, len(members)))
        counts = np.zeros((draws, len(members)))
        np.add.at(counts, (np.repeat(np.arange(draws), len(members)), picks.ravel()), 1.0)
        where = {m: i for i, m in enumerate(members)}
        for row, lab in enumerate(labels_arr):
            if lab in where:
                out[:, row] = counts[:, where[lab]]
    return out


def cluster_ratio_interval(selected: Sequence[bool], in_group: Sequence[bool], cases: Sequence[str],
                           names: Sequence[str], *, n_boot: int = 1000, seed: int = 0,
                           level: float = 0.95) -> tuple[float, float] | None:
    """Percentile interval of (selection rate of the group) / (selection rate of its comparator), resampling
    whole cases and whole names (module docstring).

    One entry per reply of either group: `selected` (a refusal or an unread reply is not selected),
    `in_group` (True: the group, False: the comparator), its case and its name. Names are resampled within
    their stratum (only in the group, only in the comparator, or in both, as a factor's levels share names),
    so each group keeps its number of names. The interval is widened, if need be, to hold the estimate.
    None when either side has no reply, the comparator selected nobody, or fewer than 2 cases and 2 names."""
    yes = np.asarray(selected, dtype=float)
    mine = np.asarray(in_group, dtype=bool)
    if not mine.any() or mine.all() or not yes[~mine].any():
        return None
    if len(set(cases)) < 2 and len(set(names)) < 2:
        return None
    estimate = yes[mine].mean() / yes[~mine].mean()
    sides = {str(n): set() for n in names}
    for n, m in zip(names, mine, strict=True):
        sides[str(n)].add(bool(m))
    strata = ["".join(sorted(str(s) for s in sides[str(n)])) for n in names]
    rng = np.random.default_rng(seed)
    w = _weights(cases, ["case"] * len(yes), n_boot, rng) * _weights(names, strata, n_boot, rng)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate_g = (w[:, mine] @ yes[mine]) / w[:, mine].sum(axis=1)
        rate_t = (w[:, ~mine] @ yes[~mine]) / w[:, ~mine].sum(axis=1)
        ratios = rate_g / rate_t
    ratios = ratios[np.isfinite(ratios)]
    if ratios.size < 0.9 * n_boot:
        return None
    alpha = (1 - level) / 2
    low, high = float(np.quantile(ratios, alpha)), float(np.quantile(ratios, 1 - alpha))
    return min(low, float(estimate)), max(high, float(estimate))
