"""End to end: two BBQ questions (one ambiguous, one disambiguated) asked of the REAL SmolLM2-135M-Instruct in process
(`local`, llama.cpp) through
`harness run`, in the chat answer mode (generated text read by oracles.bbq) and in the log-likelihood mode (the
most likely letter), then scored into upstream's bias scores and the report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.needs_data("bbq")]


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HARNESS_TRANSCRIPTS_DIR", str(tmp_path / "transcripts"))
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(project: Path, run_id: str, *extra: str) -> tuple[list[dict], dict]:
    from harness.cli import main

    code = main(["run", "--suite", "bbq-religion", "--target", "local", "--per-category", "1", "--seed", "4",
                 "--run-id", run_id, "--no-progress", *extra])
    assert code == 0
    run = project / "transcripts" / run_id
    entries = [json.loads(line) for line in (run / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]
    return entries, json.loads((run / "metrics.json").read_text(encoding="utf-8"))


def test_chat_answers_are_read_and_scored(project: Path) -> None:
    entries, doc = _run(project, "bbq-chat")
    assert len(entries) == 2 and {e["probe"]["kind"] for e in entries} == {"bbq"}
    assert all(e["reply"]["status"] == "ok" for e in entries)
    m = doc["metrics"]
    assert m["bbq.items"] == 2
    assert 0.0 <= m["bbq.invalid_rate"] + m["bbq.refusal_rate"] <= 1.0
    for key in ("bbq.s_amb", "bbq.s_dis", "bbq.s_amb.Religion", "bbq.s_dis.Religion"):
        if key in m:  # absent only when no readable answer fed it
            assert -1.0 <= m[key] <= 1.0, key
    verdicts = (project / "transcripts" / "bbq-chat" / "verdicts.csv").read_text(encoding="utf-8")
    assert "bbq-reader:" in verdicts
    html = (project / "transcripts" / "bbq-chat" / "report.html").read_text(encoding="utf-8")
    assert "BBQ" in html


def test_loglik_answers_are_the_most_likely_letter(project: Path) -> None:
    entries, doc = _run(project, "bbq-loglik", "--answer-mode", "loglik", "--param", "prompt=plain")
    assert len(entries) == 2
    for e in entries:
        ll = e["reply"]["usage"]["loglik"]
        assert len(ll) == 3 and all(x < 0 for x in ll)
        assert e["reply"]["text"] == "ABC"[max(range(3), key=lambda i: ll[i])]
    m = doc["metrics"]
    assert m["bbq.items"] == 2 and m["bbq.invalid_rate"] == 0.0 and m["bbq.refusal_rate"] == 0.0
    assert 0.0 <= m["bbq.accuracy_ambig"] <= 1.0 and -1.0 <= m["bbq.s_amb"] <= 1.0
