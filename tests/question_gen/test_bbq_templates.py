"""The BBQ template filler against upstream's released files, row for row, and its own determinism.

A released example counts as reproduced when the filler (every word-list and lexical draw enumerated)
writes an example of the same template with the same context, question, group answers and tags, label,
stereotyped groups and subcategory, and the released unknown answer is one of upstream's ten wordings:
everything but the unknown wording and the answer order, which upstream drew with an unseeded `random`."""

from __future__ import annotations

import pytest

from harness.core.errors import DataMissingError
from harness.question_gen import bbq_templates as t

pytestmark = pytest.mark.needs_data("bbq")

RELEASED_HERE = ("Age", "Disability_status", "Nationality", "Physical_appearance", "Religion", "Sexual_orientation")


@pytest.mark.parametrize("category", RELEASED_HERE)
def test_filler_reproduces_the_released_examples(category: str) -> None:
    if not t.released_present(category):
        pytest.skip(f"the released {category} file is not in the data directory: run `harness data pull bbq`")
    reproduced, total, missed = t.reproduces(category)
    assert total == len(t.released(category)) and total == len(t.filled(category))
    if category == "Physical_appearance":
        # one pair's four examples (ids 656-659) tag "other employee", a name the template file at bea11bd
        # no longer holds: the release was made from an earlier version of that template row
        assert (reproduced, total) == (1572, 1576)
        assert sorted(ex.example_id for ex in missed) == [656, 657, 658, 659]
    else:
        assert reproduced == total, [ex.row() for ex in missed[:3]]


def test_filler_writes_upstream_sizes_and_the_same_examples_every_time() -> None:
    sizes = {c: len(t.filled(c)) for c in t.FILLABLE}
    # upstream's released sizes, the five categories whose files are not here included
    assert sizes == {"Age": 3680, "Disability_status": 1556, "Gender_identity": 5672, "Nationality": 3080,
                     "Physical_appearance": 1576, "Race_ethnicity": 6880, "Race_x_SES": 11160,
                     "Race_x_gender": 15960, "Religion": 1200, "SES": 6864, "Sexual_orientation": 864}
    again = list(t.fill("SES"))
    assert again == list(t.filled("SES"))
    assert list(t.fill("SES", seed=1)) != again  # the draws, not the structure, depend on the seed
    for ex in again[:8]:
        assert ex.answers[ex.unknown_slot] in t.UNKNOWN_OPTIONS and ex.target_slot not in (-1, ex.unknown_slot)


def test_every_filled_example_has_one_unknown_answer_and_a_target_but_a_few_gender_pairs() -> None:
    no_target = {c: sum(ex.target_slot < 0 for ex in t.filled(c)) for c in t.FILLABLE}
    # 16 Gender_identity examples pit "man" against "boy" (neither is the stereotyped F): no target, as
    # upstream's metadata leaves them without one; the intersectional ones: test_bbq_intersectional.py
    assert no_target == {**dict.fromkeys(t.FILLABLE, 0), "Gender_identity": 16, "Race_x_SES": 16,
                         "Race_x_gender": 292}
    assert all(ex.unknown_slot >= 0 for c in t.FILLABLE for ex in t.filled(c))


def test_slotting_rules() -> None:
    assert t.slot("I saw a {{NAME1}} and a {{NAME2}}.", "elderly man", "boy", "", "", False) == \
        "I saw an elderly man and a boy."
    assert t.slot("a {{NAME1}} and a European", "old man", "Asian", "", "", False) == "a old man and a European"
    assert t.slot("The {{NAME1}} {{WORD1}}", "lesbian", "x", "man", "", True) == "The lesbian woman"
    assert t.word_lists("WORD1: [luggage, bag]; WORD2: [released, let go]") == (["luggage", "bag"],
                                                                               ["released", "let go"])
    assert t.word_lists("WORD2: [a]; WORD1: [b]") == (["b"], [])  # upstream's reading: a later piece empties WORD2


def test_every_category_is_filled_and_an_unknown_one_is_one_sentence() -> None:
    assert t.FILLABLE == t.CATEGORIES
    with pytest.raises(DataMissingError, match="no category 'Martian'"):
        list(t.fill("Martian"))


def test_a_file_pinned_by_its_git_blob_id_is_verified(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from harness.core.datasets import DataFile, get_dataset, git_blob_file, matches_pin

    religion = t.released_path("Religion")
    assert git_blob_file(religion) == "44c1940ee22f00891ab4a5526a293691957aeacb"  # upstream's tree at bea11bd
    unpinned = [f for f in get_dataset("bbq").files if f.optional]
    assert {f.path for f in unpinned} == {f"data/{c}.jsonl" for c in
                                          ("Gender_identity", "Race_ethnicity", "Race_x_SES", "Race_x_gender", "SES")}
    assert all(len(f.git_blob) == 40 and not f.sha256 for f in unpinned)
    pin = DataFile("data/x.jsonl", "https://example.invalid/x", "", 0, git_blob=git_blob_file(religion))
    copy = tmp_path / "x.jsonl"
    copy.write_bytes(religion.read_bytes())
    assert matches_pin(copy, pin)
    copy.write_bytes(religion.read_bytes()[:-1])
    assert not matches_pin(copy, pin)
