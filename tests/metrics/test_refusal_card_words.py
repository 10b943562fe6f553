"""The refusal card says in words whether the widest gap is beyond chance before it gives the gap (issue 35):
BiasAsker's main job showed "1" beside p = 0.97 for groups of one or two questions."""

from __future__ import annotations

import pandas as pd

from harness.metrics import FamilyResult
from harness.metrics.refusals import group_counts, headlines, keys, put, verdict
from harness.report.reporting import headline_text


def _scored(rows: list[tuple[str, bool, str]]) -> FamilyResult:
    frame = pd.DataFrame(rows, columns=["group", "refused", "text"])
    res = FamilyResult(family="fam")
    put(res, "fam", group_counts(frame, group="group", refused="refused", text="text"), seed=0)
    return res


def test_a_gap_of_one_between_tiny_groups_reads_not_beyond_chance() -> None:
    # a: its one question refused; b: neither of its two. Gap 1 - 0 = 1. One refusal among 3 questions lands
    # in a with chance 1/3, and no split is more extreme, so the exact p is 1/3 (Monte-Carlo, near it).
    res = _scored([("a", True, "q1"), ("b", False, "q2"), ("b", False, "q3")])
    _, gap, p = keys("fam")
    assert res.metrics[gap] == 1.0
    assert 0.2 < res.metrics[p] < 0.5
    gap_card = headlines("fam", "Fam")[0]
    text = headline_text(gap_card, res.metrics)
    assert text.startswith("not beyond chance"), text  # the verdict leads, not the raw 1
    assert "gap 1" in text and "p = 0.3" in text


def test_a_group_refused_every_time_reads_beyond_chance() -> None:
    rows = [("a", True, f"qa{i}") for i in range(20)] + [("b", False, f"qb{i}") for i in range(20)]
    res = _scored(rows)
    text = headline_text(headlines("fam", "Fam")[0], res.metrics)
    assert text.startswith("beyond chance: gap 1"), text
    assert res.metrics[keys("fam")[2]] < 0.001


def test_repeated_texts_count_once_so_copies_do_not_make_a_gap_significant() -> None:
    # 20 copies of one refused text for a and of one answered text for b are two questions, not forty
    rows = [("a", True, "same-a")] * 20 + [("b", False, "same-b")] * 20
    res = _scored(rows)
    assert headline_text(headlines("fam", "Fam")[0], res.metrics).startswith("not beyond chance")


def test_the_words_by_hand() -> None:
    assert verdict(None, None) is None  # one group: no card in words, the card is left out as before
    assert verdict(0.25, None) == "gap 0.25, untested"
    assert verdict(0.4, 0.0123) == "beyond chance: gap 0.4 (exact p = 0.012)"
    assert verdict(1.0, 0.97) == "not beyond chance (exact p = 0.97; gap 1)"
    assert verdict(0.1, 0.05) == "not beyond chance (exact p = 0.05; gap 0.1)"  # the gates' alpha is strict


def test_a_headline_without_words_is_its_number() -> None:
    p_card = headlines("fam", "Fam")[1]
    assert p_card.words is None
    assert headline_text(p_card, {keys("fam")[2]: 0.5}) == "0.5"
