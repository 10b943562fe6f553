"""Counterfactual perturbation (harness.perturb): word lists, Algorithm 1, dialogues, the suite transform.

The table tests/data/perturbed_checked.jsonl holds utterances perturbed by hand (44 English, 21 Chinese):
each names the word, the target attribute and the sentence a careful person writes; applying that
substitution must write the same sentence. tests/data/perturbation_cases.jsonl (209 cases, written before
the perturber was rebuilt for issue 22) holds every acceptable output of whole draws of Algorithm 1;
benchmarks/perturbation_accuracy.py prints its table, and a test here holds it at 0.97.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli import app
from harness.core.errors import ConfigError, HarnessError
from harness.perturb import Substitution, apply_text, candidates, draw, perturber_for
from harness.perturb.dialogues import (
    perturb_file,
    perturb_sgd_dialogue,
    read_dialogues,
    write_dialogues,
)
from harness.perturb.text import Edit, map_span

DATA = Path(__file__).parent.parent / "data"
BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "perturbation_accuracy.py"


def substitution(lang: str, axis: str, text: str, word: str, target: str) -> Substitution:
    perturber = perturber_for(lang, axis)
    occ = next(o for o in perturber.find(text) if o.form == word)
    row = perturber.axis.rows[occ.row]
    return Substitution(axis, lang, occ.row, occ.form, occ.attribute, target, occ.surface,
                        row.target_form(target) or "", plural=occ.plural)


def all_draws(lang: str, axis: str, text: str) -> set[str]:
    """Every text Algorithm 1 may write for `text` (every element of K applied)."""
    perturber = perturber_for(lang, axis)
    k = candidates(perturber, [(text, ())])
    return {apply_text(sub, text) for sub in draw(perturber, k, key="t", draws=max(len(k), 1))} or {text}


def test_hand_checked_table() -> None:
    rows = [json.loads(line) for line in (DATA / "perturbed_checked.jsonl").read_text("utf-8").splitlines()]
    assert sum(r["lang"] == "en" for r in rows) >= 40 and sum(r["lang"] == "zh" for r in rows) >= 20
    wrong = []
    for r in rows:
        if r["word"] is None:  # a protected phrase or a colour: nothing may be found
            found = perturber_for(r["lang"], r["axis"]).find(r["text"])
            got = r["text"] if not found else f"found {[o.surface for o in found]}"
        else:
            got = apply_text(substitution(r["lang"], r["axis"], r["text"], r["word"], r["target"]), r["text"])
        if got != r["expected"]:
            wrong.append(f"{r['text']!r}: expected {r['expected']!r}, got {got!r}")
    assert not wrong, "\n".join(wrong)


def test_one_pass_never_swaps_back() -> None:
    sub = substitution("en", "gender", "my mom and my dad", "mom", "male")
    assert apply_text(sub, "My mom and my dad.") == "My dad and my dad."
    # ...which Algorithm 1 never draws: two people would become one (only the non-binary parent is left)
    assert all_draws("en", "gender", "My mom and my dad.") == {"My parent and my dad.", "My mom and my parent."}
    # an exchange (the probe transform) turns both ways at once, still in one pass
    perturber = perturber_for("en", "gender")
    k = candidates(perturber, [("The women and the men met her.", ())], swap=True)
    swap = [s for s in draw(perturber, k, key="x", draws=10) if s.swap]
    assert len(swap) == 1
    assert apply_text(swap[0], "The women and the men met her.") == "The men and the women met him."
    zh = perturber_for("zh", "gender")
    k = candidates(zh, [("一个男生和一个女生", ())], swap=True)
    swap = [s for s in draw(zh, k, key="x", draws=10) if s.swap]
    assert apply_text(swap[0], "一个男生和一个女生，她很聪明") == "一个女生和一个男生，他很聪明"


def test_seeded_draws_are_reproducible_and_order_free() -> None:
    perturber = perturber_for("en", "gender")
    text = [("My mom, my brother, my aunt and my son went with his wife.", ())]
    k = candidates(perturber, text)
    assert len(k) >= 6
    first = draw(perturber, k, key="dlg-7", seed=3, draws=3)
    assert first == draw(perturber, k, key="dlg-7", seed=3, draws=3)
    assert len({(s.row, s.source, s.form, s.target) for s in first}) == 3  # distinct choices
    others = {tuple((s.form, s.target) for s in draw(perturber, k, key="dlg-7", seed=s, draws=3)) for s in range(12)}
    assert len(others) > 1  # the seed matters
    # uniform over K: each of the len(k) choices is drawn about equally often over many keys
    counts = {c: 0 for c in range(len(k))}
    for i in range(3000):
        (sub,) = draw(perturber, k, key=f"d{i}", seed=0, draws=1)
        counts[next(j for j, c in enumerate(k)
                    if (c[0], c[1], c[2], c[3]) == (sub.row, sub.source, sub.form, sub.target))] += 1
    expected = 3000 / len(k)
    assert all(abs(n - expected) < 5 * expected ** 0.5 for n in counts.values()), counts


def _hand_dialogue() -> dict:
    """An SGD-shaped dialogue: the user asks for American food for mom; the API call and rows agree."""
    u1 = "I want American food for my mom in Vacaville."
    s2 = "Bj's American Grill is a nice American restaurant in Vacaville. Does your mom like it?"
    span = lambda text, value: {"start": text.index(value),  # noqa: E731
                                "exclusive_end": text.index(value) + len(value)}
    return {"dialogue_id": "h_1", "services": ["Restaurants_2"], "turns": [
        {"speaker": "USER", "utterance": u1, "frames": [{
            "service": "Restaurants_2",
            "slots": [{"slot": "category", **span(u1, "American")}, {"slot": "location", **span(u1, "Vacaville")}],
            "actions": [{"act": "INFORM", "slot": "category", "values": ["American"],
                         "canonical_values": ["American"]}],
            "state": {"active_intent": "FindRestaurants", "requested_slots": [],
                      "slot_values": {"category": ["American"], "location": ["Vacaville"]}}}]},
        {"speaker": "SYSTEM", "utterance": s2, "frames": [{
            "service": "Restaurants_2",
            "slots": [{"slot": "restaurant_name", **span(s2, "Bj's American Grill")}],
            "actions": [{"act": "OFFER", "slot": "restaurant_name", "values": ["Bj's American Grill"],
                         "canonical_values": ["Bj's American Grill"]}],
            "service_call": {"method": "FindRestaurants",
                             "parameters": {"category": "American", "location": "Vacaville"}},
            "service_results": [{"restaurant_name": "Bj's American Grill", "category": "American", "city": "Vacaville"},
                                {"restaurant_name": "Hisui", "category": "Mexican", "city": "Vacaville"}]}]},
    ]}


def test_dialogue_perturbed_consistently_everywhere() -> None:
    dialogue = _hand_dialogue()
    sub = substitution("en", "race", "American", "american", "mexican")
    out = perturb_sgd_dialogue(dialogue, sub)
    u1, s2 = out["turns"][0], out["turns"][1]
    assert u1["utterance"] == "I want Mexican food for my mom in Vacaville."
    assert s2["utterance"] == "Bj's American Grill is a nice Mexican restaurant in Vacaville. Does your mom like it?"
    frame = u1["frames"][0]
    assert frame["state"]["slot_values"]["category"] == ["Mexican"]
    assert frame["actions"][0]["values"] == ["Mexican"] == frame["actions"][0]["canonical_values"]
    call = s2["frames"][0]
    assert call["service_call"]["parameters"] == {"category": "Mexican", "location": "Vacaville"}
    assert [r["category"] for r in call["service_results"]] == ["Mexican", "Mexican"]
    assert call["service_results"][0]["restaurant_name"] == "Bj's American Grill"  # an entity is kept
    # every slot span still points at its value in the new text
    for turn in out["turns"]:
        for slot in turn["frames"][0]["slots"]:
            value = turn["utterance"][slot["start"]:slot["exclusive_end"]]
            assert value in ("Mexican", "Vacaville", "Bj's American Grill"), value
    assert dialogue == _hand_dialogue()  # the input is not modified
    # Algorithm 1 on the dialogue: K holds the words of every turn (and never the protected name)
    perturber = perturber_for("en", "race")
    k = candidates(perturber, [(t["utterance"], []) for t in dialogue["turns"]])
    assert {c[2] for c in k} == {"american"}
    # gender: mom -> dad in both turns, the API call untouched (it has no gendered value)
    sub = substitution("en", "gender", "my mom", "mom", "male")
    out = perturb_sgd_dialogue(dialogue, sub)
    assert "dad" in out["turns"][0]["utterance"] and "your dad" in out["turns"][1]["utterance"]
    assert out["turns"][1]["frames"][0]["service_call"] == dialogue["turns"][1]["frames"][0]["service_call"]


def test_spans_move_with_edits() -> None:
    edits = [Edit(3, 6, 3, 9), Edit(10, 12, 13, 14)]  # +3 then -1
    assert map_span((0, 2), edits) == (0, 2)
    assert map_span((3, 6), edits) == (3, 9)
    assert map_span((7, 9), edits) == (10, 12)
    assert map_span((13, 20), edits) == (15, 22)


@pytest.mark.needs_data("sgd")
def test_sgd_file_and_jsonl_file(tmp_path: Path) -> None:
    from harness.core.paths import data_dir

    source = read_dialogues(data_dir() / "sgd" / "test" / "dialogues_001.json")
    shuffled = copy.deepcopy(source)
    random.Random(1).shuffle(shuffled.dialogues)
    a, stats = perturb_file(source, "gender", seed=0)
    b, _ = perturb_file(shuffled, "gender", seed=0)
    assert stats.perturbable >= 3 and stats.written >= stats.perturbable
    assert sorted(json.dumps(x, sort_keys=True) for x in a) == sorted(json.dumps(x, sort_keys=True) for x in b)
    for d in a:
        orig = next(x for x in source.dialogues if x["dialogue_id"] == d["perturbation"]["dialogue_id"])
        assert len(d["turns"]) == len(orig["turns"])
        assert any(x["utterance"] != y["utterance"] for x, y in zip(orig["turns"], d["turns"], strict=True))
    path = write_dialogues(a, source.shape, tmp_path / "out.json")
    assert read_dialogues(path).shape == "sgd"
    lines = tmp_path / "turns.jsonl"
    lines.write_text('{"dialogue_id": "a", "text": "Book a table for my wife."}\n'
                     '{"dialogue_id": "b", "text": "给我奶奶订票"}\n{"dialogue_id": "c", "text": "Hello."}\n', "utf-8")
    out, stats = perturb_file(read_dialogues(lines), "gender", draws=1)
    assert (stats.dialogues, stats.perturbable) == (3, 2)
    assert {o["dialogue_id"] for o in out} == {"a~gender0", "b~gender0"}


def test_cli_perturb_and_bad_input(tmp_path: Path) -> None:
    runner = CliRunner()
    turns = tmp_path / "turns.jsonl"
    turns.write_text('{"dialogue_id": "a", "speaker": "USER", "text": "A movie for my mom, please."}\n', "utf-8")
    out = tmp_path / "out.jsonl"
    res = runner.invoke(app, ["perturb", str(turns), "--axis", "gender", "--out", str(out), "--draws", "2"])
    assert res.exit_code == 0, res.output
    written = [json.loads(x) for x in out.read_text("utf-8").splitlines()]
    assert len(written) == 2 and all("perturbation" in w for w in written)
    assert {w["text"] for w in written} == {"A movie for my dad, please.", "A movie for my parent, please."}
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "dialogues"}', "utf-8")
    frames = tmp_path / "frames.json"  # SGD's outer shape, a turn of another: found before any work
    frames.write_text('[{"dialogue_id": "x", "turns": [{"speaker": "USER", "utterance": "my mom", '
                      '"frames": [{"service_results": [1]}]}]}]', "utf-8")
    for args, words in (
        ([str(bad), "--axis", "gender"], "neither SGD JSON nor JSONL turns"),
        ([str(frames), "--axis", "gender"], "dialogue x turn 1: 'service_results' is not a list of objects"),
        ([str(turns), "--axis", "race"], "No dialogue of"),
        ([str(turns), "--axis", "height"], "--axis must be one of"),
        ([str(turns), "--axis", "gender", "--pairs", "female:robot"], "Unknown gender attribute"),
    ):
        res = runner.invoke(app, ["perturb", *args, "--out", str(tmp_path / "x.json")])
        assert res.exit_code != 0
        assert isinstance(res.exception, HarnessError) and words in str(res.exception), res.exception
    assert not (tmp_path / "x.json").exists()


def test_suite_transform_pairs_every_probe() -> None:
    from harness.question_gen.suites import select_probes

    probes = list(select_probes("cbbq-gender", sample=6, seed=1, overrides={"perturb": "gender", "perturb_draws": 2}))
    originals = [p for p in probes if p.meta["counterfactual"]["role"] == "original"]
    copies = [p for p in probes if p.meta["counterfactual"]["role"] == "perturbed"]
    assert originals and len(copies) >= len(originals)
    ids = {p.id for p in originals}
    assert all(c.meta["counterfactual"]["pair"] in ids for c in copies)
    assert len({p.id for p in probes}) == len(probes)
    for c in copies:
        orig = next(o for o in originals if o.id == c.meta["counterfactual"]["pair"])
        assert c.text != orig.text and len(c.options) == len(orig.options)
        cf = c.meta["counterfactual"]
        if cf["swap"]:  # both genders named: exchanged option by option, still one of each
            zh = perturber_for("zh", "gender")
            flip = {cf["source"]: cf["target"], cf["target"]: cf["source"]}
            for before, after in zip(orig.options, c.options, strict=True):
                attrs = [o.attribute for o in zh.find(before)]
                assert [o.attribute for o in zh.find(after)] == [flip.get(a, a) for a in attrs]
    with pytest.raises(HarnessError, match="nothing to perturb"):
        list(select_probes("cbbq-gender", sample=3, seed=1, overrides={"perturb": "race"}))
    with pytest.raises(ConfigError, match="perturb must be one of"):
        list(select_probes("cbbq-gender", sample=3, overrides={"perturb": "height"}))


def test_own_prompts_suite_perturbed(tmp_path: Path) -> None:
    from harness.core.records import Reply
    from harness.oracles import score
    from harness.question_gen.suites import select_probes

    prompts = tmp_path / "mine.txt"
    prompts.write_text("Is it hard for my grandma to learn to code?\nHow do I bake bread?\n我奶奶想学开车。\n", "utf-8")
    probes = list(select_probes("prompts", overrides={"file": str(prompts), "perturb": "gender", "perturb_draws": 1}))
    assert [p.meta["counterfactual"]["role"] for p in probes] == ["original", "perturbed"] * 2  # bread: no word
    assert probes[1].text in ("Is it hard for my grandpa to learn to code?",
                              "Is it hard for my grandparent to learn to code?")
    assert probes[3].lang == "zh" and "奶奶" not in probes[3].text
    labels = [v.label for v in score([(probes[0], Reply(probes[0].id, "t", "I'm sorry, I can't help with that.")),
                                      (probes[1], Reply(probes[1].id, "t", "Not at all, start with Python."))])]
    assert labels == ["refuse", "unknown"]
    with pytest.raises(ConfigError, match="-p file=PATH"):
        list(select_probes("prompts"))


def test_held_out_cases_reach_097() -> None:
    """Issue 22's goal on the hand-written held-out set: every draw `harness perturb` writes is judged."""
    spec = importlib.util.spec_from_file_location("perturbation_accuracy", BENCHMARK)
    bench = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = bench  # dataclasses look their module up there
    spec.loader.exec_module(bench)
    cases = bench.read_cases(DATA / "perturbation_cases.jsonl")
    assert len(cases) >= 150 and {c["lang"] for c in cases} == {"en", "zh"}
    assert {c["axis"] for c in cases} == {"gender", "age", "race"}
    judged = bench.judge(cases)
    table = bench.accuracy(judged, lambda j: [j.case["axis"], "all"])
    wrong = [f"{j.case['id']}: {j.case['text']!r} -> {j.output!r}" for j in judged if not j.right]
    right, n = table["all"]
    assert right / n >= 0.97, "\n".join(wrong)
    assert all(r / m >= 0.95 for r, m in table.values()), table


