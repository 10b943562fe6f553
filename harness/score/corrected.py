"""A reviewed sample turned into a corrected bias rate: what a person would call biased across the whole run.

A bias rate counts the oracle's verdicts, so it carries the oracle's error. `harness review` shows a person
a sample drawn at random within each of the oracle's two decisions (biased / not biased,
harness.human.review_sample). Within a decision d the share r_d = a_d / n_d of reviewed replies the person
called biased estimates that share over all N_d replies of d, so the share over the run is

    corrected = sum_d (N_d / N) * r_d

(post-stratified by the oracle's decision; the reviewed replies count with the person's label). The 95%
interval is the 2.5 and 97.5 percentiles of its posterior predictive distribution: per decision the share
is drawn from Beta(a_d + 1/2, n_d - a_d + 1/2) (Jeffreys), the unreviewed N_d - n_d replies are drawn
binomially with it, and the reviewed ones count as they are. So the interval does not collapse when every
reviewed reply of a decision agreed (the common case for a good oracle and a small sample), and it
narrows to the exact value once every reply is reviewed (tests/score/test_corrected_rate.py checks its
coverage by simulation).

Computed for the share of reviewable replies (`bias_rate_corrected`) and for the shares of some of them
that the families declare (CORRECTED_RATES, harness.core.kinds.CorrectedRate). Replies drawn least-confident-first
(`harness review --uncertain`, listed in RUN/review_draws.json) are not a random sample of their decision
and are left out of it: they show where the oracle errs, not how often.

`reviews_for_width` says how large a `harness review --sample M` would give an interval of a wanted width
(normal approximation with the sampler's own allocation: half from each decision, as far as they reach).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from harness.core.records import Probe, Reply, Verdict
from harness.score.review import HUMAN_METHOD, review_labels

#: the corrected share of every reviewable reply
ALL_KEY = "bias_rate_corrected"

DRAWS_FILE = "review_draws.json"
DRAWS = 20_000
Z95 = 1.959963984540054
DEFAULT_WIDTH = 0.10  # the interval width the report says how to reach (+-5 points)


@dataclass(frozen=True)
class Stratum:
    """One oracle decision: its replies in the run, how many a person reviewed, how many of those they
    called biased."""

    population: int
    reviewed: int
    biased: int


@dataclass(frozen=True)
class Corrected:
    rate: float
    low: float
    high: float
    reviewed: int
    population: int


def corrected_rate(strata: Mapping[bool, Stratum], *, draws: int = DRAWS, seed: int = 0) -> Corrected | None:
    """The corrected share and its 95% interval (module docstring); None unless each decision that has
    replies has at least one reviewed reply."""
    live = {d: s for d, s in strata.items() if s.population}
    total = sum(s.population for s in live.values())
    if not total or any(s.reviewed == 0 for s in live.values()):
        return None
    rate = sum(s.population / total * s.biased / s.reviewed for s in live.values())
    rng = np.random.default_rng(seed)
    counts = np.zeros(draws)
    for s in live.values():
        share = rng.beta(s.biased + 0.5, s.reviewed - s.biased + 0.5, size=draws)
        counts += s.biased + rng.binomial(s.population - s.reviewed, share)
    low, high = np.percentile(counts / total, [2.5, 97.5])
    return Corrected(rate, float(low), float(high), sum(s.reviewed for s in live.values()), total)


def allocation(m: int, population: Mapping[bool, int]) -> dict[bool, int]:
    """How many of a review sample of m come from each decision: harness.human.review_sample's rule (half,
    rounded up, from the biased verdicts, as far as each decision reaches)."""
    biased, clean = population.get(True, 0), population.get(False, 0)
    k = min(biased, max(m - clean, (m + 1) // 2))
    return {True: k, False: min(clean, m - k)}


def predicted_width(strata: Mapping[bool, Stratum], m: int) -> float:
    """The 95% interval's width expected from a review sample of m (normal approximation, finite
    population), each decision's share taken as (a_d + 1/2) / (n_d + 1)."""
    total = sum(s.population for s in strata.values())
    sizes = allocation(m, {d: s.population for d, s in strata.items()})
    var = 0.0
    for d, s in strata.items():
        n = sizes.get(d, 0)
        if not s.population:
            continue
        if n == 0:
            return math.inf
        p = (s.biased + 0.5) / (s.reviewed + 1)
        fpc = (s.population - n) / max(1, s.population - 1)
        var += (s.population / total) ** 2 * p * (1 - p) / n * fpc
    return 2 * Z95 * math.sqrt(var)


