"""Model selection as the paper does it: train every grid point, keep the highest validation p-value.

The paper (section 5.2) and upstream's debias_lm_grid.py train one model per combination of batch size,
gradient accumulation and the bias weight, run the paired t-test of the validation split's T1 and T2
perplexities on each, and keep the combination whose p-value is highest (the least evidence of a
difference between the groups). Three grids:
  * small (default): batch 8, accumulation 1, debias_hyp in {10, 50} (one point for CADA/CTDA);
  * paper: batch {4, 8, 16} x accumulation {1, 5, 8} x debias_hyp {10, 50, 100} (27 runs);
  * upstream: the paper's grid with lm_hyp in {0.001, 0.01} as upstream's script has it (54 runs).
Any axis can be set by hand (`--batch-size 8 --debias-hyp 10` ...) to make a one-point grid.
The validation split only chooses; the report's numbers come from the test split, which no choice saw.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import replace

from harness.core.errors import ConfigError
from harness.whitebox.debias.objective import DATA_METHODS
from harness.whitebox.debias.train import TrainSettings

GRIDS: dict[str, dict[str, tuple[float, ...]]] = {
    "small": {"batch_size": (8,), "grad_accum": (1,), "lm_hyp": (1.0,), "debias_hyp": (10.0, 50.0)},
    "paper": {"batch_size": (4, 8, 16), "grad_accum": (1, 5, 8), "lm_hyp": (1.0,),
              "debias_hyp": (10.0, 50.0, 100.0)},
    "upstream": {"batch_size": (4, 8, 16), "grad_accum": (1, 5, 8), "lm_hyp": (0.001, 0.01),
                 "debias_hyp": (10.0, 50.0, 100.0)},
}
AXES = ("batch_size", "grad_accum", "lm_hyp", "debias_hyp")


def grid_points(name: str, method: str, base: TrainSettings,
                overrides: Mapping[str, Sequence[float]] | None = None) -> list[TrainSettings]:
    """The settings of every run of a grid, with hand-set axes replacing the grid's."""
    if name not in GRIDS:
        raise ConfigError(f"Unknown grid '{name}'; choose one of {', '.join(GRIDS)}.")
    axes = dict(GRIDS[name])
    if method in DATA_METHODS:  # no bias term: its weights change nothing, train once per remaining point
        axes["lm_hyp"], axes["debias_hyp"] = (1.0,), (0.0,)
    for key, values in (overrides or {}).items():
        if key not in AXES:
            raise ConfigError(f"Unknown grid axis '{key}'; the axes are {', '.join(AXES)}.")
        if values and not (method in DATA_METHODS and key in ("lm_hyp", "debias_hyp")):  # weights of nothing
            axes[key] = tuple(values)
    for key in ("batch_size", "grad_accum"):
        if any(int(v) != v or v < 1 for v in axes[key]):
            raise ConfigError(f"{key} takes whole numbers of at least 1, not {list(axes[key])}.")
    points = []
    for bs, ga, lm, db in itertools.product(*(axes[k] for k in AXES)):
        points.append(replace(base, batch_size=int(bs), grad_accum=int(ga), lm_hyp=float(lm), debias_hyp=float(db)))
    return points


def better(p_new: float | None, p_best: float | None) -> bool:
    """The selection rule: a higher validation p-value wins; a run with no p (no test possible) never does."""
    if p_new is None:
        return False
    return p_best is None or p_new > p_best
