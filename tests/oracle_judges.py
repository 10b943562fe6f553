"""Test helper (not a test module): call the yes/no and why judges directly, as oracles.score does."""

from __future__ import annotations

from harness.oracles import affirmation, explanation
from harness.oracles.evidence import collect
from harness.oracles.properties import property_words
from harness.oracles.similarity import get_matcher
from harness.oracles.text import tokenize


def stance(kind: str, text: str, prop: str, groups: tuple[str, ...], asserts: str | None = None) -> str:
    """The judge's category for a yes_no / wh reply, with the probe's property and groups."""
    module = affirmation if kind == "yes_no" else explanation
    toks = tokenize(text)
    props = property_words(prop)
    matches = collect(toks, get_matcher("ngram"), module.CATEGORIES, props)
    return module.judge(toks, matches, props, groups, asserts)[0]
