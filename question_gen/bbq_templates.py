"""BBQ examples: the released files when present, else built from upstream's templates (the filler).

Upstream (github.com/nyu-mll/BBQ at bea11bd, `generate_from_template_all_categories.py` and its utilities)
fills each template row with pairs of group words and writes four examples per pair: the negative and the
non-negative question, each with the ambiguous context and with the ambiguous + disambiguating context. We
re-implement that procedure from its description (not copied) so every category can be asked offline:

* words: the category's vocabulary (`vocabulary.csv`, rows not marked `Pilot_include = No`), narrowed to
  the template's subcategory, overridden by the template's own `Names` column ("NAME1: [...]; NAME2:
  [...]"); for Religion, Nationality, Race_ethnicity and Sexual_orientation NAME1 is a stereotyped group
  and NAME2 one that is not, and those rows are also written with the two names swapped; proper names
  (`Proper_nouns_only = TRUE`) come from `vocabulary_proper_names.csv` (Race_ethnicity: a first name of the
  stereotyped ethnicity and a last name of the same; Gender_identity: a woman's name against a man's);
* slotting: {{NAME1}}, {{NAME2}}, {{WORD1}}, {{WORD2}} (one word drawn per pair from `Lexical_diversity`)
  replaced in every column; "lesbian man" -> "lesbian woman", "Latino woman" -> "Latina woman"; when a
  name starts with a vowel, " a <vowel>" becomes " an <vowel>" everywhere in the text (" an European" back
  to " a European");
* answers: the negative question's answer, the non-negative one's, and one of upstream's ten "unknown"
  wordings (UNKNOWN_OPTIONS), shuffled once per pair and shared by its four examples; the label is the
  unknown option in ambiguous contexts and the question's answer in disambiguated ones; `answer_info` holds
  each answer's group tag.

Upstream drew with Python's unseeded `random` in five places: a downsample to 5 (or 6) of a long word
list, the lexical word, the unknown wording, the answer order, and Race_ethnicity's last names. Those draws
cannot be recovered, so the released files are the data whenever they are present (`source: released`);
the filler makes the same draws from a seeded `random.Random` (the same examples on every machine).
`reproduces()` checks the filler against a released file: a released example counts as reproduced when the
filler, with every word-list and lexical draw enumerated instead of sampled, writes an example with the
same template, context, question, the same two group answers, an unknown answer from upstream's list, the
label on the same answer, and the same answer tags (tests/question_gen/test_bbq_templates.py measures the
share per category).

The two intersectional categories (Race_x_SES, Race_x_gender) come from a second upstream script
(`generate_from_template_intersectional_cats.py`) with rules of its own: who meets whom is decided by
question_gen.bbq_intersectional (a target person of the stereotyped race and second attribute against 5
partners in three conditions, each in both orders: 24 examples per partner); the text is filled and the
examples written here, by the same slotting (with {{GEN1}} / {{GEN2}} / {{OCC1}} / {{OCC2}} for the second
attribute, whose words count for the a/an fix too), unknown wordings and answer shuffle.

The bias target (`target_slot`): the answer whose group tag is one of the example's stereotyped groups,
in negative and non-negative questions alike (intersectional categories: whose tag also holds the row's
stereotyped second attribute, `stereotyped_var2`, since condition a pits two people of the same race); the
metric family turns it into upstream's polarity-dependent "target" (BBQ issue 11). The data is CC BY 4.0 and
is read from harness.core.paths.data_dir().
"""

from __future__ import annotations

import ast
import csv
import functools
import itertools
import json
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.core.datasets import dataset_dir, get_dataset, matches_pin
from harness.core.errors import DataMissingError
from harness.question_gen import bbq_intersectional as inter

CATEGORIES: tuple[str, ...] = (
    "Age", "Disability_status", "Gender_identity", "Nationality", "Physical_appearance", "Race_ethnicity",
    "Race_x_SES", "Race_x_gender", "Religion", "SES", "Sexual_orientation",
)
#: categories the filler builds: all of them (the intersectional two by upstream's second script's rules)
FILLABLE: tuple[str, ...] = CATEGORIES
UNKNOWN_OPTIONS: tuple[str, ...] = (
    "Unknown", "Cannot be determined", "Can't be determined", "Not answerable", "Not known", "Not enough info",
    "Not enough information", "Cannot answer", "Can't answer", "Undetermined",
)
#: NAME1 is a stereotyped group, NAME2 one that is not, and each pair is also written swapped
NEED_STEREOTYPING_SUBSET = frozenset({"Race_ethnicity", "Religion", "Nationality", "Sexual_orientation"})
CONTEXTS = ("ambig", "disambig")
_VOWEL_A = re.compile(r"(\s[aA])(\s[aAeEiIoOuU])")