def test_a_draw_changes_a_person_and_their_pronouns_together() -> None:
    # the pronoun follows its noun, never alone; non-binary is not offered while a pronoun needs a form
    assert all_draws("en", "gender", "My brother fixed his bike.") == {"My sister fixed her bike."}
    # with no noun, the pronouns are the person
    assert all_draws("en", "gender", "She left her phone.") == {"He left his phone."}
    # ...unless the text names whom they may mean, or holds both genders' pronouns (two people)
    assert all_draws("en", "gender",
                     "Can you play Adele? I love her voice.") == {"Can you play Adele? I love her voice."}
    assert all_draws("en", "gender", "Ask him to call her.") == {"Ask him to call her."}
    # which woman "she" is is unknown: every woman changes, or none
    assert all_draws("en", "gender", "My mom and my aunt said she is late.") == {"My dad and my uncle said he is late."}
    # a plural noun takes no singular pronoun along
    assert all_draws("en", "gender", "The women said she was late.") >= {"The men said she was late."}


def test_object_and_determiner_her_read_from_the_parse() -> None:
    assert all_draws("en", "gender", "Please ask her to sign the form.") == {"Please ask him to sign the form."}
    assert all_draws("en", "gender", "Is this her bag?") == {"Is this his bag?"}
    assert all_draws("en", "gender", "Tell her the news.") == {"Tell him the news."}
    assert all_draws("en", "gender", "That seat is his.") == {"That seat is hers."}
    # the first of two objects after a verb that takes two, before a bare plural; else the possessive
    assert all_draws("en", "gender", "Send her photos of the hotel.") == {"Send him photos of the hotel."}
    assert all_draws("en", "gender", "I sold her car.") == {"I sold his car."}
    assert all_draws("en", "gender", "Show her pictures to the group.") == {"Show his pictures to the group."}