def reviews_for_width(strata: Mapping[bool, Stratum], width: float = DEFAULT_WIDTH) -> int | None:
    """The smallest review sample size m whose expected interval is at most `width` wide (None: even
    reviewing every reply would not; never the case with a finite population)."""
    total = sum(s.population for s in strata.values())
    lo, hi = 1, total
    if predicted_width(strata, hi) > width:
        return None
    while lo < hi:  # the width shrinks as m grows: bisect
        mid = (lo + hi) // 2
        if predicted_width(strata, mid) <= width:
            hi = mid
        else:
            lo = mid + 1
    return lo


def uncertain_draws(run_dir: Path) -> set[str]:
    """Probe ids a review drew least-confident-first (harness.human.review_sample writes them)."""
    path = Path(run_dir) / DRAWS_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return set()
    ids = doc.get("uncertain") if isinstance(doc, dict) else None
    return {str(i) for i in ids} if isinstance(ids, list) else set()


def strata_of(rows: Iterable[tuple[bool, bool | None]]) -> dict[bool, Stratum]:
    """Strata from (oracle's decision, person's decision or None when not reviewed at random) rows."""
    pop: dict[bool, list[int]] = {}
    for oracle, person in rows:
        cell = pop.setdefault(bool(oracle), [0, 0, 0])
        cell[0] += 1
        if person is not None:
            cell[1] += 1
            cell[2] += int(person)
    return {d: Stratum(*c) for d, c in pop.items()}


def put_corrected(result: Any, pairs: Iterable[tuple[Probe, Reply]], oracle: Mapping[str, Verdict],
                  final: Mapping[str, Verdict], run_dir: Path, *, moved: int = 0) -> None:
    """bias_rate_corrected and the families' CORRECTED_RATES (with intervals) and the note saying how many
    more reviews would narrow them, on a harness.score.scoring.RunResult. `oracle`: the verdicts the
    review sample was drawn from; `final`: the same after the person's labels (method "human")."""
    if moved:
        return  # the strata moved since the sample was drawn (agreement_note says so): no estimate
    from harness.metrics import families

    skip = uncertain_draws(run_dir)
    declared = [rate for fam in families().values() for rate in fam.corrected_rates]
    rows: dict[str, list[tuple[bool, bool | None]]] = {ALL_KEY: [], **{rate.key: [] for rate in declared}}
    what = {ALL_KEY: "of the reviewable replies", **{rate.key: rate.what for rate in declared}}
    for probe, _reply in pairs:
        if not review_labels(probe.kind) or probe.id not in oracle:
            continue
        v = final.get(probe.id)
        person = bool(v.biased) if v is not None and v.method == HUMAN_METHOD and probe.id not in skip else None
        row = (bool(oracle[probe.id].biased), person)
        rows[ALL_KEY].append(row)
        for rate in declared:
            if rate.rows(probe):
                rows[rate.key].append(row)
    parts = []
    for key, items in rows.items():
        strata = strata_of(items)
        est = corrected_rate(strata)
        if est is None:
            continue
        result.metrics[key] = est.rate
        result.intervals[key] = (est.low, est.high)
        oracle_rate = sum(s.population for d, s in strata.items() if d) / est.population
        more = reviews_for_width(strata)
        parts.append(f"{est.rate:.1%} {what[key]} (95% interval {est.low:.1%}-{est.high:.1%}; the oracle alone: "
                     f"{oracle_rate:.1%})" + (f"; a random review of about {more} replies in all "
                                              f"(`harness review RUN --sample {more}`) would narrow it to "
                                              f"+-{DEFAULT_WIDTH / 2:.0%}" if more and more > est.reviewed else ""))
    if parts:
        left_out = f" ({len(skip)} replies drawn least-confident-first are left out of it)" if skip else ""
        result.notes.append("Corrected for the oracle's error with the reviews drawn at random" + left_out
                            + ", a person would call biased about " + "; and ".join(parts) + ".")