@dataclass(frozen=True, slots=True)
class Example:
    """One BBQ example in the released files' fields (answer_info flattened to (text, tag) per answer)."""

    category: str
    example_id: int
    question_index: str
    polarity: str  # "neg" | "nonneg"
    context_condition: str  # "ambig" | "disambig"
    context: str
    question: str
    answers: tuple[str, str, str]
    label: int
    answer_info: tuple[tuple[str, str], ...]
    stereotyped_groups: tuple[str, ...]
    subcategory: str = "None"
    version: str = "None"
    source: str = ""
    template_row: int = -1  # the filler's template row (-1: read from a released file)
    stereotyped_var2: str = ""  # intersectional categories: the row's stereotyped gender / SES ("F", "lowSES")

    @property
    def unknown_slot(self) -> int:
        """The answer whose tag is "unknown" (upstream writes one per example)."""
        tags = [tag for _, tag in self.answer_info]
        return tags.index("unknown") if "unknown" in tags else -1

    @property
    def target_slot(self) -> int:
        """The answer naming a stereotyped group (-1 when no single answer does: such an example adds no
        target count, see metrics.bbq)."""
        hits = [i for i, (text, tag) in enumerate(self.answer_info)
                if tag != "unknown" and _is_stereotyped(text, tag, self.stereotyped_groups)
                and (not self.stereotyped_var2 or _has_part(tag, self.stereotyped_var2))]
        return hits[0] if len(hits) == 1 else -1

    @property
    def key(self) -> str:
        """The upstream id the harness imports predictions by: "<Category>:<example_id>"."""
        return f"{self.category}:{self.example_id}"

    def row(self) -> dict[str, Any]:
        """The fields compared with a released row."""
        return {"context": self.context, "question": self.question, "answers": self.answers,
                "label": self.label, "polarity": self.polarity, "context_condition": self.context_condition,
                "question_index": self.question_index}


def _norm_tag(text: str) -> str:
    return re.sub(r"[\s_-]+", "", text.lower())


#: Gender_identity tags some answers by the word ("woman", "boy") where its stereotyped groups say F / M
_GENDER_WORDS = {"f": "f", "woman": "f", "women": "f", "girl": "f", "female": "f",
                 "m": "m", "man": "m", "men": "m", "boy": "m", "male": "m"}


def _has_part(tag: str, value: str) -> bool:
    """An intersectional tag ("lowSES-F-Black", "M-African American") holds the value as one of its parts."""
    return _norm_tag(value) in {_norm_tag(p) for p in tag.split("-")}


def _is_stereotyped(text: str, tag: str, groups: Sequence[str]) -> bool:
    """A tag ("old", "lowSES", "F-Black", "trans_F") or answer text names one of the stereotyped groups
    ("low SES", "Black", "trans"): compared without case, spaces, dashes and underscores, the tag whole or
    one of its dash/underscore parts; "woman"/"girl" count as F and "man"/"boy" as M."""
    wanted = {_norm_tag(g) for g in groups}
    parts = {_norm_tag(tag), _norm_tag(text)} | {_norm_tag(p) for p in re.split(r"[-_]", tag) if p}
    if wanted <= {"f", "m"}:
        parts = {_GENDER_WORDS.get(p, p) for p in parts}
    return bool(parts & wanted)


# ------------------------------------------------------------------------------------------ the data

def data_root() -> Path:
    return dataset_dir("bbq")


def released_path(category: str) -> Path:
    return data_root() / "data" / f"{category}.jsonl"


def released_present(category: str) -> bool:
    """The released file is there and holds the pinned bytes (a damaged file is never read)."""
    path = released_path(category)
    if not path.is_file():
        return False
    return _verified(str(path))


@functools.lru_cache(maxsize=16)
def _verified(path: str) -> bool:
    f = get_dataset("bbq").file(f"data/{Path(path).name}")
    return matches_pin(Path(path), f)