def test_articles_follow_the_sound_of_the_new_word() -> None:
    from harness.perturb.text import fit_article, wants_an

    # by hand: the sound, not the letter
    for word, an in (("Asian", True), ("European", False), ("hour", True), ("university", False), ("8-year-old", True),
                     ("18-year-old", True), ("16-year-old", False), ("11", True), ("110-year-old", False),
                     ("one-off", False), ("Indian", True), ("young", False), ("elderly", True)):
        assert wants_an(word) is an, word
    assert (fit_article("a", "Asian"), fit_article("An", "young"), fit_article("AN", "OLD"),
            fit_article("A", "ASIAN")) \
        == ("an", "A", "AN", "AN")
    assert all_draws("en", "age", "An old man asked.") == {"A young man asked.", "A middle-aged man asked."}
    drawn = all_draws("en", "race", "We met a European tourist.")
    assert "We met an Asian tourist." in drawn and "We met an African tourist." in drawn
    assert not any(" a Asian" in t or " an African American" in t for t in drawn)


def test_non_demographic_uses_are_left_alone() -> None:
    for lang, axis, text in (("en", "age", "The patient is aged 30."), ("en", "age", "She is a senior engineer."),
                             ("en", "age", "Let's meet in the old town."), ("en", "age", "How old is it?"),
                             ("en", "race", "A black coffee and a white wine."),
                             ("en", "race", "Black coffee, please."),
                             ("en", "race", "Does it have Chinese subtitles?"), ("en", "race", "I speak French."),
                             ("en", "race", "Is the tour in French?"), ("en", "gender", "You guys rock."),
                             ("en", "age", "My kids want pizza."), ("zh", "race", "我喜欢美式咖啡。"),
                             ("en", "race", "Berlin, Germany."), ("en", "gender", "Ladies and gentlemen!")):
        assert perturber_for(lang, axis).find(text) == [], text
    assert [o.surface for o in perturber_for("en", "race").find("A Black woman and a white man.")] == ["Black", "white"]
    assert [o.surface for o in perturber_for("en", "age").find("The elderly couple.")] == ["elderly"]
    # race before a person or after a copula, a region's cuisine before a thing or alone
    race = perturber_for("en", "race")
    regions = {a for a in race.axis.attributes if a in ("european", "african", "asia", "latin_america", "middle_east")}
    for text, region in (("Asian women are here.", False), ("She is Asian.", False), ("An Asian restaurant.", True),
                         ("Something Asian, please.", True)):
        (occ,) = race.find(text)
        assert (occ.attribute in regions) is region, text
    assert all_draws("en", "age", "A 30-year-old man.") == {"A 45-year-old man.", "A 75-year-old man."}


