"""Algorithm 1 of Su et al. (2023): pick one (word, target attribute) per dialogue, apply it everywhere.

For a dialogue (or any group of texts that must stay consistent, such as a CBBQ context, question and
options), K is the set of (w, t) with w a perturbable word found in the texts and t a target attribute of
a pair (a_w, t). `draw` takes `draws` distinct elements of K uniformly at random, seeded by the caller's
seed and the dialogue's key, so the same dialogue gets the same draws on every machine, whatever else is
in the file. Distinct rather than with replacement: a dialogue whose K holds two choices is measured on
both instead of twice on one (the paper averages three draws; so does DEFAULT_DRAWS).

A Substitution is plain data (axis, language, source and target attribute, the lexicon row and spelling)
that travels in probe meta and perturbed files, so anything holding it can apply the same substitution to
text it meets later: a pipeline's API call, a database row.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from functools import cache
from typing import Any

from harness.core.errors import ConfigError
from harness.core.records import stable_id
from harness.perturb.lexicon import Axis, lexicon_axis
from harness.perturb.parse import names_a_person, pronoun_misread, zh_names_a_person
from harness.perturb.text import Edit, Perturber, Span

DEFAULT_DRAWS = 3


@dataclass(frozen=True)
class Substitution:
    """One draw of Algorithm 1: replace `form` (a word of attribute `source`) by `replacement` (`target`).

    `word` is the spelling as first found in the dialogue (for people to read); `row`/`form` identify the
    lexicon entry. On an axis with `follow` (gender), the pronoun rows follow along (see `mapping`).
    `words` is the user word-list file the substitution was drawn from ("" for the built-in lists).
    """

    axis: str
    lang: str
    row: int
    form: str
    source: str
    target: str
    word: str
    replacement: str
    draw: int = 0
    pairs: str = ""
    words: str = ""
    swap: bool = False  # both attributes are named: exchange them (probe transform only, see `candidates`)
    #: further (row, spelling) of the source attribute changed with the drawn word: the other nouns a
    #: pronoun may refer to (every woman of "my mom and my sister said she..." becomes a man, or none)
    also: tuple[tuple[int, str], ...] = ()
    plural: bool = False  # the drawn word is plural: plural pronouns follow it (Chinese 她们), singular ones not

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Substitution:
        try:
            return cls(**{k: d[k] for k in ("axis", "lang", "row", "form", "source", "target", "word",
                                            "replacement")},
                       draw=int(d.get("draw", 0)), pairs=str(d.get("pairs") or ""), words=str(d.get("words") or ""),
                       swap=bool(d.get("swap", False)),
                       also=tuple((int(r), str(f)) for r, f in d.get("also") or ()),
                       plural=bool(d.get("plural", False)))
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"A perturbation record is incomplete ({exc}); re-create it with "
                              "`harness perturb`.") from None

    @property
    def label(self) -> str:
        if self.swap:
            return f"{self.source} <-> {self.target} (swapped)"
        return f"{self.word} -> {self.replacement} ({self.source} -> {self.target})"


@cache
def perturber_for(lang: str, axis: str, pairs: str = "", words: str = "") -> Perturber:
    """A Perturber per (language, axis, pairs, word list), built once per process."""
    return Perturber(lexicon_axis(lang, axis, pairs=pairs or None, words=words or None))


def perturber_of(sub: Substitution) -> Perturber:
    return perturber_for(sub.lang, sub.axis, sub.pairs, sub.words)


def mapping(axis: Axis, sub: Substitution) -> dict[tuple[int, str, str], str]:
    """(row, attribute, spelling) -> replacement for everything the substitution changes.

    The drawn word itself (and the nouns drawn with it, `also`), and, when the axis has `follow` (gender:
    pronouns), every form of the following rows of the same number from the source to the target
    attribute, so "my mom ... she ... her car" becomes "my dad ... he ... his car" while "the women ...
    they" has no pronoun to follow. `candidates` never offers a draw whose pronouns have no target form
    (English non-binary).
    """
    if sub.swap:
        return _swap_mapping(axis, sub.source, sub.target)
    out = {(sub.row, sub.source, sub.form): sub.replacement}
    for row_index, form in sub.also:
        target = axis.rows[row_index].target_form(sub.target)
        if target is not None:
            out.setdefault((row_index, sub.source, form), target)
    if axis.follow:
        for row in axis.rows:
            if row.group != axis.follow or row.plural != sub.plural:
                continue
            target = row.target_form(sub.target)
            if target is None:
                continue
            for word in row.forms.get(sub.source, ()):
                out.setdefault((row.index, sub.source, word.lower() if axis.lang == "en" else word), target)
    return out


def _swap_mapping(axis: Axis, a: str, b: str) -> dict[tuple[int, str, str], str]:
    """Every word of attribute a becomes its row's b word and every b word its a word, in one pass."""
    out = {}
    for row in axis.rows:
        for source, target in ((a, b), (b, a)):
            replacement = row.target_form(target)
            if replacement is None:
                continue
            for word in row.forms.get(source, ()):
                out.setdefault((row.index, source, word.lower() if axis.lang == "en" else word), replacement)
    return out


