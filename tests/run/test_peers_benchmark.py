"""benchmarks/peers.py runs end to end: the harness's whole job, measured as a process, against its counting
server. Timings are not asserted (the machine may be loaded); that every request reached the server, that the
table names each tool and that a peer not installed is skipped, are."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # two whole `harness run` processes (about 10 s on an idle machine)
def test_peers_benchmark_measures_the_harness_and_skips_missing_peers(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "peers.py"), "--probes", "24", "--concurrency", "8",
         "--latency", "0.02", "--rounds", "1", "--lmeval", str(tmp_path / "no-lm-eval")],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr[-3000:]
    rows = {line.split("|")[1].strip(): line for line in done.stdout.splitlines() if line.startswith("| harness")}
    assert set(rows) == {"harness run", "harness run --no-report"}, done.stdout
    assert all(row.rstrip(" |").endswith("| 24") for row in rows.values()), done.stdout  # requests the server saw
    assert "lm-eval" not in done.stdout
    assert "physical limit 0.06 s" in done.stdout  # 24 / 8 x 0.02 s