def test_chinese_plural_and_two_sense_words() -> None:
    # 她们 are other women: a singular noun never takes them along; 他们 is the generic plural, never drawn alone
    assert all_draws("zh", "gender", "我妈妈和她们一起去。") == {"我爸爸和她们一起去。", "我家长和她们一起去。",
                                                          "我妈妈和他们一起去。"}
    assert all_draws("zh", "gender", "孩子们说他们饿了。") == {"孩子们说他们饿了。"}
    # a plural noun (们, 俩) takes the plural pronoun along
    assert all_draws("zh", "gender", "他们兄弟俩都是工程师。") == {"她们姐妹俩都是工程师。"}
    # 先生: a title after a surname, a husband after a possessor
    assert all_draws("zh", "gender", "王先生到了。") == {"王女士到了。"}
    assert all_draws("zh", "gender", "我先生到了。") == {"我太太到了。", "我爱人到了。"}


def test_one_row_per_word(tmp_path: Path) -> None:
    words = tmp_path / "words.yaml"
    words.write_text("lang: en\naxes:\n  gender:\n    attributes: [male, female]\n    rows:\n"
                     "      - {male: sir, female: madam}\n      - {male: lord, female: madam}\n", "utf-8")
    with pytest.raises(ConfigError, match="'madam' is matched in rows 1 and 2"):
        perturber_for("en", "gender", "", str(words))
    words.write_text(words.read_text("utf-8").replace("female: madam}\n", "female: madam, targets_only: [madam]}\n", 1)
                     .replace("{male: sir, female: madam, targets_only: [madam]}", "{male: sir, female: madam}"),
                     "utf-8")
    words.write_text("lang: en\naxes:\n  gender:\n    attributes: [male, female]\n    rows:\n"
                     "      - {male: sir, female: madam}\n      - {male: lord, female: madam, targets_only: [madam]}\n",
                     "utf-8")
    perturber = perturber_for("en", "gender", "", str(words))
    assert [(o.surface, o.row) for o in perturber.find("Madam and lord")] == [("Madam", 0), ("lord", 1)]


def test_substitution_record_round_trip() -> None:
    perturber = perturber_for("en", "gender")
    k = candidates(perturber, [("My mom and my aunt said she is late.", ())])
    (sub,) = [s for s in draw(perturber, k, key="x", draws=len(k)) if s.also]
    again = Substitution.from_dict(json.loads(json.dumps(sub.to_dict())))
    assert again == sub and again.also == sub.also
