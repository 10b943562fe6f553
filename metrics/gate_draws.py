"""The `run` of a size/power row (harness.metrics.gate_rows.Row) whose gate is read through the gate's own
function on simulated metrics.json documents (gate_size_bounded.py, gate_size_decision_cf.py).

Why one builder: every such row seeds a generator, draws `draws` documents, counts the draws whose gate fails
and divides by `draws` (a draw with no test, or skipped because its value is within the limit, fails nothing).
A row says only how it draws and when its gate fails, as a generator of one bool per failing-or-not draw, so
it draws its data in its own order (per draw, or all at once) and the shares stay those it always gave.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from harness.metrics.gate_rows import ALPHA

#: (rng seeded for this run, draws, null) -> one bool per counted draw: does its gate fail
Fails = Callable[[np.random.Generator, int, bool], Iterable[bool]]


def rejects(got: tuple[float, str] | None) -> bool:
    """A gate function's answer (p, words) fails the gate at ALPHA; None (no test on this document) does not."""
    return got is not None and bool(got[0] < ALPHA)


def failing_share(fails: Fails) -> Callable[[int, int, bool], float]:
    """Row.run from `fails`: the share of `draws` simulated runs, seeded by `seed`, in which the gate fails."""

    def run(draws: int, seed: int, null: bool) -> float:
        rng = np.random.default_rng(seed)
        return sum(fails(rng, draws, null)) / draws

    return run
