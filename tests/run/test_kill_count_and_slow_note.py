"""Two things a person watching a run must be told truly (issue 26): how many earlier sessions died, and
that probes are slowing down towards the timeout.

Both run the real `harness` command against a real OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_server import FaultServer

from harness.cli import main

HARNESS = str(Path(sys.executable).with_name("harness"))


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def _start_and_kill(cmd: list[str], cwd: Path, transcript: Path, after_lines: int) -> None:
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while _lines(transcript) < after_lines:
        assert proc.poll() is None, "the run ended before it could be killed"
        assert time.monotonic() < deadline, "the run did not get going"
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()


def test_after_two_kills_the_summary_counts_both(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 120
    with FaultServer(healed=True, delay_s=0.05) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.slow]\nadapter = "openai"\nmodel = "slow"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        cmd = [HARNESS, "run", "--suite", "builtin-en", "--sample", str(n), "--seed", "5", "--target", "slow",
               "--concurrency", "1", "--no-report", "--no-progress"]
        run_dir = run_env / "transcripts" / f"builtin-en__slow__s{n}-seed5"
        transcript = run_dir / "transcript.jsonl"
        _start_and_kill(cmd, run_env, transcript, 5)
        _start_and_kill(cmd, run_env, transcript, _lines(transcript) + 5)
        code = main(cmd[1:])  # the third session in this process: only the killed two need their own
    out = capsys.readouterr().out
    assert code == 0, out
    manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
    assert [s["status"] for s in manifest["sessions"]] == ["killed", "killed", "complete"]
    assert "2 earlier session(s) of this run had died" in out, out


def test_progress_says_when_probes_near_the_timeout(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Every answer takes 1.2 s against a 2 s timeout: 60%, past the first warning share (50%). On a busy
    # machine a reply may also pass 80%, the second share: at most one note per share, never one per probe.
    # The note is printed with the bar off too (output is not a terminal here).
    with FaultServer(healed=True, delay_s=1.2) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.slow]\nadapter = "openai"\nmodel = "slow"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        code = main(["run", "--suite", "builtin-en", "--sample", "4", "--target", "slow", "--timeout", "2",
                     "--concurrency", "1", "--no-report", "--max-error-rate", "1"])
    said = "".join(capsys.readouterr())
    assert code == 0, said
    assert 1 <= said.count("slow: a probe took") <= 2, said
    assert "of the 2 s timeout" in said and "recorded as an error" in said


def test_fast_probes_say_nothing_about_the_timeout(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FaultServer(healed=True, delay_s=0.0) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.fast]\nadapter = "openai"\nmodel = "fast"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        code = main(["run", "--suite", "builtin-en", "--sample", "3", "--target", "fast", "--timeout", "30",
                     "--no-report"])
    said = "".join(capsys.readouterr())
    assert code == 0, said
    assert "slow:" not in said
