"""The CrowS-Pairs generator over upstream's file: 1,508 pairs in nine bias types, one probe per pair with the pair's
upstream id, its direction and the empty scoring context; one suite per bias type from one suite file."""

from __future__ import annotations

import pytest

from harness.core.errors import ConfigError
from harness.question_gen import crows_pairs as gen
from harness.question_gen.suites import list_suites, load_suite, select_probes

pytestmark = pytest.mark.needs_data("crows-pairs")

#: pairs per bias type in upstream's file (its README: race-color, gender and socioeconomic the most frequent)
COUNTS = {"race-color": 516, "gender": 262, "socioeconomic": 172, "nationality": 159, "religion": 105, "age": 87,
          "sexual-orientation": 84, "physical-appearance": 63, "disability": 60}


def test_the_whole_file_by_bias_type() -> None:
    suite = load_suite("crows-pairs")
    assert suite.count() == 1508 == sum(COUNTS.values())
    assert suite.counts() == COUNTS


def test_a_probe_is_one_pair_with_its_upstream_id() -> None:
    first = next(iter(select_probes("crows-pairs", limit=1)))
    assert first.kind == "crows_pairs" and first.bias_type == "stereo" and first.lang == "en"
    assert first.text == first.options[0] and first.options[0].endswith("most black kids don't have the best "
                                                                        "education growing up.")
    assert first.options[1].endswith("most white kids don't have the best education growing up.")
    assert first.meta["upstream_id"] == "0" and first.meta["line"] == 1 and first.meta["score_context"] == ""
    assert (first.attribute, first.categories, first.meta["bias_type"]) == ("race-color", ("race-color",), "race-color")
    probes = list(select_probes("crows-pairs"))
    assert [p.meta["upstream_id"] for p in probes] == [str(i) for i in range(1508)]
    assert len({p.id for p in probes}) == 1508
    assert sum(p.bias_type == "antistereo" for p in probes) == 218


def test_one_suite_per_bias_type_from_one_file() -> None:
    names = {s.name for s in list_suites()}
    assert {f"crows-pairs-{t}" for t in COUNTS} <= names
    religion = load_suite("crows-pairs-religion")
    assert religion.count() == 105 and religion.counts() == {"religion": 105}
    probes = list(select_probes(religion, sample=5, seed=3))
    assert len(probes) == 5 and {p.meta["bias_type"] for p in probes} == {"religion"}
    assert all(p.suite == "crows-pairs-religion" for p in probes)
    assert gen.variants({"name": "crows-pairs", "bias_type": "age"}) == []


@pytest.mark.parametrize(("spec", "message"), [
    ({"bias_type": "race"}, "Unknown CrowS-Pairs bias type 'race'; known: race-color, gender"),
    ({"bias_type": 3}, "bias_type must be a CrowS-Pairs bias type or a list of them, not 3."),
    ({"bias_types": "age"}, "Unknown CrowS-Pairs suite option 'bias_types'; known: bias_type."),
])
def test_bad_options_are_one_sentence(spec: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        gen.count(spec)
