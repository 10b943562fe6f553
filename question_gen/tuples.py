"""Biased tuples (BiasAsker paper, section 3.2.1), built lazily from a Catalog.

* A *relative* tuple is (group, property): one group and one property, the paper's Cartesian product
  of the group set and the property set. Each becomes the yes-no / why questions about one group.
* An *absolute* tuple is (group A, group B, property): an unordered pair of distinct groups of the
  SAME attribute (the paper pairs groups "within the same category"), crossed with every property.

Why generators everywhere: the full data set has 1,262 groups x 7,343 properties (about 9.3 million
relative tuples) and tens of millions of pairs; nothing here ever builds the product. Only the sampled
group and property lists (a few thousand items at most) are held in memory.

Sampling is deterministic on every machine and Python version: an item is chosen by ranking a
blake2b hash of (seed, scope, item key), never by `random.sample` (whose algorithm may change between
Python versions) or by the salted built-in `hash`.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TypeVar

from harness.core.errors import ConfigError
from harness.question_gen.catalog import Catalog, Group, Property

T = TypeVar("T")

SIDE_ANTONYM = "antonym"  # the positive antonym, what the paper's experiments actually asked
SIDE_STEREOTYPE = "stereotype"  # the original negative stereotype
SIDES = (SIDE_ANTONYM, SIDE_STEREOTYPE)


@dataclass(frozen=True, slots=True)
class Sampling:
    """Which part of a catalog a suite uses; None means "all".

    `groups_per_attribute` and `properties_per_category` reproduce the paper's experiment scales on the
    full data set; a property is counted in its first (primary) category for sampling purposes.
    """

    attributes: tuple[str, ...] | None = None
    categories: tuple[str, ...] | None = None
    groups_per_attribute: int | None = None
    properties_per_category: int | None = None
    seed: int = 0


@dataclass(frozen=True, slots=True)
class AskedProperty:
    """A property as it is asked: the side chosen (antonym or stereotype) in both languages.

    `source` keeps the catalog Property so probes can carry its categories and the stereotype it came from.
    """

    en: str
    zh: str
    categories: tuple[str, ...]
    source: Property


def seeded_rank(seed: int, scope: str, key: str) -> bytes:
    """A machine-independent pseudo-random sort key for `key` within `scope`."""
    return hashlib.blake2b(f"{seed}\x1f{scope}\x1f{key}".encode(), digest_size=8).digest()


def take_sample(items: Sequence[T], k: int | None, *, seed: int, scope: str, key=str) -> list[T]:
    """Choose k items uniformly (seeded), keeping their original order; all of them if k is None."""
    if k is None or k >= len(items):
        return list(items)
    if k < 0:
        raise ValueError("sample size must not be negative")
    chosen = set(sorted(range(len(items)), key=lambda i: seeded_rank(seed, scope, key(items[i])))[:k])
    return [item for i, item in enumerate(items) if i in chosen]


def check_filter(key: str, wanted: tuple[str, ...] | None, known: Iterable[str]) -> None:
    """A filter naming something the catalog does not have is a typo, never "select nothing".

    Why: `attributes: [gendr]` used to yield an empty suite and a run that asked nothing, far from the
    cause. The message names the unknown value, a close match if there is one, and every known name.
    """
    if wanted is None:
        return
    names = sorted(set(known))
    unknown = [w for w in wanted if w not in names]
    if not unknown:
        return
    hint = ""
    close = difflib.get_close_matches(unknown[0], names, n=1, cutoff=0.6) or [
        n for n in names if n.lower() == unknown[0].lower()]
    if close:
        hint = f" (did you mean '{close[0]}'?)"
    shown = ", ".join(f"'{u}'" for u in unknown)
    noun = {"attributes": "attribute", "categories": "category"}.get(key, key) if len(unknown) == 1 else key
    raise ConfigError(f"Unknown {noun} {shown} in the suite's '{key}' filter"
                      f"{hint}; this catalog has: {', '.join(names)}.")


def sample_groups(catalog: Catalog, sampling: Sampling, lang: str = "en") -> list[Group]:
    """The catalog's groups restricted to the wanted attributes, `groups_per_attribute` of each.

    A group whose name in `lang` repeats an earlier one of the same attribute is left out: the full data
    set lists one group twice, and its machine translations give several English groups one Chinese
    name (a pair of them would ask "你觉得X聪明还是X聪明？").
    """
    check_filter("attributes", sampling.attributes, (g.attribute for g in catalog.groups))
    by_attr: dict[str, list[Group]] = {}
    seen: set[tuple[str, str]] = set()
    for group in catalog.groups:
        key = ((group.zh or group.name) if lang == "zh" else group.name, group.attribute)
        if key in seen:
            continue
        seen.add(key)
        if sampling.attributes is None or group.attribute in sampling.attributes:
            by_attr.setdefault(group.attribute, []).append(group)
    chosen: list[Group] = []
    for attr, groups in by_attr.items():
        chosen.extend(take_sample(groups, sampling.groups_per_attribute, seed=sampling.seed,
                                  scope=f"group:{attr}", key=lambda g: g.name))
    return chosen


def asked_side(prop: Property, side: str) -> AskedProperty | None:
    """The property's text on the chosen side, or None if that side is missing (no antonym in the data)."""
    if side == SIDE_ANTONYM:
        en, zh = prop.antonym.strip(), prop.antonym_zh.strip()
    elif side == SIDE_STEREOTYPE:
        en, zh = prop.text.strip(), prop.zh.strip()
    else:
        raise ValueError(f"property_side must be one of {', '.join(SIDES)}, not {side!r}")
    if not en:
        return None
    return AskedProperty(en=en, zh=zh, categories=tuple(prop.categories), source=prop)


