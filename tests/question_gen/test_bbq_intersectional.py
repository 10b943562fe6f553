"""BBQ's intersectional categories (Race_x_SES, Race_x_gender) built from their templates: upstream's sizes, who
meets whom in each condition, answer tags and labels, the bias target, the same examples every time, and the
per-category suites offline (question_gen.bbq_intersectional, question_gen.bbq_templates)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest

from harness.question_gen import bbq
from harness.question_gen import bbq_intersectional as inter
from harness.question_gen import bbq_templates as t
from harness.question_gen.suites import load_suite

pytestmark = pytest.mark.needs_data("bbq")

#: upstream's released sizes (the data set's reported counts; 24 examples per target person and partner)
SIZES = {"Race_x_SES": 11160, "Race_x_gender": 15960}


@pytest.mark.parametrize("category", inter.INTERSECTIONAL)
def test_sizes_split_evenly_over_context_polarity_and_condition(category: str) -> None:
    rows = t.filled(category)
    n = SIZES[category]
    assert len(rows) == n
    cells = Counter((ex.polarity, ex.context_condition) for ex in rows)
    assert cells == {(p, c): n // 4 for p in ("neg", "nonneg") for c in ("ambig", "disambig")}
    assert Counter(ex.subcategory for ex in rows) == {f"intersectional_{x}": n // 3 for x in "abc"}
    # ids run 0..n-1 in upstream's order and are what `harness import --predictions` matches
    assert [ex.example_id for ex in rows] == list(range(n))
    assert all(re.fullmatch(rf"{category}:\d+", ex.key) for ex in rows)


def _labels_ok(ex: t.Example) -> bool:
    unknown = ex.unknown_slot
    tags = [tag for _, tag in ex.answer_info]
    if tags.count("unknown") != 1 or ex.answers[unknown] not in t.UNKNOWN_OPTIONS:
        return False
    if ex.context_condition == "ambig":
        return ex.label == unknown
    return ex.label != unknown


@pytest.mark.parametrize("category", inter.INTERSECTIONAL)
def test_labels_point_at_the_right_answer(category: str) -> None:
    rows = t.filled(category)
    assert all(_labels_ok(ex) for ex in rows)
    for i in range(0, len(rows), 4):
        neg_amb, neg_dis, non_amb, non_dis = rows[i:i + 4]
        # one answer order per four; the disambiguated negative and non-negative answers are the two people
        assert neg_amb.answers == neg_dis.answers == non_amb.answers == non_dis.answers
        assert {neg_dis.label, non_dis.label, neg_amb.label} == {0, 1, 2}
        assert neg_amb.context in neg_dis.context and neg_amb.question == neg_dis.question


def test_the_target_holds_both_stereotyped_values_and_the_few_without_one_are_upstreams_tagging() -> None:
    for category in inter.INTERSECTIONAL:
        for ex in t.filled(category):
            if ex.target_slot >= 0:
                tag = ex.answer_info[ex.target_slot][1]
                assert ex.stereotyped_var2 in tag.split("-")
                assert tag.split("-")[-1] in ex.stereotyped_groups
    missing = {c: Counter((ex.question_index, ex.subcategory) for ex in t.filled(c) if ex.target_slot < 0)
               for c in inter.INTERSECTIONAL}
    # Race_x_gender: the "Latino woman" -> "Latina woman" fix leaves the answer without "Latino" (rows 13 and
    # 36: 2 target words x 5 partners x 4 = 40 per condition), and "men" is found in "women" (row 21,
    # condition a); Race_x_SES and the rest: "African" found in "African American" (4 examples per pair)
    assert sum(missing["Race_x_gender"].values()) == 292
    assert missing["Race_x_gender"][("13", "intersectional_a")] == 40
    assert missing["Race_x_gender"][("21", "intersectional_a")] == 40
    assert sum(missing["Race_x_SES"].values()) == 16


def _parts(tag: str) -> tuple[str, str]:
    """(second attribute, race) of a tag; Race_x_SES names: the SES part, Race_x_gender names: the gender."""
    bits = tag.split("-")
    return bits[0], bits[-1]


@pytest.mark.parametrize("category", inter.INTERSECTIONAL)
def test_conditions_vary_race_the_second_attribute_or_both(category: str) -> None:
    rows = t.templates(category)
    pairs = list(inter.pairings(category, rows, t.vocabulary(), t.proper_names(),
                                t.SeededDraws(random.Random(5))))
    assert len(pairs) == SIZES[category] // 4
    for i in range(0, len(pairs), 6):
        six = pairs[i:i + 6]
        target = six[0].first
        row = rows[six[0].row_index]
        var2, race = _parts(target.tag)
        assert var2 == inter.var2_of(row) and race in inter.targets_of(row)
        for straight, turned in zip(six[:3], six[3:], strict=True):
            assert straight.first == turned.second == target and straight.second == turned.first
            assert straight.condition == turned.condition and straight.words == turned.words
        a, b, c = (p.second for p in six[:3])
        assert _parts(a.tag) == (inter.OTHER_VAR2[var2], race)
        assert _parts(b.tag)[0] == var2 and _parts(b.tag)[1] != race
        assert _parts(c.tag)[0] == inter.OTHER_VAR2[var2] and _parts(c.tag)[1] != race
        if target.var2_word is not None:  # words, not names: the second attribute's word follows the tag
            assert a.var2_word != target.var2_word and b.var2_word == target.var2_word
        if row["Proper_nouns_only"] == "TRUE":
            # names: a is another first name; Race_x_SES writes condition c with condition b's person
            assert a.name != target.name and (b.name == c.name) == (category == "Race_x_SES")


def test_answer_tags_by_hand() -> None:
    women = inter.Person("Black", "women", "F-Black")
    men = inter.Person("Black", "men", "M-Black")
    # the second person is checked last and "men" is inside "women": both answers carry the men's tag
    assert inter.answer_tags(women, men, "the Black women", "the Black men") == (
        ("Black men", "M-Black"), ("Black men", "M-Black"))
    woman, man = inter.Person("Black", "woman", "F-Black"), inter.Person("Black", "man", "M-Black")
    assert inter.answer_tags(woman, man, "The Black woman", "The Black man") == (
        ("Black woman", "F-Black"), ("Black man", "M-Black"))  # " man" is looked for, not "man"
    named = inter.Person("Latisha Jackson", None, "F-Black")
    other = inter.Person("Amy Yu", None, "F-Asian")
    assert inter.answer_tags(named, other, "Amy Yu", "Nobody") == (("Amy Yu", "F-Asian"), ("", ""))


def test_slotting_fills_the_second_attribute_and_its_vowel() -> None:
    text = "I met a {{NAME1}} {{GEN1}} and a {{OCC2}}."
    assert t.slot(text, "Black", "Asian", "", "", False, ("man", "optometrist")) == \
        "I met a Black man and an optometrist."
    assert t.slot("a {{NAME1}}", "Black", "x", "", "", False) == "a Black"  # 9 categories: unchanged


def test_a_released_row_gets_its_target_from_the_templates_stereotyped_gender() -> None:
    rec = {"example_id": 0, "question_index": "1", "question_polarity": "neg", "context_condition": "ambig",
           "category": "Race_x_gender", "context": "c", "question": "q",
           "ans0": "The Black woman", "ans1": "Unknown", "ans2": "The Black man", "label": 1,
           "answer_info": {"ans0": ["Black woman", "F-Black"], "ans1": ["Unknown", "unknown"],
                           "ans2": ["Black man", "M-Black"]},
           "additional_metadata": {"subcategory": "intersectional_a", "stereotyped_groups": ["Black",
                                                                                               "African American"]}}
    ex = t._from_json(rec)
    assert ex.stereotyped_var2 == "M"  # template 1: Known_stereotyped_var2 = M
    assert ex.target_slot == 2


def test_the_same_examples_every_time_and_the_seed_moves_only_the_draws() -> None:
    again = list(t.fill("Race_x_SES"))
    assert again == list(t.filled("Race_x_SES"))
    other = list(t.fill("Race_x_SES", seed=1))
    assert other != again and len(other) == len(again)
    assert Counter(ex.question_index for ex in other) == Counter(ex.question_index for ex in again)


def test_suites_of_the_intersectional_categories_generate_offline() -> None:
    for category, slug in (("Race_x_SES", "bbq-race-x-ses"), ("Race_x_gender", "bbq-race-x-gender")):
        suite = load_suite(slug)
        assert suite.spec["categories"] == [category] and suite.count() == SIZES[category]
        spec = {"categories": [category], "per_category": 2, "seed": 4, "source": "templates"}
        probes = list(bbq.generate(spec, slug))
        assert len(probes) == 4 and {p.bias_type for p in probes} == {"ambig", "disambig"}
        for p in probes:
            ex = t.filled(category)[int(p.meta["upstream_id"].split(":")[1])]
            assert p.meta["upstream_id"] == f"{category}:{ex.example_id}" and p.meta["source"] == "templates"
            assert p.options[p.meta["label"]] == ex.answers[ex.label]
    assert load_suite("bbq").count() == 58492  # all 11 categories, released files or filler
