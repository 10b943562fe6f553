"""The cluster bootstrap's coverage, small: a few dozen simulated data sets of 40 target terms (the benchmark,
benchmarks/stereoset_coverage.py, runs 300 per scenario and its table is in docs/stereoset.md)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "stereoset_coverage.py"
_SPEC = importlib.util.spec_from_file_location("stereoset_coverage", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
stereoset_coverage = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(stereoset_coverage)


def test_the_ss_and_lms_intervals_hold_the_population_figure_most_of_the_time() -> None:
    cov = stereoset_coverage.coverage(40, 0.6, 0.9, reps=30, draws=400, seed=5)
    # nominal 95%: 30 draws at 0.95 fall under 24 hits with probability < 0.1%; a broken interval (e.g. one
    # that ignored the spread between terms) covers far less
    assert cov["ss"] >= 0.8 and cov["lms"] >= 0.8