def candidates(perturber: Perturber, texts: Iterable[tuple[str, Iterable[Span]]], *,
               swap: bool = False) -> list[tuple[Any, ...]]:
    """K of Algorithm 1: sorted (row, source, form, target, first spelling, swap, also, plural) choices.

    A choice changes a person and everything that refers to them together, or is not offered:
      * a noun takes along the pronouns of its attribute and number (mom -> dad turns she/her into he/his);
        a target without pronouns (English non-binary) is not offered while such pronouns are present;
      * two or more nouns of one attribute with pronouns of it ("my mom and my sister ... she"): which one
        the pronoun means is unknown, so the only choice changes them all together;
      * a pronoun with no noun of its attribute and number is drawn on its own (she -> he), unless the texts
        name a person it may refer to ("Adele? I love her voice"), the target's pronouns are already there
        (two people would become one), or it is generic (Chinese 他们);
      * a target whose word of the same row is already in the texts is not offered: "my mom and my dad"
        never becomes "my dad and my dad".
    Choices with the same effect are one choice (she, her and hers give one pronoun choice per target).
    `swap` (the probe transform): when the texts also name the target attribute ("a woman and a man"),
    the choice becomes an exchange of the two attributes, one per pair of attributes.
    """
    axis = perturber.axis
    texts = [(text, list(protected)) for text, protected in texts]
    first: dict[tuple[int, str, str], str] = {}
    plural: dict[tuple[int, str, str], bool] = {}
    only: dict[tuple[int, str, str], set[str]] = {}  # targets the words' contexts allow (all when absent)
    for text, protected in texts:
        for occ in perturber.find(text, protected):
            key = (occ.row, occ.attribute, occ.form)
            first.setdefault(key, occ.surface)
            plural[key] = plural.get(key, False) or occ.plural
            if occ.only:
                only[key] = only[key] & set(occ.only) if key in only else set(occ.only)
    present = {attribute for _row, attribute, _form in first}
    rows_present = {(row, attribute) for row, attribute, _form in first}

    def follows(row: int) -> bool:
        return bool(axis.follow) and axis.rows[row].group == axis.follow

    found: list[tuple[Any, ...]] = []
    swaps: set[frozenset[str]] = set()
    # (source, plural) -> nouns [(row, form)] and pronouns [(row, form)]
    nouns: dict[tuple[str, bool], list[tuple[int, str]]] = {}
    pronouns: dict[tuple[str, bool], list[tuple[int, str]]] = {}
    for (row, source, form), _surface in sorted(first.items()):
        (pronouns if follows(row) else nouns).setdefault((source, plural[(row, source, form)]), []).append((row, form))

    def collapses(row: int, target: str) -> bool:
        return (row, target) in rows_present

    def pronouns_reach(rows: list[tuple[int, str]], target: str) -> bool:
        return all(axis.rows[r].target_form(target) is not None for r, _f in rows)

    for (row, source, form), surface in sorted(first.items()):
        group = (source, plural[(row, source, form)])
        for target in axis.targets(source):
            if axis.rows[row].target_form(target) is None or target not in only.get((row, source, form), {target}):
                continue
            if swap and target in present:
                if frozenset((source, target)) not in swaps:
                    swaps.add(frozenset((source, target)))
                    found.append((row, source, form, target, surface, True, (), group[1]))
                continue
            attached = pronouns.get(group, [])
            if follows(row):
                if nouns.get(group) or not _pronoun_alone(perturber, texts, form, group, target, pronouns):
                    continue
                lead = next((rf for rf in attached if rf[1] not in axis.generic), None)
                if (row, form) != lead:
                    continue  # one pronoun choice per target, keyed on the first (non-generic) pronoun
                found.append((row, source, form, target, surface, False, (), group[1]))
                continue
            if not pronouns_reach(attached, target) or collapses(row, target):
                continue
            same = nouns[group]
            if attached and len({r for r, _f in same}) > 1:
                if (row, form) != same[0] or any(axis.rows[r].target_form(target) is None or collapses(r, target)
                                                 for r, _f in same):
                    continue
                found.append((row, source, form, target, surface, False, tuple(same[1:]), group[1]))
                continue
            found.append((row, source, form, target, surface, False, (), group[1]))
    return sorted(found)


