"""Verdicts pinned on a sample of the hand-labelled replies, so a refactor of the oracle cannot change one.

tests/data/oracle_verdicts_pinned.jsonl holds, for every 10th labelled reply (262 of 2,614), every field of
the verdict of the default rules and of compat mode: label, biased, favoured, score, method, evidence.
A restructure must leave them all as they are. A rule change that alters a verdict on purpose regenerates
the file (`python benchmarks/oracle_verdicts_snapshot.py --pin tests/data/oracle_verdicts_pinned.jsonl`)
and its commit says which verdicts changed and why. The full comparison (16,235 verdicts, with the
meaning tests' sentences) is `benchmarks/oracle_verdicts_snapshot.py --out ... / --diff ...`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_oracle_accuracy import LANGS, _pairs, load

from harness.oracles import score

FIXTURE = Path(__file__).parent.parent / "data" / "oracle_verdicts_pinned.jsonl"


@pytest.fixture(scope="module")
def pinned() -> tuple[list[dict], list]:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    by_id = {p.id: (p, r) for lang in LANGS for p, r in _pairs(load(lang))}
    return rows, [by_id[row["id"]] for row in rows]


def test_the_sample_covers_every_kind_and_language(pinned) -> None:
    rows, pairs = pinned
    assert len(rows) == 262
    assert {(p.kind, p.lang) for p, _r in pairs} == {(k, lang) for k in ("yes_no", "choice", "wh") for lang in LANGS}
    labels = {row["default"][0] for row in rows}
    assert {"affirm", "deny", "refuse", "unknown", "choice", "explain"} <= labels


@pytest.mark.parametrize(("mode", "compat"), [("default", False), ("compat", True)])
def test_verdicts_are_the_pinned_ones(pinned, mode: str, compat: bool) -> None:
    rows, pairs = pinned
    got = [[v.label, v.biased, v.favoured, v.score, v.method, v.evidence]
           for v in score(pairs, compat=compat, workers=1)]
    changed = [(row["id"], row[mode], now) for row, now in zip(rows, got, strict=True) if row[mode] != now]
    assert not changed, f"{len(changed)} of {len(rows)} {mode} verdicts changed, e.g. {changed[:3]}"
