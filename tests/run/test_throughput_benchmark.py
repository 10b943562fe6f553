"""benchmarks/run_throughput.py runs end to end and prints figures that agree with each other.

The benchmark is the acceptance measure for the run engine's speed (issue 3), so it must keep working;
timings themselves are not asserted (the machine may be loaded), only that every probe was answered
through the real runner and adapter and that the printed ratio, limit and speed-up are computed right.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _number(pattern: str, text: str) -> float:
    match = re.search(pattern, text)
    assert match, f"no match for {pattern!r} in:\n{text}"
    return float(match.group(1).replace(",", ""))


@pytest.mark.parametrize("stack", ["http1", "aiohttp", "httpx"])
def test_benchmark_answers_every_probe_and_prints_consistent_figures(stack: str, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run_throughput.py"), "--probes", "300", "--concurrency", "16",
         "--latency", "0.02", "--sequential", "5", "--http-client", stack],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    out = result.stdout
    assert result.returncode == 0, result.stderr[-2000:]
    assert "300 probes answered" in out and f"(openai adapter over {stack})" in out
    rate = _number(r"throughput\s+([\d.]+) probes/s", out)
    limit = _number(r"physical limit\s+([\d.]+) probes/s", out)
    assert limit == pytest.approx(16 / 0.02)
    assert _number(r"ratio\s+([\d.]+)", out) == pytest.approx(rate / limit, abs=0.001)
    cpu_ms = _number(r"harness CPU\s+([\d.]+) ms per probe", out)
    assert cpu_ms > 0
    assert _number(r"CPU ceiling\s+([\d.]+) probes/s", out) == pytest.approx(1000 / cpu_ms, rel=0.01)
    assert _number(r"one at a time \(BiasAsker's loop\): (\d+) probes", out) == 5
    seq_rate = _number(r"= ([\d.]+) probes/s", out)
    assert _number(r"speed-up\s+([\d.]+)x", out) == pytest.approx(rate / seq_rate, rel=0.05)
