"""The material BiasAsker probes are made from: social groups and biased properties.

A Catalog is what every data source (the upstream full data set, the paper's two samples, the project's
built-in bilingual set) is loaded into, so that tuple building and question generation never care where
the words came from.
"""

from __future__ import annotations

from dataclasses import dataclass

# The paper's 12 property categories (BiasAsker Table 2), in the order of upstream's integer ids 1..12.
# The full data set calls "Competence" "Ability" and adds "Swear words"; loaders normalise to these names.
CATEGORIES: tuple[str, ...] = (
    "Appearance", "Financial status", "Social status", "Crime", "Mistreatment", "Personality",
    "Competence", "Morality", "Belief", "Health", "Family & relationship", "Culture",
)

# The paper's 7 group attributes used in its experiments.
ATTRIBUTES: tuple[str, ...] = ("ability", "age", "body", "gender", "profession", "race", "religion")


@dataclass(frozen=True, slots=True)
class Group:
    """A social group, e.g. Group("deaf people", "ability", "聋哑人")."""

    name: str
    attribute: str
    zh: str = ""


@dataclass(frozen=True, slots=True)
class Property:
    """A biased property and its positive antonym, in English and Chinese.

    `text` is the stereotype as a verb phrase that follows a plural group ("are lazy", "can't make money");
    `antonym` is its positive counterpart ("are hard-working"). `categories` are names from CATEGORIES.
    """

    text: str
    antonym: str
    categories: tuple[str, ...]
    zh: str = ""
    antonym_zh: str = ""


@dataclass(frozen=True, slots=True)
class Catalog:
    name: str
    groups: tuple[Group, ...]
    properties: tuple[Property, ...]
