"""The transcript store: flushed lines survive, torn tails are repaired, answers are never superseded by errors."""

from __future__ import annotations

import json
from pathlib import Path

from harness.core.records import BIAS_RELATIVE, STATUS_ERROR, Probe, Reply
from harness.question_gen.biasasker_suite import KIND_YES_NO
from harness.run.transcript import TRANSCRIPT_FILE, TranscriptWriter, latest_by_probe, read_entries, repair


def _probe(i: int) -> Probe:
    return Probe.make("t", "en", KIND_YES_NO, BIAS_RELATIVE, f"Question {i}? 中文", meta={"template": "x"})


def test_append_and_read_back(tmp_path: Path) -> None:
    with TranscriptWriter(tmp_path) as w:
        for i in range(5):
            w.append(_probe(i), Reply(probe_id=_probe(i).id, target="t", text=f"answer {i} 是的"))
    entries = list(read_entries(tmp_path / TRANSCRIPT_FILE))
    assert [e.reply.text for e in entries] == [f"answer {i} 是的" for i in range(5)]
    assert entries[0].probe == _probe(0)


def test_torn_last_line_is_repaired_and_appending_continues(tmp_path: Path) -> None:
    with TranscriptWriter(tmp_path) as w:
        w.append(_probe(0), Reply(probe_id=_probe(0).id, target="t", text="ok"))
    path = tmp_path / TRANSCRIPT_FILE
    with path.open("ab") as fh:  # what a SIGKILL in the middle of a write leaves behind
        fh.write(b'{"probe": {"id": "abc", "su')
    assert len(list(read_entries(path))) == 1
    assert repair(path) > 0
    with TranscriptWriter(tmp_path) as w:
        w.append(_probe(1), Reply(probe_id=_probe(1).id, target="t", text="second"))
    lines = path.read_bytes().splitlines()
    assert len(lines) == 2 and all(json.loads(line) for line in lines)


def test_later_answer_supersedes_error_but_not_the_reverse(tmp_path: Path) -> None:
    p0, p1 = _probe(0), _probe(1)
    with TranscriptWriter(tmp_path) as w:
        w.append(p0, Reply(probe_id=p0.id, target="t", text="", status=STATUS_ERROR, error="HTTP 500"))
        w.append(p0, Reply(probe_id=p0.id, target="t", text="fixed"))
        w.append(p1, Reply(probe_id=p1.id, target="t", text="kept"))
        w.append(p1, Reply(probe_id=p1.id, target="t", text="", status=STATUS_ERROR, error="timeout"))
    latest = latest_by_probe(tmp_path / TRANSCRIPT_FILE)
    assert latest[p0.id].reply.text == "fixed"
    assert latest[p1.id].reply.text == "kept"
