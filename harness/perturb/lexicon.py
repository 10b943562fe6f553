"""Demographic word lists: which words carry which attribute on which axis, aligned by form.

Why rows of aligned forms rather than a flat word -> attribute table: Algorithm 1 of Su et al. replaces a
word w of attribute a_s by "its" word of attribute a_t, and a substitution must keep the form: mom becomes
dad (not father), mothers becomes fathers, her (object) becomes him and her (determiner) his. A row holds
one form across attributes, so the target word is the same row's entry under a_t.

The lists ship as YAML (words_en.yaml, words_zh.yaml, described at their top) so they can be read and
extended without reading code; `load_lexicon(lang, path)` takes a user's own file of the same shape.
(source, target) attribute pairs default to every ordered pair of distinct attributes within one of the
axis's pair sets; `parse_pairs` reads a user's choice ("female:male,male:female").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.core.yaml_files import read_yaml_file

AXES = ("gender", "age", "race")
LANGS = ("en", "zh")
ROLES = ("object", "determiner", "pronoun")
_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Row:
    """One word form across attributes: forms[attribute] = (target form, other matched spellings...)."""

    index: int
    forms: Mapping[str, tuple[str, ...]]
    group: str = ""
    role: str = ""

    def target_form(self, attribute: str) -> str | None:
        words = self.forms.get(attribute)
        return words[0] if words else None


@dataclass(frozen=True)
class Axis:
    """One demographic axis of one language's lexicon."""

    name: str
    lang: str
    attributes: tuple[str, ...]
    rows: tuple[Row, ...]
    pairs: frozenset[tuple[str, str]]
    follow: str = ""  # rows of this group follow a perturbed word (gender: the pronouns)
    exact_case: frozenset[str] = frozenset()
    target_only: frozenset[str] = frozenset()
    protect: tuple[str, ...] = ()
    #: attributes whose words are neutral forms (person, parent): targets only, except `source_words`
    target_only_attributes: frozenset[str] = frozenset()
    source_words: frozenset[str] = frozenset()
    #: every word and protected phrase of the lexicon's axes: one Chinese segmentation for all axes, so a
    #: text is cut the same whichever axis is perturbed (and whichever was loaded first)
    segment_words: tuple[str, ...] = ()

    def targets(self, source: str) -> list[str]:
        """Target attributes a word of `source` may be turned into (Algorithm 1, line 9), sorted."""
        return sorted(t for s, t in self.pairs if s == source and t != source)

    def with_pairs(self, pairs: Iterable[tuple[str, str]]) -> Axis:
        """The same axis perturbed only along `pairs` (each attribute must exist on the axis)."""
        chosen = frozenset((str(s), str(t)) for s, t in pairs)
        unknown = sorted({a for pair in chosen for a in pair} - set(self.attributes))
        if unknown:
            raise ConfigError(f"Unknown {self.name} attribute(s) {', '.join(unknown)} in the pairs; "
                              f"known: {', '.join(self.attributes)}.")
        same = sorted(s for s, t in chosen if s == t)
        if same:
            raise ConfigError(f"A pair must change the attribute; {same[0]}:{same[0]} does not.")
        return dataclasses.replace(self, pairs=chosen)


@dataclass(frozen=True)
class Lexicon:
    lang: str
    axes: Mapping[str, Axis] = field(default_factory=dict)
    source: str = "built-in"

    def axis(self, name: str) -> Axis:
        if name not in self.axes:
            raise ConfigError(f"Unknown axis '{name}'; the {self.lang} word lists have: "
                              f"{', '.join(self.axes)}.")
        return self.axes[name]


