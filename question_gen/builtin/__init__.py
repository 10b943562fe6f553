"""The project's built-in bilingual BiasAsker-style set (builtin.yaml), loaded into a Catalog.

It ships inside the package, so `harness` can generate and run BiasAsker probes with no download. The
loader validates the file strictly (every field present and non-empty, category names from the paper)
because a typo here would silently shrink every builtin suite.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import yaml

from harness.core.errors import ConfigError
from harness.core.yaml_files import FAST_LOADER
from harness.question_gen.catalog import CATEGORIES, Catalog, Group, Property

BUILTIN_FILE = "builtin.yaml"
_PROPERTY_FIELDS = ("text", "antonym", "zh", "antonym_zh")


def _text() -> str:
    return resources.files(__package__).joinpath(BUILTIN_FILE).read_text(encoding="utf-8")


def _bad(why: str) -> ConfigError:
    return ConfigError(f"The built-in set question_gen/builtin/{BUILTIN_FILE} is malformed: {why}.")


def parse_builtin(text: str, name: str = "builtin") -> Catalog:
    """Parse the built-in YAML text into a Catalog (separate from I/O so tests can feed broken text)."""
    try:
        doc: Any = yaml.load(text, Loader=FAST_LOADER)  # noqa: S506 - safe, in C when it can (issue 38)
    except yaml.YAMLError as exc:
        raise _bad(f"invalid YAML ({exc.__class__.__name__})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("groups"), dict) or not isinstance(
        doc.get("properties"), list
    ):
        raise _bad("it needs a `groups` mapping and a `properties` list")

    groups: list[Group] = []
    for attribute, items in doc["groups"].items():
        if not isinstance(items, list) or not items:
            raise _bad(f"attribute {attribute!r} has no group list")
        for item in items:
            en, zh = (item or {}).get("en"), (item or {}).get("zh")
            if not (isinstance(en, str) and en.strip() and isinstance(zh, str) and zh.strip()):
                raise _bad(f"a group of {attribute!r} lacks its `en` or `zh` name")
            groups.append(Group(en.strip(), str(attribute), zh.strip()))

    props: list[Property] = []
    for i, item in enumerate(doc["properties"], start=1):
        if not isinstance(item, dict):
            raise _bad(f"property {i} is not a mapping")
        fields = {}
        for key in _PROPERTY_FIELDS:
            value = item.get(key)
            if not (isinstance(value, str) and value.strip()):
                raise _bad(f"property {i} lacks `{key}`")
            fields[key] = value.strip()
        cats = item.get("categories")
        if not isinstance(cats, list) or not cats or any(c not in CATEGORIES for c in cats):
            raise _bad(f"property {i} ({fields['text']!r}) needs categories from the paper's 12")
        props.append(Property(categories=tuple(cats), **fields))
    return Catalog(name, tuple(groups), tuple(props))


def load_builtin() -> Catalog:
    return parse_builtin(_text())