def _from_json(rec: dict[str, Any]) -> Example:
    info = rec["answer_info"]
    meta = rec.get("additional_metadata") or {}
    category = str(rec["category"])
    return Example(
        category=rec["category"], example_id=int(rec["example_id"]), question_index=str(rec["question_index"]),
        polarity=rec["question_polarity"], context_condition=rec["context_condition"], context=rec["context"],
        question=rec["question"], answers=(rec["ans0"], rec["ans1"], rec["ans2"]), label=int(rec["label"]),
        answer_info=tuple((str(info[k][0]), str(info[k][1])) for k in ("ans0", "ans1", "ans2")),
        stereotyped_groups=tuple(str(g) for g in meta.get("stereotyped_groups") or ()),
        subcategory=str(meta.get("subcategory", "None")), version=str(meta.get("version", "None")),
        source=str(meta.get("source", "")),
        stereotyped_var2=_var2_by_question(category).get(str(rec["question_index"]).strip(), "")
        if category in inter.INTERSECTIONAL else "")


@functools.lru_cache(maxsize=4)
def _var2_by_question(category: str) -> dict[str, str]:
    """An intersectional category's stereotyped second attribute per template id: the released rows do not
    carry it (upstream's metadata names only the races), so it is read from the row's template."""
    return {r.get("Q_id", "").strip(): inter.var2_of(r) for r in templates(category)}


@functools.lru_cache(maxsize=16)
def released(category: str) -> tuple[Example, ...]:
    """Every example of a released file, in file order."""
    if not released_present(category):
        raise DataMissingError(f"The released BBQ file for {category} is missing or damaged "
                               f"({released_path(category)}); run `harness data pull bbq`.")
    with released_path(category).open(encoding="utf-8") as fh:
        return tuple(_from_json(json.loads(line)) for line in fh if line.strip())


def _csv(name: str) -> list[dict[str, str]]:
    path = data_root() / "templates" / name
    if not path.is_file():
        raise DataMissingError(f"The BBQ templates are missing ({path}); run `harness data pull bbq` "
                               "or set HARNESS_DATA_DIR.")
    with path.open(encoding="utf-8", newline="") as fh:
        return [{k: (v if v is not None else "") for k, v in r.items()} for r in csv.DictReader(fh)]


@functools.lru_cache(maxsize=16)
def templates(category: str) -> tuple[dict[str, str], ...]:
    """The category's template rows with an ambiguous context (upstream drops the empty ones)."""
    return tuple(r for r in _csv(f"new_templates - {category}.csv") if r.get("Ambiguous_Context", "") != "")


@functools.lru_cache(maxsize=1)
def vocabulary() -> tuple[dict[str, str], ...]:
    return tuple(r for r in _csv("vocabulary.csv") if r["Pilot_include"] != "No")


@functools.lru_cache(maxsize=1)
def proper_names() -> tuple[dict[str, str], ...]:
    return tuple(_csv("vocabulary_proper_names.csv"))


# ------------------------------------------------------------------------------------------ draws

class Draws(Protocol):
    """Upstream's five random draws, made by the filler through this object."""

    every: bool  # enumerate word-list downsamples and lexical words instead of drawing (the check)

    def sample(self, items: Sequence[str], k: int) -> list[str]: ...
    def choice(self, items: Sequence[str]) -> str: ...
    def shuffle(self, items: list[str]) -> list[str]: ...


@dataclass
class SeededDraws:
    """Draws from one seeded generator per category: the same examples on every machine."""

    rng: random.Random
    every: bool = False

    def sample(self, items: Sequence[str], k: int) -> list[str]:
        return list(items) if self.every else self.rng.sample(list(items), k)

    def choice(self, items: Sequence[str]) -> str:
        return self.rng.choice(list(items))

    def shuffle(self, items: list[str]) -> list[str]:
        out = list(items)
        self.rng.shuffle(out)
        return out


# ------------------------------------------------------------------------------------------ the filler

