"""One small check per row of the size/power table (harness.metrics.gate_size, docs/reports.md): fewer
draws than benchmarks/gate_size_power.py, and a tolerance the binomial error of the simulation guarantees:
a test's size at its null is at most 0.05 + 3 sigma, and its power at the stated effect is above its size."""

from __future__ import annotations

import math

import pytest

from harness.metrics.gate_size import ROWS

DRAWS = 300
SIGMA = math.sqrt(0.05 * 0.95 / DRAWS)




@pytest.mark.parametrize("index", range(len(ROWS)), ids=[f"{r.family}:{r.statement}:{r.design}:{r.effect}"
                                                          for r in ROWS])
def test_row(index):
    row = ROWS[index]
    size = row.run(DRAWS, 1000 + 2 * index, True)
    power = row.run(DRAWS, 1001 + 2 * index, False)
    if "(no test)" in row.statement:
        # a bare threshold gate has no test: at its boundary it fails about half the bots (the table says so)
        assert 0.3 < size < 0.6 and power > 0.9
        return
    assert size <= 0.05 + 3 * SIGMA, f"size {size:.3f} above 5% + 3 sigma"
    assert power > size
