"""One small check per row of the size/power table (harness.metrics.gate_size, docs/reports.md): fewer
draws than benchmarks/gate_size_power.py, and a tolerance the binomial error of the simulation guarantees:
a test's size at its null is at most 0.05 + 3 sigma, and its power at the stated effect is above its size."""

from __future__ import annotations

import math

import pytest

from harness.metrics.gate_size import EXACT, ROWS

DRAWS = 300
SIGMA = math.sqrt(0.05 * 0.95 / DRAWS)


@pytest.mark.parametrize("index", range(len(ROWS)), ids=[f"{r.family}:{r.statement}:{r.design}:{r.effect}"
                                                          for r in ROWS])
def test_row(index):
    row = ROWS[index]
    size = row.run(DRAWS, 1000 + 2 * index, True)
    power = row.run(DRAWS, 1001 + 2 * index, False)
    if any(word in row.statement for word in EXACT):
        # an estimate gate's row is an exact sum over every outcome: its size is at most 5%, with no slack
        assert size <= 0.05 + 1e-12, f"size {size:.4f} above 5%"
        assert power > 0.3 and power > 5 * size
        return
    assert size <= 0.05 + 3 * SIGMA, f"size {size:.3f} above 5% + 3 sigma"
    assert power > size


def test_no_row_is_a_bare_threshold():
    """Every gate of the table has a test: the bare "(no test)" rows are gone (issue 35)."""
    assert not [r.statement for r in ROWS if "no test" in r.statement]
