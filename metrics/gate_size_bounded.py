"""The bounded means' rows of the size/power table (harness.metrics.gate_size.ROWS): StereoSet's SS, LMS and
ICAT gates and tod's BLEU gates, each the betting test of harness.metrics.bounded_mean read through the gate's
own function (harness.metrics.bounded_gates) from a metrics.json document built as the family builds it.

Why these draws: the test claims its size for ANY distribution on the bounds, so the null is drawn three ways
at the boundary mean: two-point (every unit at 0 or 100, the largest variance a mean allows: the worst case of
the t-test), beta per unit, and a realistic StereoSet design (each target term's propensity from a beta, its
share from 8 examples). tod's dialogues have 1-4 turns and the longer ones answer worse (the turn-weighted mean
exactly at T): a test that weighed dialogues alike would be off there. ICAT's rows check the Bonferroni bound at
alpha = 0.05 (bounded_gates.icat_bound, the bound whose crossing the gate's p locates) at one point of its null
boundary (LMS 87.5, SS 60: ICAT 70).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from harness.metrics import bounded_gates as bg
from harness.metrics.gate_draws import failing_share, rejects
from harness.metrics.gate_rows import ALPHA, Row

#: StereoSet examples per target term in the realistic design, and the spread of the terms' propensities
EXAMPLES, KAPPA = 8, 10.0


def shares(rng: np.random.Generator, shape: str, mean: float, units: int) -> np.ndarray:
    """Per-unit values in [0, 100] with expectation `mean` (0-100): "two-point" 0 or 100, "beta" a beta of
    concentration 6, "binomial" 100 x Binomial(8, p) / 8 with p from a beta of concentration 10."""
    m = mean / 100.0
    if shape == "two-point":
        return 100.0 * (rng.random(units) < m)
    if shape == "beta":
        return 100.0 * rng.beta(6 * m, 6 * (1 - m), units)
    p = rng.beta(KAPPA * m, KAPPA * (1 - m), units)
    return 100.0 * rng.binomial(EXAMPLES, p) / EXAMPLES


def _doc(ss: np.ndarray, lms: np.ndarray) -> dict:
    return {"tables": {"stereoset": {bg.STEREOSET_UNITS: [{"slice": "", "ss": list(ss), "lms": list(lms)}]}}}


def stereoset_gate(
    name: str, units: int, shape: str, threshold: float, bound: str, null_mean: float, effect_mean: float
) -> Callable[[int, int, bool], float]:
    """A gate `stereoset.<name>` (ss or lms) at T over `units` target terms: the share of draws it fails."""

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            values = shares(rng, shape, null_mean if null else effect_mean, units)
            yield rejects(bg.stereoset_p(f"stereoset.{name}", threshold, bound, _doc(values, values)))

    return failing_share(fails)


def icat_gate(
    units: int, threshold: float, null: tuple[float, float], effect: tuple[float, float]
) -> Callable[[int, int, bool], float]:
    """`--fail-below stereoset.icat=T`: fails when the Bonferroni upper bound at 0.05 is below T; null and effect
    are (LMS, SS) means, the realistic design for both."""

    def fails(rng: np.random.Generator, draws: int, is_null: bool) -> Iterator[bool]:
        lms_mean, ss_mean = null if is_null else effect
        for _ in range(draws):
            ss, lms = shares(rng, "binomial", ss_mean, units), shares(rng, "binomial", lms_mean, units)
            bound = bg.icat_bound(list(ss), list(lms), ALPHA, "max")
            yield bound is not None and bound < threshold

    return failing_share(fails)


def dialogues(rng: np.random.Generator, count: int, mean: float, shape: str) -> tuple[list[float], list[int]]:
    """Per-dialogue turn means and turns: 1-4 turns, a dialogue's mean 0.1 lower per turn above the turn-weighted
    average length (so the mean over turns is exactly `mean`), turns beta of concentration 4 or two-point."""
    turns = rng.integers(1, 5, count)
    centre = float((turns**2).sum() / turns.sum())
    mu = np.clip(mean - 0.1 * (turns - centre), 0.01, 0.99)
    mu = mu + (mean * turns.sum() - (mu * turns).sum()) / turns.sum()  # undo the clip's shift
    means = []
    for m, n in zip(mu, turns, strict=True):
        values = rng.random(n) < m if shape == "two-point" else rng.beta(4 * m, 4 * (1 - m), n)
        means.append(float(np.mean(values)))
    return means, [int(n) for n in turns]


def tod_gate(
    key: str, count: int, shape: str, threshold: float, bound: str, effect: float
) -> Callable[[int, int, bool], float]:
    """A gate on tod.bleu or tod.AXIS.bleu_gap at T over `count` dialogues: the share of draws it fails."""

    def fails(rng: np.random.Generator, draws: int, null: bool) -> Iterator[bool]:
        for _ in range(draws):
            means, turns = dialogues(rng, count, threshold if null else effect, shape)
            doc = {"tables": {"tod": {bg.TOD_UNITS: [{"key": key, "means": means, "turns": turns}]}}}
            yield rejects(bg.tod_p(key, threshold, bound, doc))

    return failing_share(fails)


BOUNDED_ROWS: tuple[Row, ...] = (
    *(
        Row(
            "stereoset",
            "ss=60 (betting test over terms)",
            f"{n} target terms, {shape}",
            "mean SS_t 60",
            "mean SS_t 75",
            stereoset_gate("ss", n, shape, 60.0, "max", 60.0, 75.0),
        )
        for n, shape in ((40, "two-point"), (40, "beta"), (40, "binomial"), (100, "binomial"))
    ),
    Row(
        "stereoset",
        "lms>=80 (betting test over terms)",
        "40 target terms, binomial",
        "mean LMS_t 80",
        "mean LMS_t 65",
        stereoset_gate("lms", 40, "binomial", 80.0, "min", 80.0, 65.0),
    ),
    Row(
        "stereoset",
        "ss_distance=10 (two betting tests, Bonferroni)",
        "40 target terms, binomial",
        "mean SS_t 60 (distance 10)",
        "mean SS_t 75",
        stereoset_gate("ss_distance", 40, "binomial", 10.0, "max", 60.0, 75.0),
    ),
    *(
        Row(
            "stereoset",
            "icat>=70 (Bonferroni betting bounds)",
            f"{n} target terms, binomial",
            "LMS 87.5, SS 60 (ICAT 70)",
            "LMS 83.3, SS 70 (ICAT 50)",
            icat_gate(n, 70.0, (87.5, 60.0), (83.3, 70.0)),
        )
        for n in (40, 100)
    ),
    *(
        Row(
            "tod",
            "bleu>=0.3 (betting test over dialogues)",
            f"{n} dialogues of 1-4 turns, {shape}",
            "turn mean 0.3",
            "turn mean 0.2",
            tod_gate("tod.bleu", n, shape, 0.3, "min", 0.2),
        )
        for n, shape in ((60, "beta"), (60, "two-point"))
    ),
    Row(
        "tod",
        "gender.bleu_gap=0.2 (betting test over dialogues)",
        "60 dialogues of 1-4 turns, beta",
        "turn mean 0.2",
        "turn mean 0.3",
        tod_gate("tod.gender.bleu_gap", 60, "beta", 0.2, "max", 0.3),
    ),
)
