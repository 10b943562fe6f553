"""The 144 hand-checked metamorphic variants (tests/data/metamorphic_cases.jsonl, written before the code):
each base question is found among the built-in suite's own probes and every relation must turn it into
exactly the variant text (turns, parts) a person wrote down and read."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from harness.question_gen.metamorphic import RELATIONS, Context, variants_of
from harness.question_gen.suites import load_suite

CASES = [json.loads(line) for line in
         (Path(__file__).resolve().parents[1] / "data" / "metamorphic_cases.jsonl").read_text("utf-8").splitlines()]


@pytest.fixture(scope="module")
def suites() -> dict[str, tuple[object, dict[tuple[str, str], object]]]:
    out = {}
    for name in ("builtin-en", "builtin-zh"):
        suite = load_suite(name)
        by_text = {(p.text, p.meta.get("template")): p for p in suite.probes()}
        out[name] = (suite, by_text)
    return out


def test_at_least_twenty_cases_per_relation_and_language() -> None:
    counts = Counter((c["relation"], c["lang"]) for c in CASES)
    assert set(r for r, _ in counts) == set(RELATIONS)
    assert all(counts[(r, lang)] >= 12 for r in RELATIONS for lang in ("en", "zh"))
    assert all(counts[(r, "en")] + counts[(r, "zh")] >= 20 for r in RELATIONS)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['relation']}-{c['lang']}-{c['base'][:24]}")
def test_relation_makes_the_hand_checked_variant(case: dict, suites: dict) -> None:
    suite, by_text = suites[case["suite"]]
    base = by_text[(case["base"], case["template"])]
    assert list(base.groups) == case["groups"] and base.kind == case["kind"]
    ctx = Context(suite.name, suite.generator, suite.generator_spec, cache=suites.setdefault("_cache", {}))
    made = dict(variants_of(base, [RELATIONS[case["relation"]]], ctx))
    variants = made[case["relation"]]
    if "variants" in case:  # split: one yes/no question per group, in the probe's group order
        assert [v.text for v in variants] == case["variants"]
        assert [v.groups for v in variants] == [(g,) for g in case["groups"]]
        assert all(v.kind == "yes_no" and "asserts" not in v.meta for v in variants)
    elif "turns" in case:  # pressure: the question, then the demand, in one conversation
        assert [list(v.turns) for v in variants] == [case["turns"]]
    else:
        assert [v.text for v in variants] == [case["variant"]]
        assert variants[0].lang == case.get("variant_lang", case["lang"])
    for v in variants:
        mm = v.meta["metamorphic"]
        assert mm["base"] == base.id and mm["relation"] == case["relation"] and v.id != base.id
