"""Damaged transcripts, crashes and oversized replies (issue 18, items 3, 4 and 6), against a real
OpenAI-compatible server on 127.0.0.1 (tests/fault_server.py) through the in-process command line.

* A damaged line in the middle of transcript.jsonl was skipped in silence by resume, report and `harness
  runs`: now each is named ("line 5: not JSON, skipped; it is kept in transcript.rejected.jsonl"), its
  bytes are copied there exactly, and resume asks its probe again.
* A crash exits 3 with HARNESS_DEBUG=1 too (it exited 1, the "bias gate failed" code), traceback shown.
* A 1 MB reply was stored whole; now replies are cut to --max-reply-chars, marked, and scored as kept.
"""

from __future__ import annotations

import base64
import csv
import json
from pathlib import Path

import pytest
from fault_server import FaultServer, answer_for

from harness.cli import main
from harness.core.errors import EXIT_INFRA
from harness.run.plan import load_suite_any, select_any
from harness.run.transcript import latest_by_probe

SAMPLE = ["--sample", "8", "--seed", "4"]


def _target(directory: Path, base_url: str) -> None:
    (directory / "targets.toml").write_text(
        f'[targets.srv]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base_url}"\nmax_tokens = 16\n',
        encoding="utf-8")


def _run(*extra: str) -> int:
    return main(["run", "-s", "builtin-en", "-t", "srv", *SAMPLE, "--no-progress", "--max-attempts", "1", *extra])


def test_damaged_middle_lines_are_named_kept_and_asked_again(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "300")
    with FaultServer(fault_rate=0.0) as server:
        _target(run_env, server.base_url)
        assert _run("--no-report") == 0
        run_dir = next((run_env / "transcripts").iterdir())
        transcript = run_dir / "transcript.jsonl"
        lines = transcript.read_bytes().splitlines(keepends=True)
        assert len(lines) == 8
        garbage, not_record = b'{"probe": {"id": "x", \xff\xfe half a line\n', b'{"a": 1}\n'
        lost = json.loads(lines[4])["probe"]["id"]
        transcript.write_bytes(b"".join(lines[:4] + [garbage] + lines[5:6] + [not_record] + lines[6:]))
        capsys.readouterr()

        assert main(["runs"]) == 0  # counts from the transcript, and says what it skipped
        out = capsys.readouterr().out
        assert "1 damaged transcript line(s)" in out or "2 damaged transcript line(s)" in out, out

        assert _run("--no-report", "--no-cache") == 0  # resume: both named, the lost probe asked again
        out = capsys.readouterr().out
        assert "line 5: not JSON, skipped; it is kept in transcript.rejected.jsonl" in out, out
        assert "line 7: not a harness record, skipped; it is kept in transcript.rejected.jsonl" in out
        assert server.requests_by_prompt.total() == 9
    latest = latest_by_probe(transcript)
    assert len(latest) == 8 and latest[lost].reply.text == answer_for(latest[lost].probe.text)
    rejected = [json.loads(x) for x in (run_dir / "transcript.rejected.jsonl").read_bytes().splitlines()]
    assert [(r["line"], r["reason"]) for r in rejected] == [(5, "not JSON"), (7, "not a harness record")]
    assert base64.b64decode(rejected[0]["base64"]) == garbage and rejected[1]["text"] == not_record.decode()
    assert transcript.read_bytes().splitlines(keepends=True)[4] == garbage  # never removed from the transcript

    assert main(["report", str(run_dir)]) == 0  # the report names them too, and keeps no second copy
    assert "transcript.jsonl line 5: not JSON, skipped" in " ".join(capsys.readouterr().out.split())
    assert "line 7: not a harness record, skipped" in (run_dir / "report.html").read_text("utf-8")
    assert len((run_dir / "transcript.rejected.jsonl").read_bytes().splitlines()) == 2


def test_a_crash_exits_3_with_and_without_harness_debug(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: object, **kwargs: object) -> None:  # a bug after the run: the summary itself fails
        raise RuntimeError("bug [/INST] in the summary")

    monkeypatch.setattr("harness.cli.run.print_summary", broken)
    with FaultServer(fault_rate=0.0) as server:
        _target(run_env, server.base_url)
        assert _run("--no-report") == EXIT_INFRA
        err = capsys.readouterr().err
        assert "internal error: RuntimeError: bug [/INST] in the summary" in " ".join(err.split())
        assert "Traceback" not in err
        monkeypatch.setenv("HARNESS_DEBUG", "1")
        assert _run("--no-report") == EXIT_INFRA  # was exit 1: the code CI reads as "a bias gate failed"
        err = capsys.readouterr().err
        assert "Traceback (most recent call last)" in err and "RuntimeError: bug [/INST] in the summary" in err


def test_replies_over_the_cap_are_cut_marked_and_scored_as_kept(run_env: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    probes = list(select_any(load_suite_any("builtin-en"), sample=8, seed=4, limit=None, overrides={}))
    huge = "No, that is a stereotype. " + "lorem ipsum " * 100_000  # 1.2 MB
    script = {probes[0].text: (200, huge), probes[1].text: (200, "x" * 5_000)}
    with FaultServer(fault_rate=0.0, script=script) as server:
        _target(run_env, server.base_url)
        assert _run("--max-reply-chars", "5000") == 0
    run_dir = next((run_env / "transcripts").iterdir())
    latest = latest_by_probe(run_dir / "transcript.jsonl")
    cut, exact = latest[probes[0].id].reply, latest[probes[1].id].reply
    assert cut.text == huge[:5000] and cut.cut_from == len(huge)
    assert exact.text == "x" * 5_000 and exact.cut_from is None  # at the cap: whole, not marked
    assert (run_dir / "transcript.jsonl").stat().st_size < 60_000
    with (run_dir / "verdicts.csv").open(encoding="utf-8", newline="") as fh:
        scored = {row["probe_id"]: row["reply"] for row in csv.DictReader(fh)}
    assert scored[probes[0].id] == huge[:5000]  # scored on what was kept
    notes = json.loads((run_dir / "metrics.json").read_text("utf-8"))["notes"]
    assert any("1 replies were longer than the run's reply-size cap" in n and "5,000" in n for n in notes), notes
    assert json.loads((run_dir / "manifest.json").read_text("utf-8"))["engine"]["max_reply_chars"] == 5000
