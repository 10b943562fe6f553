"""Which replies a person reviews: the scored BiasAsker replies of a run and a deterministic, stratified
sample of them (harness review RUN).

Drawing the sample scores the run with the oracle alone, so it sits above scoring; the labels, their file
and the agreement arithmetic that scoring applies are harness.score.review.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.records import Probe, Reply
from harness.score.review import ReviewItem, reviewable_kinds
from harness.score.scoring import score_run

DEFAULT_SAMPLE = 50


def reviewable_items(result: Any) -> list[ReviewItem]:
    """Scored BiasAsker replies of an oracle-only RunResult, in probe-id order."""
    frame = result.frame
    if frame.empty:
        return []
    items = []
    kinds = reviewable_kinds()  # here, not at import: it loads every family's metrics (POT, torch: seconds)
    for row in frame.itertuples(index=False):
        if row.kind in kinds:
            probe: Probe = row.probe
            items.append(ReviewItem(probe, Reply(probe.id, row.target, row.reply), row.verdict))
    return sorted(items, key=lambda it: it.probe.id)


def select_sample(items: Sequence[ReviewItem], n: int, *, seed: int = 0, only: str = "all") -> list[ReviewItem]:
    """A deterministic sample of n items, stratified by the oracle's decision.

    Same items + n + seed -> same sample in the same order. With only="all" half of the sample (or as
    many as exist) comes from the biased verdicts and the rest from the not-biased ones, so both kinds
    of error are looked at even when one decision is rare. Each stratum is drawn in a seeded order, so a
    larger n keeps every item of a smaller one.
    """
    def drawn(part: Iterable[ReviewItem], name: str) -> list[ReviewItem]:
        ordered = sorted(part, key=lambda it: it.probe.id)
        random.Random(f"harness-review:{seed}:{name}").shuffle(ordered)
        return ordered

    biased = drawn((it for it in items if it.oracle.biased), "biased")
    if only == "biased":
        return biased[:n]
    clean = drawn((it for it in items if not it.oracle.biased), "not-biased")
    k = min(len(biased), max(n - len(clean), (n + 1) // 2))
    chosen_b, chosen_c = biased[:k], clean[: n - k]
    out: list[ReviewItem] = []
    for i in range(max(len(chosen_b), len(chosen_c))):  # alternate, so a short session sees both kinds
        out += chosen_b[i:i + 1] + chosen_c[i:i + 1]
    return out


def recorded_reader(run: str | Path) -> Any:
    """The harness.judge.reading.ReaderSettings the run's last scoring used (its metrics.json oracle.reader);
    None when the rules read it, or it was never scored (a damaged metrics.json reads as the rules', as
    `harness report` would rewrite it)."""
    from harness.judge.reading import settings_from_record
    from harness.score.scoring import METRICS_FILE, load_metrics, resolve_run

    path = resolve_run(run) / METRICS_FILE
    if not path.is_file():
        return None
    try:
        doc = load_metrics(path)
    except HarnessError:
        return None
    return settings_from_record((doc.get("oracle") or {}).get("reader"), show_progress=False)


def open_review(run: str | Path, *, method: str = "default", compat: bool = False, reader: Any = None,
                console: Any = None) -> tuple[Path, Any, list[ReviewItem]]:
    """Resolve and score the run as its verdicts were read, reviews not applied (so the sample never moves
    with the person's answers): by the oracle alone, or, given the run's `reader` (recorded_reader), by the
    judge(s) it used, whose answers are in the run's judge folders, so nothing is asked again and the
    review corrects the reading the run used (`harness review` and `harness view` alike).
    HarnessError when there is nothing a person could review, or a recorded judge is no longer configured."""
    if reader is not None:
        from harness.judge.reading import check_judges

        check_judges(reader)  # a judge since removed from targets.toml: one sentence, before any scoring
    result = score_run(run, method=method, compat=compat, reviews=False, reader=reader, console=console)
    items = reviewable_items(result)
    if not items and reader is not None:
        raise HarnessError(f"Run {result.run_dir.name} has no reply its judge could read to review; run "
                           f"`harness report {result.run_dir.name}` to see why.")
    if not items:
        kinds = ", ".join(sorted(reviewable_kinds()))  # the kinds whose declarations offer review labels
        raise HarnessError(f"Run {result.run_dir.name} has no scored reply of a kind a person can review ({kinds}) "
                           f"to review; run or import the questions first.")
    return result.run_dir, result, items


def least_confident(items: Sequence[ReviewItem], n: int, *, seed: int = 0) -> list[ReviewItem]:
    """The n items whose verdicts are least confident (harness.judge.confidence), least first; items of
    equal confidence in a seeded order. HarnessError when the verdicts have no calibrated confidence."""
    from harness.judge.confidence import confidence

    scored = [(confidence(it.probe, it.oracle), it) for it in sorted(items, key=lambda it: it.probe.id)]
    if any(c is None for c, _it in scored):
        raise HarnessError("--uncertain orders verdicts by their calibrated confidence, which only the default "
                           "rules have; drop --method / --compat, or review a random sample without --uncertain.")
    rng = random.Random(f"harness-review-uncertain:{seed}")
    keyed = [(c, rng.random(), it) for c, it in scored]
    return [it for _c, _r, it in sorted(keyed, key=lambda t: (t[0], t[1]))[:n]]


def record_uncertain(run_dir: Path, items: Iterable[ReviewItem]) -> None:
    """Add these probe ids to RUN/review_draws.json: drawn least-confident-first, they are no random sample
    of their decision, and the corrected bias rate leaves them out (harness.score.corrected)."""
    import json
    import os

    from harness.score.corrected import DRAWS_FILE, uncertain_draws

    ids = uncertain_draws(run_dir) | {it.probe.id for it in items}
    path = Path(run_dir) / DRAWS_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps({"uncertain": sorted(ids)}, indent=0), encoding="utf-8")
    os.replace(tmp, path)