def sample_properties(catalog: Catalog, sampling: Sampling, side: str) -> list[AskedProperty]:
    """Properties that have the chosen side, optionally `properties_per_category` per primary category.

    Properties without an antonym are skipped when the antonym side is asked (the full data set has
    7,343 stereotypes but only 6,832 antonyms); a repeated stereotype sentence is kept once.
    """
    check_filter("categories", sampling.categories, (c for p in catalog.properties for c in p.categories))
    eligible: list[AskedProperty] = []
    seen: set[str] = set()
    for prop in catalog.properties:
        if prop.text in seen:  # one stereotype sentence appears twice in the full data set
            continue
        seen.add(prop.text)
        if sampling.categories is not None and not set(prop.categories) & set(sampling.categories):
            continue
        asked = asked_side(prop, side)
        if asked is not None:
            eligible.append(asked)
    if sampling.properties_per_category is None:
        return eligible
    by_cat: dict[str, list[AskedProperty]] = {}
    for asked in eligible:
        by_cat.setdefault(asked.categories[0] if asked.categories else "", []).append(asked)
    chosen = set()
    for cat, props in by_cat.items():
        chosen.update(id(p) for p in take_sample(props, sampling.properties_per_category,
                                                 seed=sampling.seed, scope=f"property:{cat}",
                                                 key=lambda p: p.source.text))
    return [p for p in eligible if id(p) in chosen]


def group_pairs(groups: Sequence[Group]) -> Iterator[tuple[Group, Group]]:
    """Unordered pairs of distinct groups sharing an attribute, in catalog order (A before B)."""
    by_attr: dict[str, list[Group]] = {}
    for group in groups:
        by_attr.setdefault(group.attribute, []).append(group)
    for members in by_attr.values():
        seen: set[str] = set()
        unique = [g for g in members if not (g.name in seen or seen.add(g.name))]
        yield from combinations(unique, 2)


def count_pairs(groups: Sequence[Group]) -> int:
    """Number of pairs group_pairs() yields, computed arithmetically."""
    by_attr: dict[str, set[str]] = {}
    for group in groups:
        by_attr.setdefault(group.attribute, set()).add(group.name)
    return sum(len(names) * (len(names) - 1) // 2 for names in by_attr.values())


def relative_tuples(groups: Iterable[Group], properties: Sequence[AskedProperty]
                    ) -> Iterator[tuple[Group, AskedProperty]]:
    """(group, property) for every group x property, group-major, lazily."""
    for group in groups:
        for prop in properties:
            yield group, prop


def absolute_tuples(groups: Sequence[Group], properties: Sequence[AskedProperty]
                    ) -> Iterator[tuple[Group, Group, AskedProperty]]:
    """(group A, group B, property) for every same-attribute pair x property, pair-major, lazily."""
    for a, b in group_pairs(groups):
        for prop in properties:
            yield a, b, prop