def _pronoun_alone(perturber: Perturber, texts: list[tuple[str, list[Span]]], form: str,
                   group: tuple[str, bool], target: str,
                   pronouns: dict[tuple[str, bool], list[tuple[int, str]]]) -> bool:
    """May the pronouns of `group` be drawn without a noun? Not when the target's pronouns of the same
    number are there too (two people would become one), none of them has a target form, or (English,
    singular) the texts name a person the pronoun may refer to or hold a he/she that is no pronoun (the
    typo "fort she house")."""
    axis = perturber.axis
    if pronouns.get((target, group[1])):
        return False
    found = [r for r, _f in pronouns[group]]
    if not all(axis.rows[r].target_form(target) is not None for r in found):
        return False
    if all(f in axis.generic for _r, f in pronouns[group]):
        return False
    if axis.lang == "en" and not group[1]:
        return not any(names_a_person(text) or pronoun_misread(text) for text, _p in texts if text)
    if axis.lang == "zh":
        return not any(zh_names_a_person(text) for text, _p in texts if text)
    return True


def draw(perturber: Perturber, k: list[tuple[Any, ...]], *, key: str, seed: int = 0,
         draws: int = DEFAULT_DRAWS, pairs: str = "", words: str = "") -> list[Substitution]:
    """`draws` distinct elements of K, uniformly at random; the same (seed, key, K) gives the same draws."""
    if draws < 1:
        raise ConfigError(f"The number of draws must be at least 1, not {draws}.")
    if not k:
        return []
    axis = perturber.axis
    rng = random.Random(int(stable_id("perturb", axis.lang, axis.name, seed, key), 16))
    chosen = rng.sample(range(len(k)), min(draws, len(k)))
    out = []
    for i, index in enumerate(chosen):
        row, source, form, target, surface, swap, also, plural = k[index]
        replacement = axis.rows[row].target_form(target) or ""
        out.append(Substitution(axis.name, axis.lang, row, form, source, target, surface, replacement,
                                draw=i, pairs=pairs, words=words, swap=swap, also=also, plural=plural))
    return out


def apply(sub: Substitution, text: str, protected: Iterable[Span] = ()) -> tuple[str, list[Edit]]:
    """`text` with the substitution applied (and the edits made), in one pass."""
    perturber = perturber_of(sub)
    return perturber.apply(text, mapping(perturber.axis, sub), protected)


def apply_text(sub: Substitution, text: str) -> str:
    return apply(sub, text)[0] if isinstance(text, str) and text else text


def apply_value(sub: Substitution, value: Any) -> Any:
    """The substitution applied to every string inside a JSON-like value (lists and dicts kept)."""
    if isinstance(value, str):
        return apply_text(sub, value)
    if isinstance(value, list):
        return [apply_value(sub, v) for v in value]
    if isinstance(value, dict):
        return {k: apply_value(sub, v) for k, v in value.items()}
    return value
