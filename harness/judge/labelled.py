"""The hand-labelled replies (tests/data of the harness repository) that oracle settings are measured on.

labelled_{en,zh}[_batchN].jsonl hold real SmolLM2 / Qwen2.5-Coder-0.5B replies to BiasAsker probes, each with
the label a person read (tests/data/LABELLING.md). Batches 1-5 were used to write the rules; batches 6-9
were labelled before any oracle read them and are the *blind* batches: an accuracy figure on them is the
honest estimate for replies nobody tuned on, and anything learned (the confidence calibration of
harness.judge.confidence) is fitted on batches 1-5 only and checked on 6-9.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError
from harness.core.records import LABEL_AFFIRM, LABEL_CHOICE, LABEL_EXPLAIN, Probe, Reply, Verdict

LANGS = ("en", "zh")
BATCHES = tuple(range(1, 10))
TUNED_BATCHES = (1, 2, 3, 4, 5)
BLIND_BATCHES = (6, 7, 8, 9)
BIASED_LABELS = frozenset({LABEL_AFFIRM, LABEL_CHOICE, LABEL_EXPLAIN})


@dataclass(frozen=True)
class Labelled:
    """One hand-labelled reply."""

    probe: Probe
    reply: Reply
    label: str
    favoured: str | None
    batch: int

    @property
    def biased(self) -> bool:
        return self.label in BIASED_LABELS

    def decision_right(self, verdict: Verdict) -> bool:
        """The biased / not-biased decision a person took (a choice counts only with the right group)."""
        if self.label == LABEL_CHOICE and verdict.biased:
            return verdict.favoured == self.favoured
        return bool(verdict.biased) == self.biased

    def label_right(self, verdict: Verdict) -> bool:
        return verdict.label == self.label and (self.label != LABEL_CHOICE or verdict.favoured == self.favoured)


def default_data_dir() -> Path:
    """tests/data of the source checkout this harness runs from (the labelled replies are not installed)."""
    return Path(__file__).resolve().parents[2] / "tests" / "data"


def _file(data_dir: Path, lang: str, batch: int) -> Path:
    return data_dir / (f"labelled_{lang}.jsonl" if batch == 1 else f"labelled_{lang}_batch{batch}.jsonl")


def load_labelled(data_dir: Path | None = None, *, batches: tuple[int, ...] = BATCHES,
                  langs: tuple[str, ...] = LANGS) -> list[Labelled]:
    """The labelled replies of these batches and languages; HarnessError when the folder lacks them."""
    data_dir = Path(data_dir) if data_dir else default_data_dir()
    out: list[Labelled] = []
    for lang in langs:
        for batch in batches:
            path = _file(data_dir, lang, batch)
            if not path.is_file():
                raise HarnessError(f"{path} is missing: give --data the tests/data folder of a harness source "
                                   "checkout (the labelled replies are not installed with the package).")
            out.extend(_read_file(path))
    return out


def _read_file(path: Path) -> list[Labelled]:
    """One labelled file; a line that is not a labelled reply (cut off, binary, a missing field) is a
    HarnessError naming the file and the line."""
    out = []
    for number, raw in enumerate(path.read_bytes().splitlines(), 1):
        if not raw.strip():
            continue
        try:
            item = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise HarnessError(f"{path}, line {number}: not UTF-8 text (binary bytes?); a labelled file holds one "
                               "JSON object per line (tests/data/LABELLING.md).") from None
        except ValueError as exc:
            raise HarnessError(f"{path}, line {number}: not a complete JSON object ({exc}); a labelled file "
                               "holds one per line (tests/data/LABELLING.md).") from None
        try:
            probe = Probe.from_dict(item["probe"])
            out.append(Labelled(probe, Reply(probe.id, item.get("source", "labelled"), item["reply"]),
                                item["label"], item.get("favoured"), int(item.get("batch", 1))))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise HarnessError(f"{path}, line {number}: not a labelled reply ({type(exc).__name__}: {exc}); each "
                               "line needs probe, reply and label (tests/data/LABELLING.md).") from None
    return out


def read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a labelled file, one a line; a missing file or a line that is not one is a
    HarnessError naming the file (and the line)."""
    if not path.is_file():
        raise HarnessError(f"{path} is missing: give --data the tests/data folder of a harness source checkout.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise HarnessError(f"{path}: not UTF-8 text; a labelled file holds one JSON object per line.") from None
    rows = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError as exc:
                raise HarnessError(f"{path}, line {number}: not a complete JSON object ({exc}).") from None
    return rows


def measured_rates(data_dir: Path | None = None) -> dict[str, list[int]]:
    """calibration.json's one-rate entries: for every kind whose rule confidence is one measured rate
    (RulesConfidence.key) measured on answers a person read (its `measured_on`,
    harness.core.kinds.LabelledAnswers), [k, n]: n the answers its rule reader read as one of the rate's
    labels, k those whose favoured is the person's. A kind declares its file and how a line becomes a probe
    and a reply, so no kind is named here."""
    from harness.core.kinds import registered_kinds
    from harness.oracles import score

    data_dir = Path(data_dir) if data_dir else default_data_dir()
    counts: dict[str, list[int]] = {}
    for spec in registered_kinds().values():
        conf = spec.confidence
        if conf is None or not conf.key or conf.measured_on is None:
            continue
        rows = [conf.measured_on.row(row) for row in read_jsonl(data_dir / conf.measured_on.file)]
        verdicts = score([(probe, reply) for probe, reply, _expected in rows])
        read = [(v.favoured, expected) for v, (_p, _r, expected) in zip(verdicts, rows, strict=True)
                if v.label in conf.labels]
        counts[conf.key] = [sum(favoured == expected for favoured, expected in read), len(read)]
    return counts


def calibration_doc(data_dir: Path | None = None) -> dict:
    """The calibration.json document, measured afresh on the tuned batches (1-5) and on the answers the
    kinds with one measured rate declare (measured_rates).

    benchmarks/calibrate_confidence.py writes it; tests/judge/test_judge_confidence.py checks the shipped file
    equals it, so the file provably never saw the blind batches.
    """
    from harness.judge.confidence import PRIOR_STRENGTH, count_paths
    from harness.oracles import score
    from harness.oracles.fingerprint import rules_fingerprint

    items = load_labelled(data_dir, batches=TUNED_BATCHES)
    verdicts = score([(item.probe, item.reply) for item in items])
    counts = count_paths((item.probe, v, item.decision_right(v)) for item, v in zip(items, verdicts, strict=True))
    counts.update(measured_rates(data_dir))
    return {"about": "k / n of right biased decisions per rule reading path, batches 1-5 of tests/data "
                     "(harness.judge.confidence); regenerate with benchmarks/calibrate_confidence.py",
            "batches": list(TUNED_BATCHES), "prior_strength": PRIOR_STRENGTH, "rules": rules_fingerprint(),
            "counts": counts}
