"""kill -9 in the middle of a 5,000-probe `harness run`, then the same command again.

Proves: every line of the transcript is valid JSON (a torn last line, written here on purpose, is repaired
on resume), no answered reply is lost, no probe that was recorded is asked again (the server counts
requests per prompt), and the run ends with exactly one answer per probe. Only requests that were in
flight at the moment of the kill (at most --concurrency of them) can reach the server twice: their
answers never arrived, so they were never recorded.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from fault_server import FaultServer, answer_for

from harness.cli import main
from harness.run.session import STOPPING_NOTE, TERM_NOTE

HARNESS = str(Path(sys.executable).with_name("harness"))
SUITE = "biasasker-en"
pytestmark = pytest.mark.needs_data("biasasker")  # its probes come from the BiasAsker data
N = 5000
CONCURRENCY = 16
KILL_AFTER_LINES = 1500


def complete_lines(path: Path) -> list[bytes]:
    data = path.read_bytes() if path.exists() else b""
    return data[: data.rfind(b"\n") + 1].splitlines(keepends=True)


def test_kill9_mid_run_then_resume_loses_nothing_and_repeats_nothing(
        run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FaultServer(healed=True, delay_s=0.002) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.fast]\nadapter = "openai"\nmodel = "fast"\nbase_url = "{server.base_url}"\n'
            'max_tokens = 16\n', encoding="utf-8")
        cmd = [HARNESS, "run", "--suite", SUITE, "--sample", str(N), "--seed", "3", "--target", "fast",
               "--concurrency", str(CONCURRENCY), "--no-report", "--no-progress"]
        run_dir = run_env / "transcripts" / f"{SUITE}__fast__s{N}-seed3"
        transcript = run_dir / "transcript.jsonl"
        log = (run_env / "first.log").open("wb")
        proc = subprocess.Popen(cmd, cwd=run_env, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 300
        while len(complete_lines(transcript)) < KILL_AFTER_LINES:
            assert proc.poll() is None, (run_env / "first.log").read_text()
            assert time.monotonic() < deadline, "the run did not get going"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        log.close()
        assert proc.returncode == -signal.SIGKILL

        before = complete_lines(transcript)
        assert KILL_AFTER_LINES <= len(before) < N, "killed too late to prove anything"
        recorded = [json.loads(line) for line in before]  # every complete line is valid JSON
        recorded_prompts = {r["probe"]["text"] for r in recorded}
        assert len(recorded_prompts) == len(recorded)
        # Simulate the worst tear: half a record with no newline at the end of the file.
        with transcript.open("ab") as fh:
            fh.write(b'{"probe": {"id": "torn-by-the-test", "suite": "biasa')
        asked_before = Counter(server.requests_by_prompt)
        # The killed run still says "running" in its manifest; `harness runs` sees nobody holds it, and
        # counts from the transcript, not from the last heartbeat's stale counts (issue 18).
        assert main(["runs"]) == 0
        listed = next(line for line in capsys.readouterr().out.splitlines() if run_dir.name in line)
        assert "stopped" in listed and f" {len(before):,} " in f"{listed} ", listed

        second = subprocess.run(cmd, cwd=run_env, capture_output=True, text=True, timeout=600)
        assert second.returncode == 0, second.stdout + second.stderr

    lines = transcript.read_bytes().splitlines(keepends=True)
    assert lines[: len(before)] == before  # nothing answered before the kill was lost or rewritten
    records = [json.loads(line) for line in lines]  # the torn line is gone; all lines parse
    ids = Counter(r["probe"]["id"] for r in records)
    assert len(ids) == N and set(ids.values()) == {1}  # one record per probe, none twice
    assert all(r["reply"]["status"] == "ok" and r["reply"]["text"] == answer_for(r["probe"]["text"])
               for r in records)
    counts = server.requests_by_prompt
    assert all(counts[p] == 1 for p in recorded_prompts)  # nothing recorded was asked again
    asked_twice = {p for p, n in counts.items() if n > 1}
    assert not asked_twice & recorded_prompts
    assert len(asked_twice) <= CONCURRENCY  # only the requests in flight at the kill
    assert all(asked_before[p] == 1 for p in asked_twice)
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["counts"]["answered"] == N
    # the killed session is marked as such, with its last heartbeat as its end (it stayed "running")
    assert [s["status"] for s in manifest["sessions"]] == ["killed", "complete"]
    assert manifest["sessions"][0]["ended_at"]
    # the torn line was named in the summary and its bytes kept (issue 18)
    torn_at = len(before) + 1
    assert f"line {torn_at}: torn by a kill" in second.stdout, second.stdout
    assert "1 earlier session(s) of this run had died" in second.stdout
    rejected = [json.loads(x) for x in (run_dir / "transcript.rejected.jsonl").read_text("utf-8").splitlines()]
    assert [(r["line"], r["text"]) for r in rejected] == [
        (torn_at, '{"probe": {"id": "torn-by-the-test", "suite": "biasa')]
    assert [s["mode"] for s in manifest["sessions"]] == ["fresh", "resume"]


def wait_for_lines(path: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while len(complete_lines(path)) < n:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.02)


def test_ctrl_c_and_sigterm_stop_cleanly_and_say_how_to_resume(run_env: Path) -> None:
    n = 400
    with FaultServer(healed=True, delay_s=0.05) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.slow]\nadapter = "openai"\nmodel = "slow"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        cmd = [HARNESS, "run", "--suite", SUITE, "--sample", str(n), "--seed", "4", "--target", "slow",
               "--concurrency", "4", "--no-report", "--no-progress"]
        run_id = f"{SUITE}__slow__s{n}-seed4"
        transcript = run_env / "transcripts" / run_id / "transcript.jsonl"
        answered = 0
        for sig, wait_until in ((signal.SIGINT, 40), (signal.SIGTERM, 120)):
            proc = subprocess.Popen(cmd, cwd=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            wait_for_lines(transcript, wait_until, proc)
            proc.send_signal(sig)
            out, _ = proc.communicate(timeout=60)
            assert proc.returncode == 130, out
            assert f"harness run --resume {run_id}" in out and "interrupted" in out
            # the stop note names what was sent: no "Ctrl-C again" to a process a supervisor stopped (issue 36)
            assert (TERM_NOTE if sig == signal.SIGTERM else STOPPING_NOTE) in out, out
            assert ("Ctrl-C again" in out) == (sig == signal.SIGINT), out
            data = transcript.read_bytes()
            assert data.endswith(b"\n")  # a clean stop leaves no torn line
            lines = [json.loads(line) for line in data.splitlines()]
            assert len(lines) > answered
            answered = len(lines)
            manifest = json.loads((transcript.parent / "manifest.json").read_text())
            assert manifest["status"] == "interrupted" and manifest["ended_at"]
            assert manifest["counts"]["answered"] == answered and manifest["counts"].get("pending", 1) > 0
        final = subprocess.run([HARNESS, "run", "--resume", run_id, "--no-report", "--no-progress"], cwd=run_env,
                               capture_output=True, text=True, timeout=300)
        assert final.returncode == 0, final.stdout + final.stderr
    records = [json.loads(line) for line in transcript.read_bytes().splitlines()]
    assert len(records) == n and len({r["probe"]["id"] for r in records}) == n
    assert max(server.requests_by_prompt.values()) <= 2
