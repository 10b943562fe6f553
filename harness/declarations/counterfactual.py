"""Counterfactual pairs (`-p perturb=AXIS`): a probe and its demographic-swapped copy, read by their own
family as originals and here as pairs (its family scores the rows whose probe meta holds its META_KEY)."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method
from harness.declarations import examples
from harness.metrics import counterfactual as family

METHOD = Method(
    name="counterfactual",
    family=FamilySpec(compute=family.compute, meta_key=family.META_KEY, headline=family.HEADLINE,
                      gate_silence=family.GATE_SILENCE, chance_gates=family.CHANCE_GATES, gates=family.DEFAULT_GATES,
                      estimate_gates=family.ESTIMATE_GATES,
                      summary=family.summary,
                      example=examples.counterfactual),
)
