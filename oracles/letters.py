"""Finding the option letter a multiple-choice answer states, shared by the BBQ reader (English) and the CBBQ
parser (Chinese and English): one algorithm, each reader's own wording.

Why one module: the two readers had the same letter search written twice (a leading letter, a stated letter,
negated letters, two letters joined, a letter contradicted by another option's text, an echoed option list,
a mention inside a longer option's mention). Each reader keeps its own patterns (`Grammar`: the answer
prefixes and copulas of its language) and its own order of the other rules; the decisions are the same as
before (tests/oracles/test_bbq_reader.py, tests/oracles/test_cbbq_reader.py pin them).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

LETTERS = "ABC"


@dataclass(frozen=True)
class Grammar:
    """A reader's letter patterns: each captures the letter as group 1 (`pair`: groups 1 and 2).

    lead     a letter that opens the answer ("B", "(B)", "答案：B")
    stated   a letter stated anywhere ("the answer is C", "选C"); only an upper-case one counts
    negated  a letter after a negation ("not A", "不是A"): it chooses nothing
    pair     two letters joined ("A or B", "A或B"): both are named
    """

    lead: re.Pattern[str]
    stated: re.Pattern[str]
    negated: re.Pattern[str]
    pair: re.Pattern[str]


def find_letters(text: str, grammar: Grammar) -> tuple[set[int], str]:
    """The option indices the text names by letter, and the span that named the first. A lower-case letter
    counts only as the whole reply ("b", "(c)"; in prose it is a word); "A person ..." is the article."""
    found: set[int] = set()
    evidence = ""
    lead = grammar.lead.match(text)
    whole = re.fullmatch(r"\W*[a-c]\W*", text) is not None
    if lead and (lead.group(1).isupper() or whole) and not re.match(r"\s+[a-z]", text[lead.end(1):lead.end(1) + 3]):
        found.add(LETTERS.index(lead.group(1).upper()))
        evidence = lead.group(0).strip()
    negated = {m.start(1) for m in grammar.negated.finditer(text)}
    for m in grammar.stated.finditer(text):
        if m.group(1).isupper() and m.start(1) not in negated:
            found.add(LETTERS.index(m.group(1)))
            evidence = evidence or m.group(0).strip()
    for m in grammar.pair.finditer(text):
        for g in (1, 2):
            if m.start(g) not in negated:
                found.add(LETTERS.index(m.group(g)))
        evidence = evidence or m.group(0).strip()
    return found, evidence


def conflicting(text: str, folded: str, evidence: str, index: int, options: Sequence[str],
                fold: Callable[[str], str], tail_strip: str, window: int) -> str | None:
    """Another option's text right after the stated letter ("A. The grandson" when A is the grandfather),
    folded as `fold` folds it; None when the letter stands. `folded` is `text` as the options are compared
    with it (lower-cased for English), `tail_strip` the punctuation skipped after the letter."""
    pos = text.find(evidence) + len(evidence) if evidence else 0
    tail = re.sub(tail_strip, "", folded[pos:pos + window])
    own = fold(options[index])
    for j, option in enumerate(options):
        other = fold(option)
        if j != index and other and tail.startswith(other) and not tail.startswith(own):
            return other
    return None


def strip_echo(text: str, options: Sequence[str], pattern: Callable[[int, str], str | None]) -> str:
    """The text without a repeated option list ("A. X B. Y C. Z"): listing two or more options chooses none
    of them. `pattern(i, option)` is the regex of option i as the reader's language lists it (None: skip)."""
    spans = []
    for i, option in enumerate(options):
        regex = pattern(i, option)
        m = re.search(regex, text) if regex else None
        if m:
            spans.append(m)
    if len(spans) < 2:
        return text
    for m in sorted(spans, key=lambda m: m.start(), reverse=True):
        text = text[:m.start()] + " " + text[m.end():]
    return text.strip()


def outermost(spans: Sequence[tuple[int, int, int]], text: str) -> dict[int, str]:
    """Option index -> its mentioned text, for the (start, end, index) mentions not inside a longer mention
    of another option ("传染病患者" inside "非传染病患者" counts for the longer option only)."""
    kept: dict[int, str] = {}
    for s, e, i in spans:
        if not any(s2 <= s and e <= e2 and (e2 - s2) > (e - s) for s2, e2, j in spans if j != i):
            kept[i] = text[s:e]
    return kept
