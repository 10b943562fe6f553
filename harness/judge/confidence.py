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
group), m = PRIOR_STRENGTH. The counts come from the tuned batches 1-5 only (calibration.json, written
by benchmarks/calibrate_confidence.py); the blind batches 6-9 are the test: on them, verdicts in the top
confidence band are right more often than those in the bottom band (tests/judge/test_judge_confidence.py).

CBBQ answers are read by the option-letter parser: a parsed option gets the parser's accuracy on
tests/data/cbbq_answers.jsonl, an invalid answer 0.0 (nothing was read, so a hybrid reading asks the
judge). Verdicts of other methods (--method sentence, --compat) and judge verdicts get None: nothing was
measured for them here.

Used by `harness review RUN --uncertain` (least confident first), hybrid reading (the judge reads what the
rules are unsure of) and the corrected bias rate (harness.score.corrected).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.core.records import LABEL_CHOICE, Probe, Verdict
from harness.judge.prompts import PICK_OPTION, prompt_name

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")
PRIOR_STRENGTH = 10.0
#: The rule method whose paths were measured (the default method's matcher name).
CALIBRATED_METHOD = "ngram"
CBBQ_KEY = "cbbq|choice"
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
        if prompt_name(probe.kind) == PICK_OPTION:  # an option question: the parser's measured rate
            if not verdict.method.startswith("cbbq-parser"):
                return None
            if verdict.label != LABEL_CHOICE:
                return 0.0
            k, n = self.counts.get(CBBQ_KEY, (0, 0))
            return round((k + 1) / (n + 2), 4)
        if verdict.method != CALIBRATED_METHOD:
            return None
        return self.path_confidence(probe, verdict)


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


def calibration_doc(data_dir: Path | None = None) -> dict:
    """The calibration.json document, measured afresh on the tuned batches (1-5) and the CBBQ answers.

    benchmarks/calibrate_confidence.py writes it; tests/judge/test_judge_confidence.py checks the shipped file
    equals it, so the file provably never saw the blind batches.
    """
    from harness.judge.labelled import TUNED_BATCHES, load_cbbq_answers, load_labelled
    from harness.oracles import score
    from harness.oracles.cbbq_parser import parse_answer
    from harness.oracles.fingerprint import rules_fingerprint

    items = load_labelled(data_dir, batches=TUNED_BATCHES)
    verdicts = score([(item.probe, item.reply) for item in items])
    counts = count_paths((item.probe, v, item.decision_right(v)) for item, v in zip(items, verdicts, strict=True))
    parsed = [(parse_answer(a.reply, a.options).index, a.expected) for a in load_cbbq_answers(data_dir)]
    chosen = [(index, expected) for index, expected in parsed if index is not None]
    counts[CBBQ_KEY] = [sum(index == expected for index, expected in chosen), len(chosen)]
    return {"about": "k / n of right biased decisions per rule reading path, batches 1-5 of tests/data "
                     "(harness.judge.confidence); regenerate with benchmarks/calibrate_confidence.py",
            "batches": list(TUNED_BATCHES), "prior_strength": PRIOR_STRENGTH, "rules": rules_fingerprint(),
            "counts": counts}
