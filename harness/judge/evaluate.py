"""`harness oracle-eval`: how well an oracle setting reads replies a person labelled, and how fast.

Any setting: the rules (a --method, --compat), a judge, several judges, hybrid. It reads the hand-labelled
replies (harness.judge.labelled; by default the blind batches 6-9, the honest figure), optionally a
stratified sample of them (the same number from each language x probe kind, seeded), and reports per
language and probe kind:
  accuracy   share of replies whose biased / not-biased decision is the person's (a choice must name the
             person's group); an `unscored` reply counts as not right, so a judge cannot look good by
             reading only the easy ones;
  scored     share the setting could read at all (the rest were unscored);
  kappa      Cohen's kappa of the decision (categories: not biased, or biased toward each group) against the
             person, over the scored replies: agreement beyond what the two label frequencies give by chance;
  label      share whose label (affirm / deny / refuse / unknown / explain / choice + group) is the person's.
Speed: verdicts per second of the reading (the judge's time includes its calls; cached answers cost nothing,
so a repeated evaluation is fast: `--no-cache` to time the judge itself) and the judge calls asked.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.records import LABEL_UNSCORED, Verdict
from harness.judge.labelled import Labelled
from harness.judge.prompts import shows_groups
from harness.judge.reading import ReaderSettings, read_replies


def cohen_kappa(pairs: Iterable[tuple[str, str]]) -> float | None:
    """Cohen's kappa of two raters' categories; None when undefined (no pairs, or chance agreement is 1)."""
    pairs = list(pairs)
    if not pairs:
        return None
    n = len(pairs)
    observed = sum(a == b for a, b in pairs) / n
    first, second = Counter(a for a, _b in pairs), Counter(b for _a, b in pairs)
    expected = sum(first[k] * second.get(k, 0) for k in first) / (n * n)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)


def decision(verdict_biased: bool, favoured: str | None, kind: str) -> str:
    """The decision as a category: "no", or "yes" (with the group for a question that picks one)."""
    if not verdict_biased:
        return "no"
    return f"yes:{favoured}" if shows_groups(kind) else "yes"


def stratified_sample(items: Sequence[Labelled], n: int | None, seed: int) -> list[Labelled]:
    """n items, as equal as possible from each (language, kind) cell, each cell drawn in a seeded order."""
    if not n or n >= len(items):
        return list(items)
    cells: dict[tuple[str, str], list[Labelled]] = {}
    for item in sorted(items, key=lambda it: it.probe.id):
        cells.setdefault((item.probe.lang, item.probe.kind), []).append(item)
    for key, members in cells.items():
        random.Random(f"oracle-eval:{seed}:{key[0]}:{key[1]}").shuffle(members)
    chosen: list[Labelled] = []
    share, rest = divmod(n, len(cells))
    left = dict.fromkeys(cells, share)
    for key in sorted(cells)[:rest]:
        left[key] += 1
    spare = 0
    taken: dict[tuple[str, str], list[Labelled]] = {}
    for key in sorted(cells, key=lambda k: len(cells[k])):  # small cells first: what they lack goes on
        take = min(len(cells[key]), left[key] + spare)
        spare = left[key] + spare - take
        taken[key] = cells[key][:take]
    # round robin over the cells: a judge that is stopped early has read a balanced part, and a smaller
    # --sample with the same seed is a part of this one (each cell is a prefix of its seeded order)
    for i in range(max(map(len, taken.values()), default=0)):
        chosen += [members[i] for _key, members in sorted(taken.items()) if i < len(members)]
    return chosen


@dataclass
class Cell:
    n: int = 0
    right: int = 0
    label_right: int = 0
    scored: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list)

    def add(self, item: Labelled, verdict: Verdict) -> None:
        self.n += 1
        if verdict.label == LABEL_UNSCORED:
            return
        self.scored += 1
        self.right += int(item.decision_right(verdict))
        self.label_right += int(item.label_right(verdict))
        self.pairs.append((decision(item.biased, item.favoured, item.probe.kind),
                           decision(bool(verdict.biased), verdict.favoured, item.probe.kind)))

    def row(self) -> dict[str, Any]:
        kappa = cohen_kappa(self.pairs)
        return {"n": self.n, "accuracy": self.right / self.n if self.n else None,
                "scored": self.scored / self.n if self.n else None,
                "kappa": None if kappa is None else round(kappa, 4),
                "label": self.label_right / self.n if self.n else None}


@dataclass
class Evaluation:
    """Rows per (language, kind), per language and overall, with the reading's speed."""

    setting: str
    rows: dict[tuple[str, str], dict[str, Any]]
    seconds: float
    verdicts: int
    judge_calls: dict[str, Any] = field(default_factory=dict)

    @property
    def per_second(self) -> float | None:
        return self.verdicts / self.seconds if self.seconds > 0 else None


def evaluate(items: Sequence[Labelled], settings: ReaderSettings, *, method: str = "default", compat: bool = False,
             workdir: Path | None = None, console: Any = None) -> Evaluation:
    """Read `items` with the setting and compare with the person's labels (module docstring)."""
    from harness.oracles import score

    pairs = [(item.probe, item.reply) for item in items]
    score(pairs[:1], method=method, compat=compat)  # load word lists and segmenters before the clock starts
    started = time.perf_counter()
    rules = {v.probe_id: v for v in score(pairs, method=method, compat=compat)}
    rules_s = time.perf_counter() - started
    readings = read_replies(pairs, rules, settings, run_dir=workdir, console=console)
    seconds = time.perf_counter() - started if settings.uses_judge else rules_s
    cells: dict[tuple[str, str], Cell] = {}
    for item in items:
        verdict = readings.verdicts[item.probe.id]
        for key in ((item.probe.lang, item.probe.kind), (item.probe.lang, "all"), ("all", "all")):
            cells.setdefault(key, Cell()).add(item, verdict)
    name = "rules" if not settings.uses_judge else f"{settings.mode}: {'+'.join(settings.judges)}"
    if not settings.uses_judge and (compat or method != "default"):
        name = "rules: compat" if compat else f"rules: {method}"
    return Evaluation(name, {k: c.row() for k, c in sorted(cells.items())}, seconds, len(items),
                      readings.record.get("calls", {}) | {"position_flips": readings.record.get("position_flips")}
                      if settings.uses_judge else {})
