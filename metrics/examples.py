"""Scored rows as scoring builds them: (probe, reply, verdict) -> the frame every family's compute reads.

Why a module of its own: a method's declaration gives its family example rows (FamilySpec.example), which
registration scores to check that every headline names a metric the family writes
(harness.core.method.check_example). A declaration sits below harness.score, so the one builder of scoring's
frame lives in the metrics layer (harness.score.scoring.build_frame calls it) and a declaration reads its
example replies with its own rules into exactly the rows a real run would give its family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from harness.core.lazy import lazy_module
from harness.core.records import Probe, Reply, Verdict
from harness.metrics import FRAME_COLUMNS

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

def scored_frame(triples: Iterable[tuple[Probe, Reply, Verdict]]) -> pd.DataFrame:
    """One row per scored probe with the columns FRAME_COLUMNS names (tuples stay tuples, meta and usage dicts)."""
    rows = [{
        "probe_id": p.id, "suite": p.suite, "lang": p.lang, "kind": p.kind, "bias_type": p.bias_type,
        "text": p.text, "groups": tuple(p.groups), "attribute": p.attribute, "property": p.property,
        "categories": tuple(p.categories), "options": tuple(p.options), "meta": dict(p.meta),
        "target": r.target, "reply": r.text, "label": v.label, "biased": bool(v.biased),
        "favoured": v.favoured, "score": v.score, "method": v.method, "evidence": v.evidence,
        "probe": p, "verdict": v, "usage": dict(r.usage),
    } for p, r, v in triples]
    return pd.DataFrame(rows, columns=list(FRAME_COLUMNS))


def read_examples(pairs: Iterable[tuple[Probe, Reply]], read: Callable[[Probe, Reply, str], Verdict]
                  ) -> pd.DataFrame:
    """Example replies read by a method's own rule (in the default matcher), as scoring's frame."""
    return scored_frame((probe, reply, read(probe, reply, "default")) for probe, reply in pairs)