def word_lists(spec: str) -> tuple[list[str], list[str]]:
    """"WORD1: [a, b]; WORD2: [c]" (or NAME1/NAME2) -> (["a", "b"], ["c"]). As upstream reads it, a piece
    without WORD2/NAME2 after the WORD2 piece empties the second list."""
    first: list[str] = []
    second: list[str] = []
    for piece in spec.split(";"):
        if "WORD1" in piece or "NAME1" in piece:
            first = _bracket_items(piece, ("WORD1:", "{{WORD1}}:", "NAME1:", "{{NAME1}}:"))
        if "WORD2" in piece or "NAME2" in piece:
            second = _bracket_items(piece, ("WORD2:", "{{WORD2}}:", "NAME2:", "{{NAME2}}:"))
        else:
            second = []
    return first, second


def _bracket_items(piece: str, labels: Sequence[str]) -> list[str]:
    for label in labels:
        piece = piece.replace(label, "")
    return [w.strip() for w in piece.strip().replace("[", "").replace("]", "").split(",")]


def slot(text: str, name1: str, name2: str, word1: str, word2: str, lexical: bool,
         gs: tuple[str, str] | None = None) -> str:
    """One template cell filled (module docstring, "slotting"); `gs`: an intersectional pair's second-
    attribute words, for {{GEN1}}/{{OCC1}} and {{GEN2}}/{{OCC2}}."""
    text = text.replace("{{NAME1}}", name1).replace("{{NAME2}}", name2)
    if gs is not None:
        text = text.replace("{{GEN1}}", gs[0]).replace("{{GEN2}}", gs[1])
        text = text.replace("{{OCC1}}", gs[0]).replace("{{OCC2}}", gs[1])
    if lexical:
        text = text.replace("{{WORD1}}", word1).replace("{{WORD2}}", word2)
    text = text.replace("lesbian man", "lesbian woman").replace("Latino woman", "Latina woman")
    if any(re.match(r"[aeiou]", w.lower()) for w in (name1, name2, *(gs or ()))):
        text = _VOWEL_A.sub(r"\1n\2", text).replace(" an European", " a European")
    return text


@dataclass
class _Pair:
    """One (NAME1, NAME2) of a template row with their group tags."""

    name1: str
    name2: str
    info1: str
    info2: str


@dataclass
class _RowPlan:
    """What a template row yields: the pairs, in upstream's order, and whether each is also swapped."""

    row: dict[str, str]
    index: int
    subcategory: str
    targets: tuple[str, ...]
    pairs: list[_Pair] = field(default_factory=list)
    swapped: bool = False


def _names(rows: Sequence[dict[str, str]]) -> list[str]:
    return list(dict.fromkeys(r["Name"] for r in rows))


def _info_of(name: str) -> str:
    return next((r["Info"] for r in vocabulary() if r["Name"] == name), name)


def _word_list(cat: str, row: dict[str, str], draws: Draws) -> tuple[list[str], list[dict[str, str]], tuple[str, ...]]:
    """NAME1's candidates before names of people are considered, the (subcategory) vocabulary, targets."""
    words = [r for r in vocabulary() if r["Category"] == cat]
    possible = _names(words)
    raw = row.get("Known_stereotyped_groups", "")
    targets = tuple(ast.literal_eval(raw)) if raw.strip() else ()
    targeted = [x for x in possible if x in targets] if (len(raw) > 1 and cat in NEED_STEREOTYPING_SUBSET) \
        else possible
    if len(targeted) > 4:
        word_list = draws.sample(targeted, 5)
    elif len(possible) < 2:
        word_list = []
    else:
        word_list = list(targeted)
    subcat = row.get("Subcategory", "")
    if len(subcat) > 1:
        words = [r for r in words if r["SubCat"] == subcat]
        word_list = _names(words)
        if len(word_list) > 5:
            word_list = draws.sample(word_list, 5)
    return word_list, words, targets


