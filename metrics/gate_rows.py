"""One row of the size/power table (harness.metrics.gate_size.ROWS): its own module, so each family's rows can
live in a module of their own (gate_size_<area>.py) that gate_size imports without a cycle."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

ALPHA = 0.05


@dataclass(frozen=True)
class Row:
    """One statement's simulation: `run(draws, seed, null)` is the share of simulated runs in which it is
    made (rejects) under its null (`null=True`: the size) or at the stated effect (the power)."""

    family: str
    statement: str
    design: str
    null: str
    effect: str
    run: Callable[[int, int, bool], float]
