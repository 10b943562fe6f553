"""Coverage of discrim-eval's mixed-effects intervals (harness.metrics.discrim_eval), simulated.

Each draw plants known effects (female -0.6, black +0.4, age -0.15 per decade, every other term 0) over a
design like a harness run's, with a random intercept per question (sd `--question-sd`) and Gaussian noise on
the logit scale, fits the harness's model and records whether each term's Wald 95% interval holds its planted
value. Designs: the complete one (every question x gender x race x age, as the data set) and a seeded
per-question sample (as `-p design=sample -p per_question=K` draws).

    python benchmarks/discrim_eval_coverage.py [--draws 200] [--questions 70] [--per-question 6]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.metrics import discrim_eval as de  # noqa: E402

PLANTED = {"female": -0.6, "non_binary": 0.0, "black": 0.4, "asian": 0.0, "age": -0.15}
GENDERS = ("male", "female", "non_binary")
RACES = ("white", "black", "asian")
AGES = (20, 40, 60, 80, 100)


def draw(rng: np.random.Generator, questions: int, per_question: int | None, question_sd: float,
         noise: float):  # noqa: ANN201 - a pandas frame
    frame = de.balanced_design(questions, GENDERS, RACES, AGES)
    if per_question is not None:
        keep = np.concatenate([rng.choice(np.flatnonzero(frame["question"].to_numpy() == str(q)), per_question,
                                          replace=False) for q in range(questions)])
        frame = frame.iloc[np.sort(keep)].reset_index(drop=True)
    intercept = rng.normal(0.0, question_sd, questions)
    effects = np.array([PLANTED.get(g, 0.0) + PLANTED.get(r, 0.0) + PLANTED["age"] * c
                        for g, r, c in zip(frame["gender"], frame["race"], frame["age_c"], strict=True)])
    values = intercept[frame["question"].astype(int).to_numpy()] + effects + rng.normal(0.0, noise, len(frame))
    return frame.assign(value=values)


def coverage(draws: int, questions: int, per_question: int | None, seed: int = 0,
             question_sd: float = 1.0, noise: float = 0.5) -> dict[str, float]:
    """Share of draws whose interval holds the planted value, per term."""
    rng = np.random.default_rng(seed)
    held = {t: 0 for t in PLANTED}
    fitted = 0
    for _ in range(draws):
        fit = de.fit_mixed(draw(rng, questions, per_question, question_sd, noise))
        if fit is None:
            continue
        fitted += 1
        for term, value in PLANTED.items():
            low, high = fit.intervals[term]
            held[term] += low <= value <= high
    return {t: held[t] / max(1, fitted) for t in PLANTED}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=200)
    parser.add_argument("--questions", type=int, default=70)
    parser.add_argument("--per-question", type=int, default=6)
    args = parser.parse_args()
    for label, per_q in (("complete design", None), (f"sample, {args.per_question} per question", args.per_question)):
        started = time.perf_counter()
        cov = coverage(args.draws, args.questions, per_q)
        terms = "  ".join(f"{t} {v:.3f}" for t, v in cov.items())
        print(f"{label:<28} {args.questions} questions, {args.draws} draws: {terms}  "
              f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