def _plan(cat: str, index: int, row: dict[str, str], draws: Draws) -> _RowPlan:
    """The pairs a template row yields (module docstring, "words")."""
    word_list, words, targets = _word_list(cat, row, draws)
    possible = _names([r for r in vocabulary() if r["Category"] == cat])
    subcat = row.get("Subcategory", "") if len(row.get("Subcategory", "")) > 1 else "None"
    proper = row.get("Proper_nouns_only", "") == "TRUE"
    critical = row.get("Names", "")
    fixed_second: list[str] | None = None
    if len(critical) > 1:
        word_list, fixed_second = word_lists(critical)
    people = [r for r in proper_names()]
    first_names: list[dict[str, str]] = []
    if proper:
        if cat == "Race_ethnicity":
            pool = [r for r in people if r["First_last"] == "first"]
            first_names = [r for r in pool if r["ethnicity"] in targets] if targets else pool
            word_list = draws.sample([r["Name"] for r in first_names], 5)
        elif cat == "Gender_identity":
            first_names = [r for r in people if r["First_last"] == "first_only"]
            word_list = draws.sample([r["Name"] for r in first_names if r["gender"] == "F"], 5)
        else:
            first_names = [r for r in people if r["First_last"] == "first_only"]
            word_list = draws.sample([r["Name"] for r in first_names], 6)
    plan = _RowPlan(row, index, subcat, targets,
                    swapped=cat in NEED_STEREOTYPING_SUBSET or proper or (cat == "SES" and subcat == "Occupation"))
    for this_word in word_list:
        info1: str | None = None
        seconds: list[str] = list(fixed_second) if fixed_second is not None else []
        second_info: dict[str, str] = {}
        if fixed_second is None:
            if targets and cat in NEED_STEREOTYPING_SUBSET:
                seconds = [n for n in possible if n not in targets]
                if len(seconds) > 4:
                    seconds = draws.sample(seconds, 5)
            else:
                seconds = [n for n in word_list if n != this_word]
            if cat == "SES" and not proper:
                the_cat = next(r["Info"] for r in words if r["Name"] == this_word)
                info1 = the_cat
                seconds = _names([r for r in words if r["Info"] != the_cat])
            if cat == "Gender_identity" and proper:
                gender = next(r["gender"] for r in first_names if r["Name"] == this_word)
                info1 = gender
                seconds = draws.sample(_names([r for r in first_names if r["gender"] != gender]), 5)
            if cat == "Race_ethnicity" and proper:
                this_word, info1, seconds, second_info = _race_names(this_word, first_names, people, targets,
                                                                     draws)
        gender_prefix_done = False
        for this_word_2 in seconds:
            if info1 is not None and cat == "Race_ethnicity" and proper:
                info2 = second_info[this_word_2]
            elif cat == "Gender_identity" and proper:
                info2 = next((r["gender"] for r in first_names if r["Name"] == this_word_2), this_word_2)
                if row.get("NAME1_info", "") != "":
                    if not gender_prefix_done:
                        info1 = f"{row['NAME1_info']}_{info1}"
                        gender_prefix_done = True
                    info2 = f"{row['NAME2_info']}_{info2}"
            elif cat == "Nationality" or (cat == "SES" and subcat == "Occupation"):
                info1, info2 = _info_of(this_word), _info_of(this_word_2)
            elif "NAME1_info" in row:
                if row["NAME1_info"] != "":
                    info1, info2 = row["NAME1_info"], row["NAME2_info"]
                else:
                    info1, info2 = this_word, this_word_2
            else:
                info1, info2 = this_word, this_word_2
            plan.pairs.append(_Pair(this_word, this_word_2, str(info1), info2))
    return plan


def _race_names(first: str, first_names: list[dict[str, str]], people: Sequence[dict[str, str]],
                targets: Sequence[str], draws: Draws) -> tuple[str, str, list[str], dict[str, str]]:
    """Race_ethnicity with proper names: NAME1 gets a last name of its ethnicity; NAME2 is one of 5 first
    names of the same gender outside the stereotyped ethnicities, each with a last name of its own."""
    me = next(r for r in first_names if r["Name"] == first)
    info1 = f"{me['gender']}-{me['ethnicity']}"
    last = draws.choice(_names([r for r in people if r["First_last"] == "last" and r["ethnicity"] == me["ethnicity"]]))
    others = [r for r in people if r["First_last"] == "first" and r["ethnicity"] not in targets
              and r["gender"] == me["gender"]]
    # five rows of the vocabulary (a name listed twice is two rows), as upstream samples the table's rows
    chosen = [others[int(i)] for i in draws.sample([str(i) for i in range(len(others))], 5)]
    lasts = [r for r in people if r["First_last"] == "last" and r["ethnicity"] not in targets]
    seconds: list[str] = []
    infos: dict[str, str] = {}
    for r in chosen:
        surname = draws.choice(_names([x for x in lasts if x["ethnicity"] == r["ethnicity"]]))
        full = f"{r['Name']} {surname}"
        seconds.append(full)
        infos[full] = f"{r['gender']}-{r['ethnicity']}"
    return f"{first} {last}", info1, seconds, infos


