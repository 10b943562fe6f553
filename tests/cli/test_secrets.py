"""Secrets: a sentinel API key in the environment never reaches a file, a log line or a message.

The fault server is told that the sentinel is the right key, and it answers some requests with 401s
whose message *repeats the key it received* (as careless providers do) and others with 500s/503s. After
runs through the CLI (with the openai SDK's debug logging on) and in-process (with every Python log
record captured), the test greps every file under the temporary home (run folders, response cache,
config), captured stdout/stderr and the log records for the key and for its distinctive tail.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fault_server import FAULT_500, FAULT_503, FAULT_AUTH, FaultServer

from harness.core.records import Probe
from harness.run.engine import EngineSettings
from harness.run.execute import run_suite

SENTINEL = "sk-SENTINEL-" + "q8Xw3Kp5Lm7Nb2Vc4Tz9"
TAIL = SENTINEL[-12:]
HARNESS = str(Path(sys.executable).with_name("harness"))


def leaks(blob: bytes) -> bool:
    return SENTINEL.encode() in blob or TAIL.encode() in blob


def test_sentinel_key_never_leaks(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                  caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("LEAKY_API_KEY", SENTINEL)
    weights = {FAULT_AUTH: 2, FAULT_500: 1, FAULT_503: 1}
    with FaultServer(api_key=SENTINEL, seed=5, fault_rate=0.5, weights=weights) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.leaky]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "LEAKY_API_KEY"\nmax_tokens = 16\nprice = { input_per_1k = 0.1, output_per_1k = 0.2 }\n',
            encoding="utf-8")
        env = {**dict(__import__("os").environ), "OPENAI_LOG": "debug", "HTTPX_LOG_LEVEL": "trace"}
        outputs: list[str] = []
        for extra in (["--sample", "40", "--seed", "1"], ["--sample", "40", "--seed", "1", "--retry-errors"],
                      ["--sample", "40", "--seed", "1", "--dry-run"]):
            proc = subprocess.run([HARNESS, "run", "--suite", "builtin-en", "--target", "leaky", *extra,
                                   "--max-attempts", "2", "--no-report", "--no-progress"],
                                  cwd=run_env, env=env, capture_output=True, text=True, timeout=300)
            outputs.append(proc.stdout + proc.stderr)
        assert server.faults_served[FAULT_AUTH] > 0 and server.faults_served[FAULT_500] > 0
        # The bait is real: this server's 401 bodies do repeat the key, so a careless adapter would leak it.
        bait = next(f"bait {i}" for i in range(1000) if server.decide(f"bait {i}", 0) == FAULT_AUTH)
        body = httpx.post(f"{server.base_url}/chat/completions", headers={"Authorization": f"Bearer {SENTINEL}"},
                          json={"model": "m", "messages": [{"role": "user", "content": bait}]}).text
        assert leaks(body.encode())
        assert "HTTP 401" in outputs[0]  # the errors really happened and were reported

        # In-process, with every log record of every logger captured at DEBUG.
        caplog.set_level(logging.DEBUG)
        probes = [Probe.make("secrets", "en", "yes_no", "relative", f"Question {i}?") for i in range(60)]
        outcome = run_suite("secrets", "leaky", probes=probes, show_progress=False,
                            engine=EngineSettings(concurrency=4, max_attempts=2, backoff_initial_s=0.01,
                                                  backoff_max_s=0.02))
        assert outcome.run_counts["errors"] > 0

    for text in outputs:
        assert not leaks(text.encode())
    assert not any(leaks(r.getMessage().encode()) or leaks(str(r.__dict__).encode()) for r in caplog.records)
    scanned = 0
    for path in run_env.rglob("*"):
        if path.is_file():
            scanned += 1
            assert not leaks(path.read_bytes()), f"secret found in {path}"
    assert scanned >= 6  # manifests, transcripts, cache, targets.toml were all looked at


def test_shortened_key_echoes_in_400_429_500_bodies_are_masked(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Issue 18: `HTTP 400: Incorrect API key provided: sk-SENTI****Tz9` reached 35 transcript lines,
    manifest.json, metrics.json and report.html; only 401/403 bodies were masked. Now every status is."""
    from fault_server import FAULT_ECHO_400, FAULT_ECHO_429, FAULT_ECHO_500, echoed_forms

    from harness.report.reporting import write_report
    from harness.score.scoring import score_run

    monkeypatch.setenv("LEAKY_API_KEY", SENTINEL)
    forms = echoed_forms(SENTINEL)
    weights = {FAULT_ECHO_400: 1, FAULT_ECHO_429: 1, FAULT_ECHO_500: 1}
    caplog.set_level(logging.DEBUG)
    with FaultServer(api_key=SENTINEL, seed=3, fault_rate=0.4, weights=weights) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.leaky]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n'
            'api_key_env = "LEAKY_API_KEY"\nmax_tokens = 16\n', encoding="utf-8")
        probes = [Probe.make("secrets", "en", "yes_no", "relative", f"Are group {i} people honest?",
                             groups=(f"group {i}",)) for i in range(60)]
        outcome = run_suite("secrets", "leaky", probes=probes, show_progress=False,
                            engine=EngineSettings(concurrency=4, max_attempts=1, abort_after_consecutive_errors=0))
        assert all(server.faults_served[f] for f in weights), server.faults_served
        # the bait is real: each echo body carries its shortened key
        for fault, form in forms.items():
            bait = next(f"bait {i}" for i in range(2000) if server.decide(f"bait {i}", 0) == fault)
            body = httpx.post(f"{server.base_url}/chat/completions", headers={"Authorization": f"Bearer {SENTINEL}"},
                              json={"model": "m", "messages": [{"role": "user", "content": bait}]}).text
            assert form in body
    write_report(outcome.run_dir, score_run(outcome.run_dir), quiet=True)
    transcript = (outcome.run_dir / "transcript.jsonl").read_text("utf-8")
    assert "HTTP 400: Incorrect API key provided: ***." in transcript  # the reason is kept, the key is not
    assert "HTTP 429: Rate limit reached for key ***" in transcript
    assert "HTTP 500: Upstream rejected the credential starting ***" in transcript

    def leaked(blob: str) -> list[str]:
        return [f for f in (SENTINEL, TAIL, *forms.values(), SENTINEL[:12], SENTINEL[-4:]) if f in blob]

    checked = set()
    for path in run_env.rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".html", ".csv"):
            assert not leaked(path.read_text("utf-8", errors="replace")), path
            checked.add(path.name)
    assert {"transcript.jsonl", "manifest.json", "metrics.json", "report.html"} <= checked
    assert not any(leaked(r.getMessage()) or leaked(str(r.__dict__)) for r in caplog.records)
