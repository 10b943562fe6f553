"""Group-name repairs keep the capital of proper names (religions, peoples, places) while still lowering
common words the BiasAsker data capitalised only because they start a name ("Deaf people")."""

from __future__ import annotations

import pytest

from harness.question_gen import biasasker_data
from harness.question_gen.catalog import Group

PROPER = ["Hindu", "Shia", "rasta", "Latino", "Aboriginal", "Ebola", "Sikh", "Sunni", "Welsh", "Catholic", "Muslim"]
COMMON = ["Deaf", "Parents", "blind", "Atheists", "Incels", "Fathers", "Tall", "Minority", "Virgins", "folks"]


@pytest.fixture(scope="module")
def proper() -> set[str]:
    """One read of the frequency table for every word below (each read streams a 1M-line file)."""
    return biasasker_data.proper_words([*PROPER, *COMMON, "Zzqxv", "canthal"])


@pytest.mark.parametrize("word", PROPER)
def test_names_of_religions_peoples_and_places_are_proper_words(word, proper):
    assert word.lower() in proper


@pytest.mark.parametrize("word", COMMON)
def test_common_words_are_not_proper_words(word, proper):
    assert word.lower() not in proper


def test_words_the_frequency_table_does_not_know_are_not_proper(proper):
    assert not {"zzqxv", "canthal"} & proper
    assert proper == {w.lower() for w in PROPER}


def test_repair_keeps_proper_names_and_still_lowers_common_words():
    names = ["Hindu people", "Shia people", "Rasta people", "Middle eastern folks", "Deaf people",
             "Parents", "Sick people"]
    groups = [Group(n, "x") for n in names]
    # the data writes every one of these first words in lower case somewhere, as the real set does
    texts = names + ["hindu temples", "shia mosques", "rasta hats", "middle seats", "deaf ears",
                     "parents", "sick days"]
    fixed, renamed = biasasker_data.repair_group_names(groups, texts)
    assert [g.name for g in fixed] == ["Hindu people", "Shia people", "Rasta people", "Middle eastern folks",
                                       "deaf people", "parents", "sick people"]
    assert renamed == [("Deaf people", "deaf people"), ("Parents", "parents"), ("Sick people", "sick people")]


@pytest.mark.needs_data("biasasker")
def test_the_full_data_set_keeps_proper_names_capitalised():
    full = biasasker_data.load_full_data()
    names = {g.name for g in full.catalog.groups}
    assert {"Hindu people", "Shia people", "Rasta people", "Latino people", "Aboriginal people",
            "Ebola victims", "Middle eastern folks"} <= names
    assert not {"hindu people", "shia people", "rasta people", "latino people"} & names
    assert {"deaf people", "parents", "sick people", "atheists"} <= names  # the real repairs still happen
    lowered = {new for old, new in full.renamed_groups if old.lower() == new.lower()}
    assert not {w for n in lowered for w in n.split()} & biasasker_data.proper_words(
        {w for n in lowered for w in n.split()})  # no lowered name holds a proper word
    assert full.repairs["group names lower-cased"] == len(lowered)


def test_group_name_tags_and_property_tags_share_one_cache(tmp_path, monkeypatch):
    """Group names (tagged in a frame) and properties go through one cache: one disk file, read back by a
    fresh process without spaCy, and the frame's keys never collide with a property of the same text."""
    from harness.question_gen import english, english_tagging

    real_nlp = english_tagging._nlp
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(english_tagging, "_TAG_CACHE", {})
    monkeypatch.setattr(english_tagging, "_DISK_CACHE_LOADED", False)
    groups = [Group("cashier", "job"), Group("night watchman", "job")]
    fixed, _ = biasasker_data.repair_group_names(groups, [])
    english.warm(["cashier"])  # the same text as a property: tagged in the property frame, kept apart
    in_frame = english.word_infos_in_frame(["cashier"], "Some {} came.")
    as_property = english.word_infos("cashier")
    assert english.pos_cache_file().is_file()

    monkeypatch.setattr(english_tagging, "_TAG_CACHE", {})
    monkeypatch.setattr(english_tagging, "_DISK_CACHE_LOADED", False)

    def no_spacy():
        raise AssertionError("spaCy should not be loaded")

    monkeypatch.setattr(english_tagging, "_nlp", no_spacy)
    assert biasasker_data.repair_group_names(groups, [])[0] == fixed == [
        Group("cashiers", "job"), Group("night watchmen", "job")]
    assert english.word_infos_in_frame(["cashier"], "Some {} came.") == in_frame
    assert english.word_infos("cashier") == as_property
    assert in_frame["cashier"][-1].tag == "NN"

    # a property seen for the first time is tagged, and kept in memory (no file rewrite per text)
    monkeypatch.setattr(english_tagging, "_nlp", real_nlp)
    before = english.pos_cache_file().read_bytes()
    assert english.word_infos("can whistle")[0].text == "can"
    assert english.pos_cache_file().read_bytes() == before and "can whistle" in english_tagging._TAG_CACHE