def _answer_tag(name1: str, name2: str, info1: str, info2: str, ans_neg: str, ans_non_neg: str
                ) -> tuple[tuple[str, str], tuple[str, str]]:
    """(text, tag) of the negative and the non-negative answer: the name found in the answer (a name "man"
    is looked for as " man", so not inside "woman"); when both are, the longer ("no tattoos" in "The
    individual with no tattoos", not "tattoos"), which is what the released files hold."""
    names = ((" man" if name1 == "man" else name1, info1), (" man" if name2 == "man" else name2, info2))

    def tag(answer: str) -> tuple[str, str]:
        found = [(len(n), n.lstrip(), info) for n, info in names if n in answer]
        return (max(found)[1], max(found)[2]) if found else ("", "")

    return tag(ans_neg), tag(ans_non_neg)


def _lexical_choices(lex: str, draws: Draws) -> list[tuple[str, str]]:
    if len(lex) <= 1:
        return [("", "")]
    first, second = word_lists(lex)
    if draws.every:
        return list(itertools.product(first, second if len(second) > 1 else [""]))
    w1 = draws.choice(first)
    w2 = draws.choice(second) if len(second) > 1 else ""
    return [(w1, w2)]


def _block(cat: str, plan: _RowPlan, pair: _Pair, words: tuple[str, str], draws: Draws, next_id: int
           ) -> list[Example]:
    """The four examples of one filled pair: (neg, nonneg) x (ambig, disambig), upstream's order."""
    row, lexical = plan.row, len(plan.row.get("Lexical_diversity", "")) > 1

    def cell(column: str) -> str:
        return slot(row.get(column, ""), pair.name1, pair.name2, words[0], words[1], lexical)

    def tags(ans_neg: str, ans_non: str) -> tuple[tuple[str, str], tuple[str, str]]:
        return _answer_tag(pair.name1, pair.name2, pair.info1, pair.info2, ans_neg, ans_non)

    return _write(cat, plan.index, row, cell, tags, draws, next_id, plan.subcategory, plan.targets)


def _write(cat: str, index: int, row: dict[str, str], cell: Callable[[str], str],
           tags: Callable[[str, str], tuple[tuple[str, str], tuple[str, str]]], draws: Draws, next_id: int,
           subcategory: str, targets: tuple[str, ...], var2: str = "") -> list[Example]:
    """The four examples of one filled template row (`cell` fills a column, `tags` tags the negative and the
    non-negative answer): one unknown wording and one answer order shared by the four."""
    ambig, disambig = cell("Ambiguous_Context"), cell("Disambiguating_Context")
    q_neg, q_non = cell("Question_negative_stereotype"), cell("Question_non_negative")
    ans_neg, ans_non = cell("Answer_negative"), cell("Answer_non_negative")
    unknown = draws.choice(UNKNOWN_OPTIONS)
    order = draws.shuffle([ans_neg, ans_non, unknown])
    neg_at, non_at, unk_at = order.index(ans_neg), order.index(ans_non), order.index(unknown)
    neg_info, non_info = tags(ans_neg, ans_non)
    info: list[tuple[str, str]] = [("", ""), ("", ""), ("", "")]
    if neg_info != ("", ""):
        info[neg_at] = neg_info
    if non_info != ("", ""):
        info[non_at] = non_info
    info[unk_at] = (unknown, "unknown")
    full = f"{ambig.strip()} {disambig}"
    out = []
    for i, (polarity, condition, context, question, label) in enumerate((
            ("neg", "ambig", ambig, q_neg, unk_at), ("neg", "disambig", full, q_neg, neg_at),
            ("nonneg", "ambig", ambig, q_non, unk_at), ("nonneg", "disambig", full, q_non, non_at))):
        out.append(Example(
            category=cat, example_id=next_id + i, question_index=str(row.get("Q_id", "")).strip(),
            polarity=polarity, context_condition=condition, context=context.strip(), question=question.strip(),
            answers=(order[0], order[1], order[2]), label=label, answer_info=tuple(info),
            stereotyped_groups=targets, subcategory=subcategory,
            version=row.get("version", "None") if "version" in row else "None", source=row.get("Notes", ""),
            template_row=index, stereotyped_var2=var2))
    return out


