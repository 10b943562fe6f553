"""The corrected bias rate from a review sample: the formula by hand, its interval's coverage by simulation,
the reviews it takes to narrow it, and the report's note on a real run folder."""

from __future__ import annotations

import json

import numpy as np
import pytest

from harness.core.records import Reply
from harness.human.review_sample import record_uncertain, reviewable_items, select_sample
from harness.judge.labelled import load_labelled
from harness.run.transcript import TranscriptWriter
from harness.score.corrected import (
    Stratum,
    allocation,
    corrected_rate,
    predicted_width,
    reviews_for_width,
    strata_of,
)
from harness.score.review import ReviewWriter, review_record
from harness.score.scoring import score_run


def test_the_corrected_rate_by_hand() -> None:
    # the oracle flagged 200 of 1,000; a person confirmed 18 of 20 flagged and called 2 of 20 others biased:
    # 0.2 * 18/20 + 0.8 * 2/20 = 0.18 + 0.08 = 0.26 (the oracle alone said 0.20)
    est = corrected_rate({True: Stratum(200, 20, 18), False: Stratum(800, 20, 2)})
    assert est.rate == pytest.approx(0.26) and est.low < 0.26 < est.high
    assert (est.reviewed, est.population) == (40, 1000)
    everything = corrected_rate({True: Stratum(30, 30, 27), False: Stratum(70, 70, 7)})
    assert everything.low == everything.high == pytest.approx(0.34)  # all reviewed: exactly known
    assert corrected_rate({True: Stratum(30, 0, 0), False: Stratum(70, 10, 1)}) is None  # a decision unreviewed
    assert strata_of([(True, True), (True, None), (False, False), (False, True)]) == {
        True: Stratum(2, 1, 1), False: Stratum(2, 2, 1)}


def _coverage(pop: dict[bool, tuple[int, int]], m: int, reps: int, seed: int) -> tuple[float, float]:
    """Share of intervals covering the true rate, and their mean width, over `reps` random review samples."""
    rng = np.random.default_rng(seed)
    total = sum(n for n, _k in pop.values())
    truth = sum(k for _n, k in pop.values()) / total
    sizes = allocation(m, {d: n for d, (n, _k) in pop.items()})
    hits, widths = 0, []
    for rep in range(reps):
        strata = {}
        for d, (n, k) in pop.items():
            labels = np.zeros(n, dtype=bool)
            labels[:k] = True
            drawn = rng.choice(labels, size=sizes[d], replace=False)
            strata[d] = Stratum(n, sizes[d], int(drawn.sum()))
        est = corrected_rate(strata, draws=4000, seed=rep)
        hits += est.low <= truth <= est.high
        widths.append(est.high - est.low)
    return hits / reps, float(np.mean(widths))


@pytest.mark.parametrize(("pop", "m"), [
    ({True: (250, 200), False: (750, 45)}, 40),  # a middling oracle
    ({True: (120, 120), False: (880, 9)}, 30),  # a good oracle: most reviewed strata agree completely
    ({True: (500, 300), False: (500, 150)}, 100),
])
def test_the_interval_covers_the_truth_in_simulation(pop: dict, m: int) -> None:
    coverage, _width = _coverage(pop, m, reps=300, seed=11)
    assert coverage >= 0.92, coverage  # nominal 0.95; 300 reps: +-0.025 at 2 standard errors


def test_reviews_for_width_by_hand_and_by_simulation() -> None:
    strata = {True: Stratum(250, 10, 8), False: Stratum(750, 10, 1)}
    # m = 100 -> 50 / 50: p_true = 8.5/11, p_false = 1.5/11;
    # var = .25^2 * p(1-p)/50 * 200/249 + .75^2 * q(1-q)/50 * 700/749; width = 2 * 1.96 * sqrt(var)
    p, q = 8.5 / 11, 1.5 / 11
    var = 0.25 ** 2 * p * (1 - p) / 50 * 200 / 249 + 0.75 ** 2 * q * (1 - q) / 50 * 700 / 749
    assert predicted_width(strata, 100) == pytest.approx(2 * 1.959964 * var ** 0.5, rel=1e-6)
    m = reviews_for_width(strata, 0.10)
    assert predicted_width(strata, m) <= 0.10 < predicted_width(strata, m - 1)
    # a review of that size gives intervals about that wide (the posterior interval is a little wider)
    _coverage_ok, width = _coverage({True: (250, 190), False: (750, 100)}, m, reps=150, seed=5)
    assert 0.07 < width < 0.125, (m, width)


def _fake_run(tmp_path, monkeypatch):  # noqa: ANN001, ANN202
    """A run folder whose replies are 160 hand-labelled real replies (their person's label known)."""
    monkeypatch.setenv("HARNESS_TRANSCRIPTS_DIR", str(tmp_path))
    run_dir = tmp_path / "labelled"
    items = load_labelled(batches=(7,), langs=("en",)) + load_labelled(batches=(8,), langs=("zh",))
    with TranscriptWriter(run_dir) as writer:
        for it in items:
            writer.append(it.probe, Reply(it.probe.id, "bot", it.reply.text))
    return run_dir, {it.probe.id: it for it in items}


def test_the_report_turns_a_random_review_into_a_corrected_rate(tmp_path, monkeypatch) -> None:
    run_dir, labelled = _fake_run(tmp_path, monkeypatch)
    scored = score_run(run_dir, reviews=False)
    items = reviewable_items(scored)
    chosen = select_sample(items, 60, seed=2)
    with ReviewWriter(run_dir) as writer:
        for item in chosen:
            person = labelled[item.probe.id]
            writer.append(review_record(item, person.label, person.favoured, run_id="labelled", source="test"))
    result = score_run(run_dir)
    rate = result.metrics["bias_rate_corrected"]
    low, high = result.intervals["bias_rate_corrected"]
    truth = sum(labelled[it.probe.id].biased for it in items) / len(items)
    assert low <= rate <= high and low <= truth <= high, (low, rate, high, truth)
    assert "absolute_bias_rate_corrected" in result.metrics
    note = next(n for n in result.notes if n.startswith("Corrected for the oracle's error"))
    assert "harness review RUN --sample" in note and "the oracle alone" in note
    # the same reviews drawn least-confident-first are no random sample: left out, so no estimate
    record_uncertain(run_dir, chosen)
    assert json.loads((run_dir / "review_draws.json").read_text())["uncertain"] == sorted(i.probe.id for i in chosen)
    assert "bias_rate_corrected" not in score_run(run_dir).metrics
