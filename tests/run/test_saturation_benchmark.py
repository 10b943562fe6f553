"""benchmarks/saturation.py runs end to end: every probe asked once and answered, and figures that agree.

The saturation table is issue 38's measure of the asking loop, so the script must keep working; timings are not
asserted (the machine may be loaded), only that the server counted every request, that each row's share of the
limit is its rate over c / latency, and that the one-core figure is 1000 over the CPU milliseconds per request.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\s*(\d+)\s+(\d+)ms\s+([\d,]+)\s+([\d.]+)\s+(\d+)\s+(\d+|-)\s+([\d.]+|-)\s+([\d.]+)\s+([\d.]+)\s+"
                 r"([\d,]+)\s+(\d+)MB\s+([\d.]+)$")


def test_saturation_asks_every_probe_once_and_prints_consistent_figures(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "saturation.py"), "--probes", "60", "--latency", "0.05",
         "--concurrency", "8", "--ceiling-probes", "120", "--server-procs", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    rows = [m.groups() for line in result.stdout.splitlines() if (m := ROW.match(line))]
    assert len(rows) == 2, result.stdout
    (c, latency, asked, wall, rate, limit, share, cpu, _server, served, rss, _load), ceiling = rows
    assert (c, latency, asked, served) == ("8", "50", "60", "60")  # the server saw each probe once
    assert int(limit) == 160 and float(share) == pytest.approx(int(rate) / 160, abs=0.01)
    # the wall is printed to 0.01 s, the rate from the unrounded wall: at 0.44 s that rounding alone moves 60 / wall
    # by 1.5 requests/s, so the printed rate lies between 60 over the wall's two rounding edges (+-1 for its own)
    low, high = 60 / (float(wall) + 0.005), 60 / max(float(wall) - 0.005, 1e-9)
    assert low - 1 <= int(rate) <= high + 1, (rate, wall)
    assert float(cpu) > 0 and int(rss) > 20
    assert (ceiling[0], ceiling[1], ceiling[2], ceiling[9]) == ("256", "0", "120", "120")
    assert (ceiling[5], ceiling[6]) == ("-", "-")  # no latency: no limit to share
    one_core = float(re.search(r"to itself at the last row's CPU cost: ([\d,]+) requests/s", result.stdout)
                     .group(1).replace(",", ""))
    assert one_core == pytest.approx(1000 / float(ceiling[7]), rel=0.01)