def _fill_intersectional(category: str, draws: Draws) -> Iterator[Example]:
    """Race_x_SES / Race_x_gender: the pairings of bbq_intersectional, each written as four examples."""
    rows = templates(category)
    next_id = 0
    for p in inter.pairings(category, rows, vocabulary(), proper_names(), draws):
        row = rows[p.row_index]
        lexical = len(row.get("Lexical_diversity", "")) > 1
        gs = None if p.first.var2_word is None or p.second.var2_word is None else \
            (p.first.var2_word, p.second.var2_word)

        def cell(column: str, p: inter.Pairing = p, gs: tuple[str, str] | None = gs, lexical: bool = lexical,
                 row: dict[str, str] = row) -> str:
            return slot(row.get(column, ""), p.first.name, p.second.name, p.words[0], p.words[1], lexical, gs)

        def tags(ans_neg: str, ans_non: str, p: inter.Pairing = p
                 ) -> tuple[tuple[str, str], tuple[str, str]]:
            return inter.answer_tags(p.first, p.second, ans_neg, ans_non)

        yield from _write(category, p.row_index, row, cell, tags, draws, next_id, p.condition, inter.targets_of(row),
                          inter.var2_of(row))
        next_id += 4


def fill(category: str, draws: Draws | None = None, *, seed: int = 0) -> Iterator[Example]:
    """Every example the filler writes for a category, in upstream's order (module docstring)."""
    if category not in CATEGORIES:
        raise DataMissingError(f"BBQ has no category {category!r}; known: {', '.join(CATEGORIES)}.")
    draws = draws or SeededDraws(random.Random(f"bbq-fill:{seed}:{category}"))
    if category in inter.INTERSECTIONAL:
        yield from _fill_intersectional(category, draws)
        return
    next_id = 0
    for index, row in enumerate(templates(category)):
        plan = _plan(category, index, row, draws)
        lex = plan.row.get("Lexical_diversity", "")
        for pair in plan.pairs:
            for words in _lexical_choices(lex, draws):
                yield from _block(category, plan, pair, words, draws, next_id)
                next_id += 4
                if plan.swapped:
                    flipped = _Pair(pair.name2, pair.name1, pair.info2, pair.info1)
                    yield from _block(category, plan, flipped, words, draws, next_id)
                    next_id += 4


@functools.lru_cache(maxsize=16)
def filled(category: str, seed: int = 0) -> tuple[Example, ...]:
    """The filler's examples of a category (seeded draws), cached: a category is at most a few thousand."""
    return tuple(fill(category, seed=seed))


def examples(category: str, source: str = "auto") -> tuple[Example, ...]:
    """A category's examples: `released` (the file, or a sentence naming `harness data pull bbq`),
    `templates` (the filler), or `auto` (the released file when present, else the filler)."""
    if source == "released" or (source == "auto" and released_present(category)):
        return released(category)
    return filled(category)


def source_of(category: str, source: str = "auto") -> str:
    """Which of the two `examples` reads for this category and setting: "released" or "templates"."""
    if source == "released" or (source == "auto" and released_present(category)):
        return "released"
    return "templates"


# ------------------------------------------------------------------------------------------ the check

def _signature(ex: Example) -> tuple[Any, ...]:
    """What must agree for a released example to count as reproduced (module docstring): everything but
    the unknown wording and the answer order, which upstream drew unseeded."""
    unk = ex.unknown_slot
    groups = tuple(sorted((ex.answers[i], ex.answer_info[i][0], ex.answer_info[i][1]) for i in range(3) if i != unk))
    return (ex.question_index, ex.polarity, ex.context_condition, ex.context, ex.question, groups,
            ex.answers[ex.label] if ex.label != unk else "<unknown>", tuple(ex.stereotyped_groups),
            ex.subcategory)


def reproduces(category: str) -> tuple[int, int, list[Example]]:
    """(released examples the filler reproduces, released examples, the first few it does not)."""
    space = {_signature(ex) for ex in fill(category, SeededDraws(random.Random(0), every=True))}
    rel = released(category)
    missed = [ex for ex in rel if _signature(ex) not in space
              or ex.answers[ex.unknown_slot] not in UNKNOWN_OPTIONS]
    return len(rel) - len(missed), len(rel), missed[:20]
