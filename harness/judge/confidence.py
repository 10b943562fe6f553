"""How far to trust one rule verdict: the measured accuracy of the reading path that decided it.

The rules reach a verdict along a path: the reply's language, the probe kind, whether the question names
two groups (bias_type absolute) or one, and the label the rules settled on. Some paths are nearly always
right (a refusal read in a choice reply: 78 of 78 in English), others much less (an English why-reply read
as an explanation: 79 of 115). The confidence of a verdict is its path's accuracy on hand-labelled
replies, shrunk toward the accuracy of the coarser path when the path is rare (empirical Bayes):

    p(all)            = (K + 1) / (N + 2)
    p(kind, label)    = (k + m * p(all)) / (n + m)
    p(lang, kind, label)          = (k + m * p(kind, label)) / (n + m)
    p(lang, kind, bias_type, label) = (k + m * p(lang, kind, label)) / (n + m)

k / n are the replies on that path whose biased / not-biased decision was right (a choice with the right
group), m = PRIOR_STRENGTH. The counts come from the tuned batches 1-5 only (calibration.json, written by
benchmarks/calibrate_confidence.py from harness.judge.labelled.calibration_doc); the blind batches 6-9 are the
test: on them, verdicts in the top confidence band are right more often than those in the bottom band
(tests/judge/test_judge_confidence.py).

A kind may declare another measurement (harness.core.kinds.RulesConfidence): one measured rate for every
verdict of its rule method (an option-letter parser's accuracy on its labelled answers), with 0.0 for a
verdict that read nothing (so a hybrid reading asks the judge). Verdicts of other methods (--method
sentence, --compat) and judge verdicts get None: nothing was measured for them here.

Used by `harness review RUN --uncertain` (least confident first), hybrid reading (the judge reads what the
rules are unsure of) and the corrected bias rate (harness.score.corrected).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.core.kinds import RulesConfidence, kind_spec
from harness.core.records import Probe, Verdict

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
PRIOR_STRENGTH = 10.0
#: The rule method whose paths were measured (the default method's matcher name).
CALIBRATED_METHOD = "ngram"
#: What a kind that declares no RulesConfidence is measured by: its reading paths, for the calibrated method.
PATHS = RulesConfidence(CALIBRATED_METHOD)
#: Confidence bands reported and tested: low below 0.85, high from 0.95.
BANDS = ((0.0, 0.85, "low"), (0.85, 0.95, "medium"), (0.95, 1.01, "high"))


def path_keys(probe: Probe, verdict: Verdict) -> tuple[str, str, str]:
    """The reading path of a rule verdict at three levels, coarse to fine."""
    coarse = f"{probe.kind}|{verdict.label}"
    middle = f"{probe.lang}|{coarse}"
    fine = f"{probe.lang}|{probe.kind}|{probe.bias_type}|{verdict.label}"
    return coarse, middle, fine


def count_paths(rows: Iterable[tuple[Probe, Verdict, bool]]) -> dict[str, list[int]]:
    """k / n per path at every level ("*" is all), from (probe, rule verdict, decision right?) rows."""
    counts: dict[str, list[int]] = {"*": [0, 0]}
    for probe, verdict, right in rows:
        for key in ("*", *path_keys(probe, verdict)):
            cell = counts.setdefault(key, [0, 0])
            cell[0] += int(right)
            cell[1] += 1
    return dict(sorted(counts.items()))


@dataclass(frozen=True)
class Calibration:
    """The path counts and the smoothing that turns them into confidences."""

    counts: Mapping[str, tuple[int, int]]
    prior_strength: float = PRIOR_STRENGTH
    rules: str = ""  # oracles.fingerprint of the rules the counts were measured with

    def path_confidence(self, probe: Probe, verdict: Verdict) -> float:
        k, n = self.counts.get("*", (0, 0))
        p = (k + 1) / (n + 2)
        for key in path_keys(probe, verdict):
            k, n = self.counts.get(key, (0, 0))
            p = (k + self.prior_strength * p) / (n + self.prior_strength)
        return round(p, 4)

    def confidence(self, probe: Probe, verdict: Verdict) -> float | None:
        """The verdict's confidence (module docstring), or None when it was not reached by a measured path."""
        measured = rules_confidence(probe.kind)
        if not (verdict.method.startswith(measured.method) if measured.prefix else verdict.method == measured.method):
            return None
        if not measured.key:
            return self.path_confidence(probe, verdict)
        if measured.labels and verdict.label not in measured.labels:
            return 0.0  # nothing was read
        k, n = self.counts.get(measured.key, (0, 0))
        return round((k + 1) / (n + 2), 4)


def rules_confidence(kind: str) -> RulesConfidence:
    """How the kind's rule verdicts are measured (its ProbeKind.confidence, else per reading path)."""
    spec = kind_spec(kind)
    if spec is None:
        from harness.metrics import families

        families()  # the families' modules declare their kinds
        spec = kind_spec(kind)
    return spec.confidence if spec is not None and spec.confidence is not None else PATHS


@lru_cache(maxsize=1)
def calibration() -> Calibration:
    """The shipped calibration (calibration.json)."""
    doc = json.loads(CALIBRATION_FILE.read_text(encoding="utf-8"))
    return Calibration({k: (int(v[0]), int(v[1])) for k, v in doc["counts"].items()},
                       float(doc.get("prior_strength", PRIOR_STRENGTH)), str(doc.get("rules", "")))


def confidence(probe: Probe, verdict: Verdict) -> float | None:
    return calibration().confidence(probe, verdict)


def band(value: float | None) -> str | None:
    if value is None:
        return None
    return next(name for low, high, name in BANDS if low <= value < high)
