"""Who meets whom in BBQ's two intersectional categories (Race_x_SES, Race_x_gender), as upstream's second script
draws them.

Upstream (github.com/nyu-mll/BBQ at bea11bd, `generate_from_template_intersectional_cats.py`) writes these two
categories with rules of their own; we re-implement them from their description (not copied). Every template
row names a stereotyped race (`Known_stereotyped_race`) and a stereotyped second attribute
(`Known_stereotyped_var2`: `M` / `F`, or `lowSES` / `highSES`). The **target person** holds both: a race word
from the stereotyped list (each of them when there are at most 4, else 5 drawn), or, for rows with
`Proper_nouns_only = TRUE`, one of 5 first names drawn from the stereotyped ethnicities (Race_x_gender: of the
stereotyped gender; Race_x_SES: of the template's `Stated_gender_info` when it has one) with a last name of its
ethnicity. Their second attribute (`{{GEN1}}` / `{{OCC1}}`) is the template's `Names` word for the stereotyped
value (`Var2_info` says which list is which; one word drawn per row) or, for Race_x_SES rows without `Names`,
an occupation of that SES from the vocabulary (drawn anew for every partner).

For each target person, 5 partners are drawn (5 race words outside the target's list; with names, 5 rows of
the proper-name vocabulary per condition, each with a last name of its ethnicity), and each partner gives
three **conditions**, each written in both orders (6 x 4 = 24 examples per partner):

* a: the same race, the other second attribute (with names: another first name of the same ethnicity, and for
  Race_x_gender of the other gender);
* b: another race, the same second attribute;
* c: another race and the other second attribute (Race_x_SES with names: the same person as b, as upstream
  writes it).

Answer tags (`answer_info`): `<var2>-<race>` ("M-Black", "lowSES-Latino"); with names `<gender>-<ethnicity>`
(Race_x_gender) or `<SES>-<gender>-<ethnicity>` (Race_x_SES). An answer is tagged with a person when it holds the
person's race word (or name) and second-attribute word, the second person checked last (upstream's order, so
in Race_x_gender's "men" / "women" row the "women" answer of condition a carries the men's tag: "men" is in
"women", and upstream guards only "man"). The bias target of an example is the answer tagged with both
stereotyped values (bbq_templates.Example.target_slot).

This module only decides the pairings; bbq_templates fills the text and writes the examples (it imports this
module, never the reverse).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

INTERSECTIONAL: tuple[str, ...] = ("Race_x_SES", "Race_x_gender")
#: the other value of each second attribute (there are only two of each)
OTHER_VAR2 = {"M": "F", "F": "M", "lowSES": "highSES", "highSES": "lowSES"}
CONDITIONS = ("a", "b", "c")


class Drawer(Protocol):
    """The draws this module makes (bbq_templates.SeededDraws is one)."""

    def sample(self, items: Sequence[str], k: int) -> list[str]: ...
    def choice(self, items: Sequence[str]) -> str: ...


@dataclass(frozen=True, slots=True)
class Person:
    """One side of a pair: the race word or full name, the second-attribute word (None with Race_x_gender's
    names, whose gender the name carries), and the answer tag."""

    name: str
    var2_word: str | None
    tag: str


@dataclass(frozen=True, slots=True)
class Pairing:
    """Two people of one template row in the order they fill {{NAME1}} / {{NAME2}}, the condition they show
    (`intersectional_a|b|c`, upstream's subcategory) and the lexical words (WORD1, WORD2) of this partner."""

    row_index: int
    first: Person
    second: Person
    condition: str
    words: tuple[str, str]


def targets_of(row: Mapping[str, str]) -> tuple[str, ...]:
    """The row's stereotyped races (upstream's `stereotyped_groups` for these categories)."""
    raw = row.get("Known_stereotyped_race", "").strip()
    return tuple(ast.literal_eval(raw)) if raw else ()


def var2_of(row: Mapping[str, str]) -> str:
    """The row's stereotyped second attribute ("M", "F", "lowSES", "highSES")."""
    return row.get("Known_stereotyped_var2", "").strip()


def _unique(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(values))


def _rows_sample(rows: Sequence[Mapping[str, str]], k: int, draws: Drawer) -> list[Mapping[str, str]]:
    """k rows of a table (a name listed twice is two rows, as upstream samples the table's rows)."""
    picked = draws.sample([str(i) for i in range(len(rows))], k)
    return [rows[int(i)] for i in picked]


def _with_last_name(first: Mapping[str, str], lasts: Sequence[Mapping[str, str]], draws: Drawer) -> str:
    surname = draws.choice(_unique([r["Name"] for r in lasts if r["ethnicity"] == first["ethnicity"]]))
    return f"{first['Name']} {surname}"


@dataclass
class _Row:
    """What one template row fixes before its people are drawn."""

    category: str
    index: int
    row: Mapping[str, str]
    targets: tuple[str, ...]
    var2: str
    proper: bool
    lexical: str


def _var2_words(r: _Row) -> tuple[list[str], list[str]] | None:
    """The target's and the other second-attribute words from the `Names` column, or None when the row has
    none (Race_x_SES then draws an occupation per partner; Race_x_gender's name rows need none)."""
    names = r.row.get("Names", "")
    if len(names) <= 1:
        return None
    lists = ast.literal_eval(names)
    info = ast.literal_eval(r.row.get("Var2_info", ""))
    at = info.index(r.var2)
    mine, other = lists[at], lists[1 - at]
    return ([mine] if isinstance(mine, str) else list(mine)), ([other] if isinstance(other, str) else list(other))


def _occupations(vocab: Sequence[Mapping[str, str]], var2: str) -> tuple[list[str], list[str]]:
    ses = [v for v in vocab if v["Category"] == "SES"]
    return (_unique([v["Name"] for v in ses if v["Info"] == var2]),
            _unique([v["Name"] for v in ses if v["Info"] != var2]))


def _lexical(spec: str, draws: Drawer) -> tuple[str, str]:
    """One WORD1 (and WORD2 when the row lists more than one) per partner, as upstream draws them."""
    if len(spec) <= 1:
        return "", ""
    first, second = _word_lists(spec)
    return draws.choice(first), (draws.choice(second) if len(second) > 1 else "")


def _word_lists(spec: str) -> tuple[list[str], list[str]]:
    """"WORD1: [a, b]; WORD2: [c]" -> (["a", "b"], ["c"]) (bbq_templates.word_lists' reading, kept here so
    this module imports nothing of the filler)."""
    first: list[str] = []
    second: list[str] = []
    for piece in spec.split(";"):
        if "WORD1" in piece:
            first = [w.strip() for w in piece.replace("{{WORD1}}:", "").replace("WORD1:", "").strip()
                     .replace("[", "").replace("]", "").split(",")]
        if "WORD2" in piece:
            second = [w.strip() for w in piece.replace("{{WORD2}}:", "").replace("WORD2:", "").strip()
                      .replace("[", "").replace("]", "").split(",")]
        else:
            second = []
    return first, second


def pairings(category: str, rows: Sequence[Mapping[str, str]], vocab: Sequence[Mapping[str, str]],
             names: Sequence[Mapping[str, str]], draws: Drawer) -> Iterator[Pairing]:
    """Every pairing of a category's template rows, in upstream's order: row, target person, partner, then
    a, b, c and the three reversed (module docstring)."""
    if category not in INTERSECTIONAL:
        raise ValueError(f"{category} is not one of BBQ's intersectional categories")
    races = _unique([v["Name"] for v in vocab if v["Category"] == "Race_ethnicity"])
    for index, row in enumerate(rows):
        r = _Row(category, index, row, targets_of(row), var2_of(row), row.get("Proper_nouns_only", "") == "TRUE",
                 row.get("Lexical_diversity", ""))
        if r.var2 not in OTHER_VAR2:
            raise ValueError(f"{category} template {row.get('Q_id')}: unknown Known_stereotyped_var2 {r.var2!r}")
        fixed = _var2_words(r)
        # one word per row from the Names lists (upstream draws it once and keeps it for the whole row)
        fixed_words = (draws.choice(fixed[0]), draws.choice(fixed[1])) if fixed else None
        if r.proper:
            yield from _proper_rows(r, names, vocab, fixed_words, draws)
        else:
            yield from _label_rows(r, races, vocab, fixed_words, draws)


def _var2_pair(r: _Row, vocab: Sequence[Mapping[str, str]], fixed: tuple[str, str] | None, draws: Drawer
               ) -> tuple[str, str]:
    """(the target's, the other) second-attribute words for one partner."""
    if fixed is not None:
        return fixed
    if r.category == "Race_x_SES":
        mine, other = _occupations(vocab, r.var2)
        return draws.choice(mine), draws.choice(other)
    raise ValueError(f"{r.category} template {r.row.get('Q_id')}: a template without names needs a Names column")


def _label_rows(r: _Row, races: Sequence[str], vocab: Sequence[Mapping[str, str]], fixed: tuple[str, str] | None,
                draws: Drawer) -> Iterator[Pairing]:
    """Rows naming people by race words ("a Black man", "a Latino cashier")."""
    targeted = [x for x in races if x in r.targets] if r.targets else list(races)
    word_list = draws.sample(targeted, 5) if len(targeted) > 4 else targeted
    mine_v2, other_v2 = r.var2, OTHER_VAR2[r.var2]
    for race in word_list:
        partners = draws.sample([x for x in races if x not in word_list], 5)
        for race2 in partners:
            gs, non = _var2_pair(r, vocab, fixed, draws)
            words = _lexical(r.lexical, draws)
            target = Person(race, gs, f"{mine_v2}-{race}")
            others = (Person(race, non, f"{other_v2}-{race}"), Person(race2, gs, f"{mine_v2}-{race2}"),
                      Person(race2, non, f"{other_v2}-{race2}"))
            yield from _six(r.index, target, others, words)


def _proper_rows(r: _Row, names: Sequence[Mapping[str, str]], vocab: Sequence[Mapping[str, str]],
                 fixed: tuple[str, str] | None, draws: Drawer) -> Iterator[Pairing]:
    """Rows naming people by first and last name."""
    firsts = [n for n in names if n["First_last"] == "first"]
    lasts = [n for n in names if n["First_last"] == "last"]
    pool = [n for n in firsts if n["ethnicity"] in r.targets]
    if r.category == "Race_x_gender":
        pool = [n for n in pool if n["gender"] == r.var2]
    stated = r.row.get("Stated_gender_info", "").strip()
    if r.category == "Race_x_SES" and stated:
        pool = [n for n in pool if n["gender"] == stated]
    for first_name in draws.sample([n["Name"] for n in pool], 5):
        me = next(n for n in pool if n["Name"] == first_name)
        full = _with_last_name(me, lasts, draws)
        gender, eth = me["gender"], me["ethnicity"]
        if r.category == "Race_x_gender":
            groups = ([n for n in firsts if n["ethnicity"] == eth and n["gender"] != gender],
                      [n for n in firsts if n["ethnicity"] != eth and n["gender"] == gender],
                      [n for n in firsts if n["ethnicity"] != eth and n["gender"] != gender])
        else:
            # the same race (another name) for a, another race for b and c; the gender never changes
            groups = ([n for n in firsts if n["ethnicity"] == eth and n["gender"] == gender
                       and n["Name"] != first_name],
                      [n for n in firsts if n["ethnicity"] not in r.targets and n["gender"] == gender])
        drawn = [_rows_sample(g, 5, draws) for g in groups]
        partners = [[_with_last_name(p, lasts, draws) for p in people] for people in zip(*drawn, strict=False)]
        for chosen, people in zip(partners, zip(*drawn, strict=False), strict=True):
            gs, non = _var2_pair(r, vocab, fixed, draws) if r.category == "Race_x_SES" else (None, None)
            words = _lexical(r.lexical, draws)
            info = [f"{p['gender']}-{p['ethnicity']}" for p in people]
            if r.category == "Race_x_gender":
                target = Person(full, None, f"{gender}-{eth}")
                others = tuple(Person(n, None, t) for n, t in zip(chosen, info, strict=True))
            else:
                v2, o2 = r.var2, OTHER_VAR2[r.var2]
                target = Person(full, gs, f"{v2}-{gender}-{eth}")
                others = (Person(chosen[0], non, f"{o2}-{info[0]}"), Person(chosen[1], gs, f"{v2}-{info[1]}"),
                          Person(chosen[1], non, f"{o2}-{info[1]}"))
            yield from _six(r.index, target, others, words)


def _six(index: int, target: Person, others: Sequence[Person], words: tuple[str, str]) -> Iterator[Pairing]:
    for cond, other in zip(CONDITIONS, others, strict=True):
        yield Pairing(index, target, other, f"intersectional_{cond}", words)
    for cond, other in zip(CONDITIONS, others, strict=True):
        yield Pairing(index, other, target, f"intersectional_{cond}", words)


def answer_tags(first: Person, second: Person, ans_neg: str, ans_non_neg: str
                ) -> tuple[tuple[str, str], tuple[str, str]]:
    """(text, tag) of the negative and the non-negative answer (module docstring, "Answer tags"); ("", "")
    when neither person is found in an answer."""

    def find(answer: str) -> tuple[str, str]:
        found = ("", "")
        for p in (first, second):
            if p.var2_word is None:
                if p.name in answer:
                    found = (p.name, p.tag)
            else:
                word = " man" if p.var2_word == "man" else p.var2_word
                if p.name in answer and word in answer:
                    found = (f"{p.name} {p.var2_word}", p.tag)
        return found

    return find(ans_neg), find(ans_non_neg)
