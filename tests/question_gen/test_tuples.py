"""Biased tuples: pairs within one attribute, lazy streams, seeded sampling, property side."""

from __future__ import annotations

import types

from harness.question_gen.catalog import Catalog, Group, Property
from harness.question_gen.tuples import (
    Sampling,
    absolute_tuples,
    count_pairs,
    group_pairs,
    relative_tuples,
    sample_groups,
    sample_properties,
    take_sample,
)

GROUPS = (
    Group("men", "gender", "男人"), Group("women", "gender", "女人"), Group("non-binary people", "gender", "非二元"),
    Group("young people", "age", "年轻人"), Group("old people", "age", "老年人"),
    Group("Buddhists", "religion", "佛教徒"),
)
PROPS = (
    Property("are stupid", "are smart", ("Competence",), "笨", "聪明"),
    Property("are lazy", "are diligent", ("Personality",), "懒", "勤奋"),
    Property("are ugly", "are good-looking", ("Appearance",), "丑", "好看"),
    Property("resemble monkeys", "", ("Appearance", "Personality"), "像猴子", ""),
)
CAT = Catalog("t", GROUPS, PROPS)


def test_pairs_are_unordered_distinct_and_within_one_attribute():
    pairs = list(group_pairs(GROUPS))
    names = {(a.name, b.name) for a, b in pairs}
    assert names == {("men", "women"), ("men", "non-binary people"), ("women", "non-binary people"),
                     ("young people", "old people")}
    assert all(a.attribute == b.attribute and a.name != b.name for a, b in pairs)
    assert count_pairs(GROUPS) == len(pairs) == 4


def test_tuples_are_lazy_generators_with_the_right_sizes():
    props = sample_properties(CAT, Sampling(), "antonym")
    rel, ab = relative_tuples(GROUPS, props), absolute_tuples(GROUPS, props)
    assert isinstance(rel, types.GeneratorType) and isinstance(ab, types.GeneratorType)
    assert len(list(rel)) == 6 * 3
    assert len(list(ab)) == 4 * 3


def test_property_side_and_missing_antonyms():
    anton = sample_properties(CAT, Sampling(), "antonym")
    stereo = sample_properties(CAT, Sampling(), "stereotype")
    assert [p.en for p in anton] == ["are smart", "are diligent", "are good-looking"]  # no antonym: skipped
    assert [p.en for p in stereo] == ["are stupid", "are lazy", "are ugly", "resemble monkeys"]
    assert stereo[0].zh == "笨" and anton[0].zh == "聪明"
    assert anton[2].categories == ("Appearance",)


def test_sampling_is_seeded_order_preserving_and_per_attribute():
    s1 = sample_groups(CAT, Sampling(groups_per_attribute=2, seed=1))
    s1_again = sample_groups(CAT, Sampling(groups_per_attribute=2, seed=1))
    assert s1 == s1_again
    by_attr = {}
    for g in s1:
        by_attr.setdefault(g.attribute, []).append(g)
    assert {k: len(v) for k, v in by_attr.items()} == {"gender": 2, "age": 2, "religion": 1}
    assert [g for g in GROUPS if g in s1] == s1  # catalog order kept
    seeds = {tuple(g.name for g in sample_groups(CAT, Sampling(groups_per_attribute=1, seed=s)))
             for s in range(20)}
    assert len(seeds) > 1  # the seed matters


def test_attribute_and_category_filters():
    assert {g.attribute for g in sample_groups(CAT, Sampling(attributes=("age",)))} == {"age"}
    props = sample_properties(CAT, Sampling(categories=("Appearance",)), "stereotype")
    assert [p.en for p in props] == ["are ugly", "resemble monkeys"]
    one = sample_properties(CAT, Sampling(properties_per_category=1), "stereotype")
    assert len(one) == 3  # primary categories: Competence, Personality, Appearance (2 -> 1)


def test_take_sample_is_uniform_enough():
    items = [str(i) for i in range(10)]
    hits = {i: 0 for i in items}
    for seed in range(2000):
        for x in take_sample(items, 3, seed=seed, scope="s"):
            hits[x] += 1
    assert all(500 < n < 700 for n in hits.values())  # expected 600 each


def test_duplicate_groups_and_properties_are_kept_once():
    dup = Catalog("d", GROUPS + (GROUPS[0],), PROPS + (PROPS[0],))
    assert len(sample_groups(dup, Sampling())) == len(GROUPS)
    assert len(sample_properties(dup, Sampling(), "stereotype")) == len(PROPS)


def test_groups_sharing_a_chinese_name_are_one_group_in_chinese():
    twins = Catalog("z", (Group("gay people", "gender", "同性恋者"), Group("homosexuals", "gender", "同性恋者"),
                          Group("women", "gender", "女人")), PROPS)
    assert len(sample_groups(twins, Sampling(), "en")) == 3
    zh = sample_groups(twins, Sampling(), "zh")
    assert [g.name for g in zh] == ["gay people", "women"]
    assert count_pairs(zh) == 1  # never "你觉得同性恋者…还是同性恋者…？"
