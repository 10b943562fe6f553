"""The BBQ suite: which examples a spec selects, the probes it makes of them (prompt, options, meta in displayed
order, the upstream id `harness import --predictions` matches), rotation, the per-category suites from one file,
and bad options in one sentence."""

from __future__ import annotations

import pytest

from harness.core.errors import ConfigError
from harness.question_gen import bbq
from harness.question_gen import bbq_templates as t
from harness.question_gen.suites import list_suites, load_suite, select_probes

pytestmark = pytest.mark.needs_data("bbq")


def test_one_file_yields_bbq_and_a_suite_per_category() -> None:
    names = {i.name for i in list_suites()}
    assert {"bbq", "bbq-age", "bbq-disability-status", "bbq-race-x-ses", "bbq-sexual-orientation"} <= names
    suite = load_suite("bbq-religion")
    assert suite.spec["categories"] == ["Religion"] and suite.count() == 1200


def test_probe_of_a_released_example() -> None:
    probe = next(bbq.generate({"categories": ["Religion"], "source": "released"}, "bbq-religion"))
    ex = t.released("Religion")[0]
    assert probe.kind == "bbq" and probe.lang == "en" and probe.bias_type == "ambig"
    assert probe.options == ex.answers and probe.meta["upstream_id"] == "Religion:0"
    assert (probe.meta["label"], probe.meta["unknown"]) == (ex.label, 1)
    assert probe.options[probe.meta["target"]] == "The Muslim one"  # stereotyped_groups ["Muslim"]
    assert probe.meta["polarity"] == "neg" and probe.meta["source"] == "released"
    assert ex.context in probe.text and ex.question in probe.text and "C. The Muslim one" in probe.text


def test_rotation_keeps_every_index_on_the_same_answer() -> None:
    probes = list(bbq.generate({"categories": ["Age"], "per_category": 1, "permute": "rotate", "seed": 3}, "x"))
    assert len(probes) == 6 and len({p.meta["instance"] for p in probes}) == 2
    for p in probes:
        ex = next(e for e in t.released("Age") if e.key == p.meta["upstream_id"])
        order = p.meta["order"]
        assert p.options == tuple(ex.answers[i] for i in order)
        assert p.options[p.meta["label"]] == ex.answers[ex.label]
        assert p.options[p.meta["target"]] == ex.answers[ex.target_slot]
    assert bbq.count({"categories": ["Age"], "per_category": 1, "permute": "rotate"}) == 6


def test_per_category_samples_each_context_and_sample_positions_match_the_stream() -> None:
    spec = {"categories": ["Age", "SES"], "per_category": 5, "seed": 2}
    probes = list(bbq.generate(spec, "bbq"))
    assert len(probes) == bbq.count(spec) == 20
    assert bbq.count_by_type(spec) == {"ambig": 10, "disambig": 10}
    assert {p.meta["source"] for p in probes if p.attribute == "SES"} == {
        "released" if t.released_present("SES") else "templates"}
    picked = list(select_probes(load_suite("bbq"), sample=4, seed=9, overrides=spec))
    assert [p.id for p in picked] == [p.id for p in probes if p.id in {q.id for q in picked}]


@pytest.mark.parametrize(("spec", "words"), [
    ({"categories": ["Martian"]}, "Unknown BBQ category"), ({"prompt": "nope"}, "prompt style"),
    ({"permute": "sideways"}, "permute mode"), ({"source": "web"}, "source"), ({"colour": 1}, "suite option"),
    ({"per_category": 0}, "at least 1"),
])
def test_bad_options_are_one_sentence(spec: dict, words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        bbq.count(spec)
