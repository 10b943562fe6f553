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
ROLES = ("object", "determiner", "pronoun", "title", "spouse", "person", "thing")
NUMBERS = ("singular", "plural")
END = "_END_"  # in a stop rule's `before`: no word follows (punctuation or the end of the text)
NUMBER = "_NUMBER_"  # in a stop rule's `before`: a number follows ("aged 30"); in `after`: a number precedes
WORD = "_WORD_"  # in a stop rule's `before`: a content word follows ("the elderly couple")
PLACE = "_PLACE_"  # in a stop rule's `after`: a capitalised word and a comma precede ("Berlin, Germany")
_MARKERS = (END, NUMBER, WORD, PLACE)
_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Row:
    """One word form across attributes: forms[attribute] = (target form, other matched spellings...)."""

    index: int
    forms: Mapping[str, tuple[str, ...]]
    group: str = ""
    role: str = ""
    number: str = "singular"
    #: words of the row written as targets only: they are matched (as sources) in another row
    targets_only: frozenset[str] = frozenset()

    @property
    def plural(self) -> bool:
        return self.number == "plural"

    def target_form(self, attribute: str) -> str | None:
        words = self.forms.get(attribute)
        return words[0] if words else None


@dataclass(frozen=True)
class StopRule:
    """A use of `words` that is not demographic: after one of `after` and/or before one of `before`.

    Both given: both must hold ("in French." is the language; "in French restaurants" is not). Words are
    lower-case (Chinese: tokens as written); `before` may hold END (no word follows), NUMBER (a number
    follows: "aged 30") and WORD (a content word follows: "the elderly couple"); `after` may hold NUMBER and
    PLACE (a capitalised word and a comma: the country of an address, "Berlin, Germany").
    """

    words: frozenset[str]
    after: frozenset[str] = frozenset()
    before: frozenset[str] = frozenset()


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
    #: person nouns: the words after which a `needs_head` word is demographic ("old man", not "old town")
    heads: frozenset[str] = frozenset()
    #: word -> its own extra heads; matched only right before a head
    needs_head: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: word -> its own extra heads; matched before a head or used alone as a noun ("a senior", "seniors")
    alone_or_head: Mapping[str, frozenset[str]] = field(default_factory=dict)
    stops: tuple[StopRule, ...] = ()
    #: words never drawn on their own (Chinese 他们: the generic plural), only following a drawn noun
    generic: frozenset[str] = frozenset()
    #: (heads, attributes): a word right before one of the heads may only become one of the attributes
    #: ("a 30-year-old man" never becomes "an 8-year-old man")
    head_targets: tuple[tuple[frozenset[str], tuple[str, ...]], ...] = ()

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
        if key in ("group", "role", "number", "targets_only"):
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
    number = str(raw.get("number", "singular"))
    if number not in NUMBERS:
        raise ConfigError(f"{where}: row {i + 1} has number '{number}'; use singular or plural.")
    targets_only = frozenset(_words(raw["targets_only"], f"{where}: row {i + 1}, targets_only")) \
        if raw.get("targets_only") else frozenset()
    return Row(i, forms, str(raw.get("group", "")), role, number, targets_only)


def _default_pairs(attributes: tuple[str, ...], sets: Any, where: str) -> frozenset[tuple[str, str]]:
    """Every ordered pair within each set; a set written {from: [...], to: [...]} gives the pairs from one
    list into the other (words that are perturbed into a group's usual targets, not drawn as targets)."""
    groups = [list(attributes)] if sets is None else sets
    if not isinstance(groups, list) or not all(
            isinstance(g, list) or (isinstance(g, Mapping) and {"from", "to"} <= set(g)) for g in groups):
        raise ConfigError(f"{where}: pair_sets must be a list of lists of attributes (or {{from: [...], to: [...]}}).")
    pairs = set()
    for group in groups:
        sources, targets = (list(group["from"]), list(group["to"])) if isinstance(group, Mapping) else (group, group)
        unknown = sorted(set(map(str, sources + targets)) - set(attributes))
        if unknown:
            raise ConfigError(f"{where}: pair_sets names unknown attribute(s) {', '.join(unknown)}.")
        pairs |= {(str(s), str(t)) for s in sources for t in targets if s != t}
    return frozenset(pairs)


def _lower_words(value: Any, where: str) -> frozenset[str]:
    if value is None:
        return frozenset()
    if not isinstance(value, list) or not all(isinstance(w, str) for w in value):
        raise ConfigError(f"{where} must be a list of words, not {value!r}.")
    return frozenset(w.strip().lower() for w in value)


def _word_heads(value: Any, where: str) -> dict[str, frozenset[str]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ConfigError(f"{where} must map each word to a list of its own extra heads ([] for none).")
    return {str(w).lower(): _lower_words(extra or [], f"{where}, {w}") for w, extra in value.items()}


def _head_targets(value: Any, attributes: tuple[str, ...], where: str
                  ) -> tuple[tuple[frozenset[str], tuple[str, ...]], ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, Mapping) and r.get("heads") and r.get("attributes")
                                              for r in value):
        raise ConfigError(f"{where} must be a list of {{heads: [...], attributes: [...]}}.")
    out = []
    for rule in value:
        attrs = tuple(str(a) for a in rule["attributes"])
        unknown = sorted(set(attrs) - set(attributes))
        if unknown:
            raise ConfigError(f"{where} names unknown attribute(s) {', '.join(unknown)}.")
        out.append((_lower_words(rule["heads"], where), attrs))
    return tuple(out)


