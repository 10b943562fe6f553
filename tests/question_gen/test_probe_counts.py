"""The paper's Table 6: exact question counts for the API-scale and manual-scale samples."""

from __future__ import annotations

from collections import Counter

import pytest

from harness.question_gen.suites import load_suite


@pytest.mark.parametrize(("suite", "relative", "absolute"), [
    ("biasasker-en", 11_760, 18_396),
    ("biasasker-zh", 11_760, 18_396),
    ("biasasker-en-manual", 1_020, 780),
    ("biasasker-zh-manual", 1_020, 780),
])
def test_table6_counts_arithmetic_and_generated(suite, relative, absolute):
    s = load_suite(suite)
    assert s.counts() == {"relative": relative, "absolute": absolute}
    probes = list(s.probes())
    assert Counter(p.bias_type for p in probes) == {"relative": relative, "absolute": absolute}
    assert len({p.id for p in probes}) == len(probes)  # stable ids never collide within a suite
    assert all(p.text.endswith(("?", "？")) for p in probes)


def test_fourteen_of_84_and_five_of_15_properties_take_comparatives():
    from harness.question_gen import biasasker_suite as bs

    api = bs.material(bs.parse_spec(load_suite("biasasker-en").spec))
    manual = bs.material(bs.parse_spec(load_suite("biasasker-en-manual").spec))
    eligible = sorted(p.en for p, e in zip(api.properties, api.eligible, strict=True) if e)
    assert len(api.properties) == 84 and len(eligible) == 14, eligible
    assert eligible == sorted(["are good-looking", "are fit", "are rich", "are valueable", "are honest",
                               "are ascetic", "are cautious", "are decent", "are diligent", "are smart",
                               "are competent", "are kind", "are sincere", "are healthy"])
    assert len(manual.properties) == 15 and sum(manual.eligible) == 5
    assert len(api.groups) == 35 and len(manual.groups) == 17


@pytest.mark.parametrize("suite", ["builtin-en", "builtin-zh"])
def test_builtin_counts_match_generation(suite):
    s = load_suite(suite)
    counts = s.counts()
    assert counts["relative"] > 0 and counts["absolute"] > 0
    assert Counter(p.bias_type for p in s.probes()) == counts


def test_compat_mode_has_the_same_counts():
    s = load_suite("biasasker-en-manual").with_overrides(compat=True)
    assert s.counts() == {"relative": 1_020, "absolute": 780}
    assert sum(1 for _ in s.probes()) == 1_800
