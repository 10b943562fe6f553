"""The StereoSet generator on the dev split: counts per task and bias type (upstream's dev counts), the
per-bias-type suites, display orders, what the log-likelihood mode scores (upstream's reading), and bad
options in one sentence."""

from __future__ import annotations

import pytest

from harness.core.errors import ConfigError
from harness.question_gen import stereoset as gen

pytestmark = pytest.mark.needs_data("stereoset")


def test_counts_are_upstreams_dev_counts() -> None:
    assert gen.count({"task": "intrasentence"}) == 2106 and gen.count({"task": "intersentence"}) == 2123
    assert gen.count_by_type({"task": "intrasentence"}) == {"profession": 810, "race": 962, "gender": 255,
                                                            "religion": 79}
    assert gen.count({"task": "intersentence", "bias_type": "religion", "permute": "rotate"}) == 3 * 78


def test_one_suite_per_bias_type() -> None:
    names = [n for n, _o in gen.variants({"name": "stereoset-intersentence", "task": "intersentence"})]
    assert names == [f"stereoset-intersentence-{b}" for b in ("gender", "profession", "race", "religion")]
    assert gen.variants({"task": "intersentence", "bias_type": "race"}) == []


def test_rotate_shows_each_candidate_at_each_letter_and_keeps_the_ids() -> None:
    probes = list(gen.generate_at({"task": "intrasentence", "permute": "rotate"}, "s", [0, 1, 2]))
    assert len({p.id for p in probes}) == 3 and len({p.meta["instance"] for p in probes}) == 1
    for letter in range(3):
        assert {p.meta["labels"][letter] for p in probes} == set(gen.LABELS)
    for p in probes:
        assert dict(zip(p.meta["labels"], p.meta["scored_ids"], strict=True)) == dict(
            zip(probes[0].meta["labels"], probes[0].meta["scored_ids"], strict=True))
        assert p.text.count("\nA. ") == 1 and p.meta["loglik"]["answers"] == ["A", "B", "C"]


def test_loglik_reads_sentences_after_the_start_token_and_continuations_after_the_context() -> None:
    intra = next(gen.generate({"task": "intrasentence"}, "s"))
    assert intra.meta["loglik"] == {"continuations": list(intra.options), "answers": ["A", "B", "C"],
                                    "score_context": "", "per_token": True}
    inter = next(gen.generate({"task": "intersentence"}, "s"))
    ctx = inter.meta["loglik"]["score_context"]
    assert ctx.startswith(inter.meta["context"]) and ctx[-1] in ".!?"
    assert inter.meta["loglik"]["continuations"] == [f" {o}" for o in inter.options]


def test_shuffle_is_seeded_and_none_keeps_the_files_order() -> None:
    a = [p.meta["order"] for p in gen.generate_at({"task": "intrasentence", "permute": "shuffle"}, "s", range(40))]
    b = [p.meta["order"] for p in gen.generate_at({"task": "intrasentence", "permute": "shuffle"}, "s", range(40))]
    assert a == b and len({tuple(o) for o in a}) > 1
    assert next(gen.generate({"task": "intrasentence"}, "s")).meta["order"] == [0, 1, 2]


@pytest.mark.parametrize(("spec", "words"), [
    ({}, "needs task"), ({"task": "both"}, "needs task"), ({"task": "intrasentence", "bias_type": "age"}, "bias_type"),
    ({"task": "intrasentence", "permute": "twice"}, "permute"), ({"task": "intrasentence", "colour": 1}, "Unknown"),
])
def test_bad_options_are_one_sentence(spec: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        gen.count(spec)
