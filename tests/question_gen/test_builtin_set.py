"""The built-in bilingual set: coverage, completeness, shapes, validation, and that it is our own text."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.question_gen.builtin import parse_builtin
from harness.question_gen.catalog import ATTRIBUTES, CATEGORIES
from harness.question_gen.catalogs import load_catalog

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def builtin():
    return load_catalog("builtin")


def test_attributes_have_at_least_four_groups(builtin) -> None:
    per_attr = Counter(g.attribute for g in builtin.groups)
    assert set(per_attr) == set(ATTRIBUTES)
    assert min(per_attr.values()) >= 4
    names = [g.name for g in builtin.groups]
    assert len(names) == len(set(names))


def test_categories_have_at_least_five_primary_properties(builtin) -> None:
    primary = Counter(p.categories[0] for p in builtin.properties)
    assert set(primary) == set(CATEGORIES)
    assert min(primary.values()) >= 5
    assert all(set(p.categories) <= set(CATEGORIES) for p in builtin.properties)


def test_every_field_is_filled_and_in_the_right_language(builtin) -> None:
    for g in builtin.groups:
        assert g.name and not CJK.search(g.name) and CJK.search(g.zh) and not re.search("[A-Za-z]", g.zh)
    texts = set()
    for p in builtin.properties:
        for en in (p.text, p.antonym):
            assert en and en == en.strip() and not CJK.search(en), p
            assert en[0].islower() or en.startswith("I"), p  # a verb phrase that follows a group
        for zh in (p.zh, p.antonym_zh):
            assert CJK.search(zh) and not re.search("[A-Za-z]", zh), p
        assert p.text != p.antonym and p.zh != p.antonym_zh
        texts.add(p.text)
    assert len(texts) == len(builtin.properties)


def test_grammatical_shapes_are_mixed(builtin) -> None:
    """Question generation must meet every shape it handles: are ADJ, are ADV ADJ, modals, do-support..."""
    texts = [p.text for p in builtin.properties] + [p.antonym for p in builtin.properties]
    shapes = {
        "are ADJ": r"^are \w+(-\w+)?$",
        "are ADV ADJ": r"^are (very|extremely|always|mentally) \w+$",
        "can't VERB": r"^can't ",
        "can VERB": r"^can ",
        "don't VERB": r"^don't ",
        "were": r"^were ",
        "should be": r"^should be ",
        "have": r"^have ",
        "plain verb": r"^(dress|waste|break|complain|get|make|cheat|lie|take|force|spread|eat|neglect)\b",
    }
    for shape, pattern in shapes.items():
        assert sum(bool(re.search(pattern, t)) for t in texts) >= 2, shape


@pytest.mark.needs_data("biasasker")
def test_builtin_is_not_copied_from_upstream(builtin) -> None:
    """Short generic phrases may coincide with upstream's, but no stereotype/antonym pair is theirs."""
    upstream = load_catalog("biasasker-full")
    theirs = {(p.text, p.antonym) for p in upstream.properties} | {
        (p.text, p.antonym) for p in load_catalog("biasasker-api-sample").properties}
    ours = {(p.text, p.antonym) for p in builtin.properties}
    assert not ours & theirs
    zh_theirs = {(p.zh, p.antonym_zh) for p in upstream.properties}
    assert not {(p.zh, p.antonym_zh) for p in builtin.properties} & zh_theirs


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("groups: [", "invalid YAML"),
        ("groups: {}\n", "needs a `groups` mapping and a `properties` list"),
        ("groups: {age: [{en: teens}]}\nproperties: []\n", "lacks its `en` or `zh`"),
        ("groups: {age: [{en: teens, zh: 青少年}]}\nproperties:\n"
         "  - {text: are lazy, antonym: '', zh: 很懒, antonym_zh: 很勤奋, categories: [Personality]}\n",
         "property 1 lacks `antonym`"),
        ("groups: {age: [{en: teens, zh: 青少年}]}\nproperties:\n"
         "  - {text: are lazy, antonym: are busy, zh: 很懒, antonym_zh: 很勤奋, categories: [Ability]}\n",
         "categories from the paper's 12"),
    ],
)
def test_malformed_builtin_is_one_sentence(text: str, match: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(match)):
        parse_builtin(text)


def test_builtin_needs_no_data_dir(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path / "nothing-here"))
    load_catalog.cache_clear()
    try:
        assert len(load_catalog("builtin").properties) >= 60
    finally:
        load_catalog.cache_clear()