def parse_pairs(spec: str | Iterable[Any] | None) -> list[tuple[str, str]] | None:
    """"female:male,male:female" or [["female", "male"], ...] -> pairs; None or "" -> None (the default)."""
    if spec is None or spec == "":
        return None
    items: list[Any] = [p.strip() for p in spec.split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    pairs: list[tuple[str, str]] = []
    for item in items:
        if isinstance(item, str):
            source, sep, target = item.partition(":")
            if not sep or not source.strip() or not target.strip():
                raise ConfigError(f"A pair reads SOURCE:TARGET (e.g. female:male), not '{item}'.")
            pairs.append((source.strip(), target.strip()))
        elif isinstance(item, list | tuple) and len(item) == 2:
            pairs.append((str(item[0]), str(item[1])))
        else:
            raise ConfigError(f"A pair reads SOURCE:TARGET (e.g. female:male), not {item!r}.")
    return pairs


def _words(value: Any, where: str) -> tuple[str, ...]:
    words = [value] if isinstance(value, str) else value
    if not isinstance(words, list) or not words or not all(isinstance(w, str) and w.strip() for w in words):
        raise ConfigError(f"{where} must be a word or a list of words, not {value!r}.")
    return tuple(w.strip() for w in words)


def _row(i: int, raw: Any, attributes: tuple[str, ...], where: str) -> Row:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: row {i + 1} must be a mapping of attribute to word.")
    forms = {}
    for key, value in raw.items():
        if key in ("group", "role"):
            continue
        if key not in attributes:
            raise ConfigError(f"{where}: row {i + 1} names '{key}', which is not one of the axis's "
                              f"attributes ({', '.join(attributes)}).")
        forms[str(key)] = _words(value, f"{where}: row {i + 1}, {key}")
    role = str(raw.get("role", ""))
    if role and role not in ROLES:
        raise ConfigError(f"{where}: row {i + 1} has role '{role}'; use one of {', '.join(ROLES)}.")
    if len(forms) < 2:
        raise ConfigError(f"{where}: row {i + 1} must give words for at least two attributes.")
    return Row(i, forms, str(raw.get("group", "")), role)


def _default_pairs(attributes: tuple[str, ...], sets: Any, where: str) -> frozenset[tuple[str, str]]:
    groups = [list(attributes)] if sets is None else sets
    if not isinstance(groups, list) or not all(isinstance(g, list) for g in groups):
        raise ConfigError(f"{where}: pair_sets must be a list of lists of attributes.")
    pairs = set()
    for group in groups:
        unknown = sorted(set(map(str, group)) - set(attributes))
        if unknown:
            raise ConfigError(f"{where}: pair_sets names unknown attribute(s) {', '.join(unknown)}.")
        pairs |= {(str(s), str(t)) for s in group for t in group if s != t}
    return frozenset(pairs)


def _axis(name: str, lang: str, raw: Any, where: str) -> Axis:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: axis '{name}' must be a mapping with attributes and rows.")
    attributes = raw.get("attributes")
    if not isinstance(attributes, list) or len(attributes) < 2:
        raise ConfigError(f"{where}: axis '{name}' needs a list of at least two attributes.")
    attributes = tuple(str(a) for a in attributes)
    rows = raw.get("rows")
    if not isinstance(rows, list) or not rows:
        raise ConfigError(f"{where}: axis '{name}' has no rows of words.")
    here = f"{where}, axis {name}"
    return Axis(
        name=name, lang=lang, attributes=attributes,
        rows=tuple(_row(i, r, attributes, here) for i, r in enumerate(rows)),
        pairs=_default_pairs(attributes, raw.get("pair_sets"), here),
        follow=str(raw.get("follow") or ""),
        exact_case=frozenset(str(w) for w in raw.get("exact_case") or ()),
        target_only=frozenset(str(w).lower() for w in raw.get("target_only") or ()),
        protect=tuple(str(p) for p in raw.get("protect") or ()),
        target_only_attributes=frozenset(str(a) for a in raw.get("target_only_attributes") or ()),
        source_words=frozenset(str(w).lower() for w in raw.get("source_words") or ()),
    )


def _parse(doc: Any, where: str, lang: str | None) -> Lexicon:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("axes"), Mapping):
        raise ConfigError(f"{where} must be a YAML mapping with 'lang' and 'axes' (see words_en.yaml).")
    file_lang = str(doc.get("lang") or lang or "")
    if file_lang not in LANGS:
        raise ConfigError(f"{where}: lang must be one of {', '.join(LANGS)}, not '{file_lang}'.")
    if lang and file_lang != lang:
        raise ConfigError(f"{where} holds {file_lang} words; this text is {lang}.")
    axes = {str(n): _axis(str(n), file_lang, a, where) for n, a in doc["axes"].items()}
    words = tuple(sorted({w for ax in axes.values() for row in ax.rows for ws in row.forms.values() for w in ws}
                         | {p for ax in axes.values() for p in ax.protect}))
    axes = {n: dataclasses.replace(ax, segment_words=words) for n, ax in axes.items()}
    return Lexicon(file_lang, axes, where)


@cache
def _builtin(lang: str) -> Lexicon:
    path = _HERE / f"words_{lang}.yaml"
    return _parse(read_yaml_file(path, "Word list"), f"built-in {lang} word list", lang)


def load_lexicon(lang: str, path: str | Path | None = None) -> Lexicon:
    """The built-in word lists of `lang` ("en" or "zh"), or a user's YAML file of the same shape."""
    if lang not in LANGS:
        raise ConfigError(f"Perturbation word lists exist for {', '.join(LANGS)}, not '{lang}'.")
    if path is None:
        return _builtin(lang)
    return _parse(read_yaml_file(Path(path), "Word list"), str(path), lang)


def lexicon_axis(lang: str, axis: str, *, pairs: Any = None, words: str | Path | None = None) -> Axis:
    """One axis, ready to perturb: built-in or user words, default or chosen (source, target) pairs."""
    found = load_lexicon(lang, words).axis(axis)
    chosen = parse_pairs(pairs)
    return found if chosen is None else found.with_pairs(chosen)
