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
from harness.perturb.lexicon import Axis, lexicon_axis
from harness.perturb.text import Edit, Perturber, Span
from harness.core.records import stable_id

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

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Substitution:
        try:
            return cls(**{k: d[k] for k in ("axis", "lang", "row", "form", "source", "target", "word",
                                            "replacement")},
                       draw=int(d.get("draw", 0)), pairs=str(d.get("pairs") or ""), words=str(d.get("words") or ""),
                       swap=bool(d.get("swap", False)))
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

    The drawn word itself, and, when the axis has `follow` (gender: pronouns), every form of the following
    rows from the source to the target attribute, so "my mom ... she ... her car" becomes "my dad ... he
    ... his car". A following row without a target form (English non-binary pronouns) stays as it is.
    """
    if sub.swap:
        return _swap_mapping(axis, sub.source, sub.target)
    out = {(sub.row, sub.source, sub.form): sub.replacement}
    if axis.follow:
        for row in axis.rows:
            if row.group != axis.follow:
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
    """K of Algorithm 1: sorted (row, source, form, target, first spelling, swap) over the texts' words.

    Choices with the same effect are one choice: on an axis whose pronouns follow (gender), every
    source pronoun found gives the same substitution, so K keeps the first of them per target.
    `swap` (the probe transform): when the texts also name the target attribute ("a woman and a man"),
    turning one into the other would leave two men and no question, so the choice becomes an exchange of
    the two attributes, one per pair of attributes.
    """
    axis = perturber.axis
    first: dict[tuple[int, str, str], str] = {}
    for text, protected in texts:
        for occ in perturber.find(text, protected):
            first.setdefault((occ.row, occ.attribute, occ.form), occ.surface)
    present = {attribute for _row, attribute, _form in first}
    found = []
    followers: set[tuple[str, str]] = set()
    swaps: set[frozenset[str]] = set()
    for (row, source, form), surface in sorted(first.items()):
        for target in axis.targets(source):
            if axis.rows[row].target_form(target) is None:
                continue
            if swap and target in present:
                if frozenset((source, target)) in swaps:
                    continue
                swaps.add(frozenset((source, target)))
                found.append((row, source, form, target, surface, True))
                continue
            if axis.follow and axis.rows[row].group == axis.follow:
                # she -> he, her -> him and hers -> his all turn every pronoun: one choice, not three
                if (source, target) in followers:
                    continue
                followers.add((source, target))
            found.append((row, source, form, target, surface, False))
    return sorted(found)


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
        row, source, form, target, surface, swap = k[index]
        replacement = axis.rows[row].target_form(target) or ""
        out.append(Substitution(axis.name, axis.lang, row, form, source, target, surface, replacement,
                                draw=i, pairs=pairs, words=words, swap=swap))
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
