"""A kind's one measured rate (RulesConfidence.key) is measured on the answers its declaration names
(LabelledAnswers), by its own rule reader, with no kind named in harness.judge.labelled: a kind declared
here gets its calibration.json entry, counted by hand below."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from harness import oracles
from harness.core.errors import HarnessError
from harness.core.kinds import LabelledAnswers, ProbeKind, RulesConfidence, register_kind, unregister_kind
from harness.core.records import LABEL_CHOICE, LABEL_INVALID, Probe, Reply, Verdict
from harness.judge.labelled import measured_rates

DATA = Path(__file__).resolve().parent.parent / "data"
KIND, KEY, FILE = "zq_pick", "zq|pick", "zq_answers.jsonl"


def _row(row: Mapping[str, Any]) -> tuple[Probe, Reply, str | None]:
    probe = Probe.make("zq", "en", KIND, "", "", options=tuple(row["options"]))
    expected = row.get("expected")
    return probe, Reply(probe.id, "labelled", row["reply"]), None if expected is None else str(expected)


def _read(probe: Probe, reply: Reply, method: str = "zq") -> Verdict:
    """A letter reader: "A" / "B" choose an option, anything else is invalid."""
    if reply.text in ("A", "B"):
        return Verdict(probe.id, LABEL_CHOICE, False, "zq", favoured=str("AB".index(reply.text)))
    return Verdict(probe.id, LABEL_INVALID, False, "zq")


@pytest.fixture
def declared_kind() -> Iterator[None]:
    register_kind(ProbeKind(KIND, "zq", confidence=RulesConfidence(
        "zq", key=KEY, labels=(LABEL_CHOICE,), measured_on=LabelledAnswers(FILE, _row))))
    oracles.register_rule(KIND, _read, mode=None)
    try:
        yield
    finally:
        oracles.unregister_rule(KIND, mode=None)
        unregister_kind(KIND)


def _data(tmp_path: Path, lines: list[str]) -> Path:
    """A data folder with the built-in kinds' answer files (linked) and this kind's lines."""
    for path in DATA.glob("*_answers.jsonl"):
        (tmp_path / path.name).symlink_to(path)
    (tmp_path / FILE).write_text("\n".join(lines) + "\n", "utf-8")
    return tmp_path


def test_a_declared_kind_gets_its_measured_rate(tmp_path: Path, declared_kind: None) -> None:
    rows = [("A", 0), ("B", 0), ("?", 1), ("B", None), ("A", 0)]
    lines = [json.dumps({"options": ["x", "y"], "reply": r, "expected": e}) for r, e in rows]
    rates = measured_rates(_data(tmp_path, lines))
    # read as an option: A, B, B, A (the "?" is invalid, outside the rate); right: the two A's read as 0;
    # B against 0 is wrong, and B where a person reads no single option is wrong too
    assert rates[KEY] == [2, 4]
    assert all(len(v) == 2 and 0 <= v[0] <= v[1] for v in rates.values())


def test_a_broken_answers_file_is_one_sentence(tmp_path: Path, declared_kind: None) -> None:
    with pytest.raises(HarnessError, match=rf"{FILE}, line 2: not a complete JSON object"):
        measured_rates(_data(tmp_path, ['{"options": ["x", "y"], "reply": "A", "expected": 0}', '{"options": [']))
    (tmp_path / FILE).unlink()
    with pytest.raises(HarnessError, match=rf"{FILE} is missing"):
        measured_rates(tmp_path)