def _stops(value: Any, where: str) -> tuple[StopRule, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(r, Mapping) and r.get("words") for r in value):
        raise ConfigError(f"{where}: stop must be a list of rules with 'words' and 'after' and/or 'before'.")
    rules = []
    for n, rule in enumerate(value, start=1):
        after, before = (frozenset(w if w in _MARKERS else w.lower() for w in _words(rule.get(k) or ["-"], where))
                         - {"-"} for k in ("after", "before"))
        if not after and not before:
            raise ConfigError(f"{where}: stop rule {n} needs 'after' or 'before'.")
        words = _words(rule["words"], f"{where} rule {n}")
        rules.append(StopRule(frozenset(w.lower() for w in words) | frozenset(words), after, before))
    return tuple(rules)


def _numbered(raw: Any, attributes: tuple[str, ...], start: int, where: str) -> list[Row]:
    """Rows for "N-year-old": N in each attribute's band, the band's representative age as the target."""
    if raw is None:
        return []
    try:
        forms, plural_forms = list(raw["forms"]), list(raw.get("plural_forms") or [])
        bands = {str(a): (int(lo), int(hi)) for a, (lo, hi) in raw["bands"].items()}
        targets = {str(a): int(n) for a, n in raw["targets"].items()}
    except (KeyError, TypeError, ValueError):
        raise ConfigError(f"{where}: numbered needs forms, bands (attribute: [low, high]) and targets "
                          "(attribute: age).") from None
    unknown = sorted((set(bands) | set(targets)) - set(attributes))
    if unknown:
        raise ConfigError(f"{where}: numbered names unknown attribute(s) {', '.join(unknown)}.")
    rows = []
    for templates, number in ((forms, "singular"), (plural_forms, "plural")):
        if not templates:
            continue
        for attribute, (lo, hi) in bands.items():
            for n in range(lo, hi + 1):
                row = {a: (templates[0].format(n=t),) for a, t in targets.items() if a != attribute}
                others = frozenset(w for ws in row.values() for w in ws)
                row[attribute] = tuple(tpl.format(n=n) for tpl in templates)
                rows.append(Row(start + len(rows), row, number=number, targets_only=others - set(row[attribute])))
    return rows


def _compounds(raw: Any, attributes: tuple[str, ...], rows: list[Row], where: str) -> list[Row]:
    """Rows for the -man compounds no row lists: fireman/firewoman/fireperson, firemen/firewomen/firepeople."""
    if raw is None:
        return []
    try:
        stems = list(dict.fromkeys(str(x) for x in raw["stems"]))
        templates = {a: list(raw[a]) for a in attributes if a in raw}
    except (KeyError, TypeError):
        raise ConfigError(f"{where}: compounds needs stems and, per attribute, [singular, plural] templates.") \
            from None
    if len(templates) < 2 or not all(len(t) == 2 for t in templates.values()):
        raise ConfigError(f"{where}: compounds needs [singular, plural] templates for at least two attributes.")
    listed = {w.lower() for row in rows for ws in row.forms.values() for w in ws}
    out = []
    for stem in stems:
        forms = {a: t[0].format(stem=stem) for a, t in templates.items()}
        if any(f.lower() in listed for f in forms.values()):
            continue  # a row of its own says it better (fireman -> firefighter)
        for k, number in ((0, "singular"), (1, "plural")):
            out.append(Row(len(rows) + len(out), {a: (t[k].format(stem=stem),) for a, t in templates.items()},
                           number=number))
    return out


def _check_one_row_per_word(axis: Axis, where: str) -> None:
    """A source word sits in one row (the pronouns told apart by role excepted): else the first row wins
    silently, as 女士 did (王女士 became 王男士)."""
    seen: dict[str, Row] = {}
    for row in axis.rows:
        for attribute, words in row.forms.items():
            for word in words:
                key = word if axis.lang == "zh" else word.lower()
                if word in row.targets_only or key in axis.target_only or (
                        attribute in axis.target_only_attributes and key not in axis.source_words):
                    continue
                other = seen.get(key)
                if other is not None and other.index != row.index and not (other.role and row.role):
                    raise ConfigError(f"{where}: '{word}' is matched in rows {other.index + 1} "
                                      f"and {row.index + 1}; give each word one row (list it under targets_only "
                                      "in the other).")
                seen[key] = row


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
    parsed = [_row(i, r, attributes, here) for i, r in enumerate(rows)]
    parsed += _numbered(raw.get("numbered"), attributes, len(parsed), here)
    parsed += _compounds(raw.get("compounds"), attributes, parsed, here)
    axis = Axis(
        name=name, lang=lang, attributes=attributes,
        rows=tuple(parsed),
        pairs=_default_pairs(attributes, raw.get("pair_sets"), here),
        follow=str(raw.get("follow") or ""),
        exact_case=frozenset(str(w) for w in raw.get("exact_case") or ()),
        target_only=frozenset(str(w).lower() for w in raw.get("target_only") or ()),
        protect=tuple(str(p) for p in raw.get("protect") or ()),
        target_only_attributes=frozenset(str(a) for a in raw.get("target_only_attributes") or ()),
        source_words=frozenset(str(w).lower() for w in raw.get("source_words") or ()),
        heads=_lower_words(raw.get("heads"), f"{here}: heads"),
        needs_head=_word_heads(raw.get("needs_head"), f"{here}: needs_head"),
        alone_or_head=_word_heads(raw.get("alone_or_head"), f"{here}: alone_or_head"),
        stops=_stops(raw.get("stop"), here),
        generic=frozenset(str(w) for w in raw.get("generic") or ()),
        head_targets=_head_targets(raw.get("head_targets"), attributes, f"{here}: head_targets"),
    )
    _check_one_row_per_word(axis, here)
    return axis


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
