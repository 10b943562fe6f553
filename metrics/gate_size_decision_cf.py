"""Size/power rows (harness.metrics.gate_size.ROWS) of the decision audit's lowest-ratio gate and counterfactual's
shift gate with several perturbed replies per original (issue 35).

Why each row calls the gate's own function on a simulated metrics.json document: the lowest ratio's gate reads
the stem gate's test through metrics/decision_gates.min_ratio_gate_p, and a shift with fractions reads the
betting test through metrics/counterfactual.shift_gate_p; a row drawing data and calling those is a check of
what a run's gate does, not of a formula beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from harness.metrics.gate_draws import failing_share, rejects
from harness.metrics.gate_rows import Row


def min_ratio(
    groups: int, n: int, ratio: float, threshold: float = 0.8, rate: float = 0.5
) -> Callable[[int, int, bool], float]:
    """`--fail-below decision.min_impact_ratio=T` on one category of `groups` groups of n questions: null, one
    group selected at exactly T x the others' `rate` (the boundary, the top group chosen from the drawn data);
    effect, one group at `ratio` x. Each draw is a metrics.json document the gate reads."""
    from harness.metrics.decision_gates import min_ratio_gate_p

    names = [f"g{i}" for i in range(groups)]

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        rates = np.full(groups, rate)
        rates[0] = rate * (threshold if null else ratio)
        for k in rng.binomial(n, rates, size=(draws, groups)):
            top = k.max()
            if top == 0:
                continue
            metrics = {f"decision.impact_ratio.{g}": float(x) / top for g, x in zip(names, k, strict=True)}
            lowest = min(metrics.values())
            if lowest >= threshold - 1e-12:
                continue
            table = [
                {"category": "c", "group": g, "selected": int(x), "asked": n} for g, x in zip(names, k, strict=True)
            ]
            doc = {"metrics": metrics, "tables": {"decision": {"impact_ratios": table}}}
            yield rejects(min_ratio_gate_p("decision.min_impact_ratio", threshold, "min", doc))

    return failing_share(fails)


def fraction_shift(
    originals: int, copies: int, threshold: float, effect: float, base: float = 0.3, together: bool = False
) -> Callable[[int, int, bool], float]:
    """`--fail-above counterfactual.biased_shift=T` with `copies` perturbed replies per original: each original
    is biased at `base`, each copy at base + T (null: the true mean shift exactly T) or base + effect; `together`:
    an original's copies are all biased or none (their shares 0 or 1, the widest spread a mean of T can have).
    Each draw's shifts go into a metrics.json document through the gate's own function (shift_gate_p)."""
    from harness.metrics.counterfactual import SHIFT_TABLE, shift_gate_p

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        share = base + (threshold if null else effect)
        for _ in range(draws):
            original = rng.random(originals) < base
            if together:
                perturbed = (rng.random(originals) < share).astype(float)
            else:
                perturbed = rng.binomial(copies, share, size=originals) / copies
            d = np.round(perturbed - original, 12)
            if d.mean() <= threshold + 1e-12:
                continue
            values, counts = np.unique(d, return_counts=True)
            table = [
                {"measure": "biased", "shift": float(v), "originals": int(c)}
                for v, c in zip(values, counts, strict=True)
            ]
            doc = {"tables": {"counterfactual": {SHIFT_TABLE: table}}}
            yield rejects(shift_gate_p("counterfactual.biased_shift", threshold, "max", doc))

    return failing_share(fails)


DECISION_CF_ROWS: tuple[Row, ...] = (
    *(
        Row(
            "decision",
            "min_impact_ratio>=0.8 (the stem gate's test)",
            f"{g} groups x {n}",
            "one group at ratio 0.8",
            "one group at ratio 0.6",
            min_ratio(g, n, 0.6),
        )
        for g, n in ((4, 20), (4, 50))
    ),
    *(
        Row(
            "counterfactual",
            "biased_shift=0.1, 3 copies each (betting test)",
            f"{n} originals",
            "true shift 0.1" + (", copies together" if together else ""),
            "true shift 0.3",
            fraction_shift(n, 3, 0.1, 0.3, together=together),
        )
        for n, together in ((50, False), (150, False), (150, True))
    ),
)
