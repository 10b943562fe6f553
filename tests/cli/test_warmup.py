"""The warm-up thread of `harness run` (harness.cli.warmup, issue 38): it imports and loads what scoring and
the report need while the run asks, and a run scored after it (the default: the rules reading ahead in a worker
process too) writes the same verdicts and metrics as one scored without it, the read-ahead's verdicts taken."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from fault_server import FaultServer

from harness.score.preread import WAIT_ENV

HARNESS = Path(sys.executable).with_name("harness")

WARMED = ("import sys\nfrom harness.cli import warmup\nwarmup.start(); warmup.wait()\n"
          "from harness.report import reporting\nfrom harness.core.method import METHODS\n"
          "print(warmup.started(), all(m in sys.modules for m in ('pandas', 'jinja2', 'harness.score.scoring', "
          "'harness.gates.power')), reporting._template.cache_info().currsize, "
          "[n for n in METHODS.names() if METHODS.lazy_ref(n)])")


def _python(code: str, **env: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, **env})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_the_warm_up_imports_scoring_and_the_report_and_loads_every_declaration() -> None:
    assert _python(WARMED) == ["True", "True", "1", "[]"]  # every method imported, the template compiled


def test_harness_warmup_0_starts_nothing() -> None:
    assert _python(WARMED, HARNESS_WARMUP="0")[:3] == ["False", "False", "0"]


def _run(run_env: Path, url: str, run_id: str, warm: str) -> Path:
    env = {**os.environ, "HARNESS_WARMUP": warm, "HARNESS_TRANSCRIPTS_DIR": str(run_env / "transcripts"),
           "HARNESS_CACHE_DIR": str(run_env / f"cache-{warm}"), "HARNESS_WARMUP_LOG": str(run_env / f"{run_id}.log"),
           WAIT_ENV: "600"}  # a subprocess reads the user's setting: the low-priority worker may be slow here
    (run_env / "targets.toml").write_text(f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{url}"\n',
                                          encoding="utf-8")
    cmd = [str(HARNESS), "run", "--suite", "builtin-en", "--target", "bot", "--limit", "20", "--run-id", run_id,
           "--no-progress"]
    done = subprocess.run(cmd, cwd=run_env, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode in (0, 1), done.stderr[-2000:]  # 1: a gate failed on the scripted replies
    return run_env / "transcripts" / run_id


def test_a_warmed_run_scores_as_an_unwarmed_one(run_env: Path) -> None:
    with FaultServer(healed=True) as server:
        warm, cold = _run(run_env, server.base_url, "warm", "1"), _run(run_env, server.base_url, "cold", "0")
    rows = [sorted(csv.reader((d / "verdicts.csv").open(encoding="utf-8", newline=""))) for d in (warm, cold)]
    assert rows[0] == rows[1] and len(rows[0]) == 21  # the header and every reply (their order is arrival order)
    metrics = [json.loads((d / "metrics.json").read_text("utf-8")) for d in (warm, cold)]
    assert metrics[0]["metrics"] == metrics[1]["metrics"] and metrics[0]["metrics"]["answered"] == 20
    replies = [[json.loads(line)["reply"]["text"] for line in (d / "transcript.jsonl").open(encoding="utf-8")]
               for d in (warm, cold)]
    assert sorted(replies[0]) == sorted(replies[1]) and len(replies[0]) == 20
    logged = [json.loads(line) for line in (run_env / "warm.log").read_text("utf-8").splitlines()]
    taken = next(line for line in logged if "taken" in line)
    assert taken["read_ahead"] == 20 and taken["taken"] == 20  # every verdict came from the worker, and matched
    cold_log = json.loads((run_env / "cold.log").read_text("utf-8").splitlines()[-1])
    assert cold_log["taken"] == 0 and cold_log["after_cpu_s"] > 0  # no worker: the rules read all 20 after asking
