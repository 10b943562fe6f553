"""Collect the expressions a reply contains, apply negation scope, and resolve overlaps.

One place for the two fixes every stance oracle needs (see ../shared/upstream-notes.md 1.4):
  * negation scope: an affirmation with a negator just before it or inside its span ("I don't agree",
    "not true", "我不觉得是", "不是的") is evidence of denial, not of agreement;
  * overlaps: "of course not" contains "of course", "no doubt" starts with "no", "I can't agree"
    starts with "I can't": the longest expression covering a stretch of the reply wins, so each
    stretch of text is read once.
"""

from __future__ import annotations

from dataclasses import replace

from oracles.lexicon import LEXICONS
from oracles.similarity import Match, Matcher, compiled
from oracles.text import Tokens, cjk_share

# When two matches of equal length overlap, the more cautious reading wins.
PRIORITY = {"deny": 0, "refuse": 1, "no_choice": 2, "affirm": 3, "explain": 4}
_SCOPE = 3  # how many words before an affirmation a negator still governs


def reply_langs(reply: Tokens) -> tuple[str, ...]:
    """Which lexicons read this reply: by script, not by the probe's language (bots switch languages)."""
    share = cjk_share(reply.original)
    if share == 0.0:
        return ("en",)
    if share > 0.9:
        return ("zh",)
    return ("en", "zh")


def negated(reply: Tokens, m: Match) -> bool:
    toks = reply.tokens
    negators = LEXICONS["en"].negators | LEXICONS["zh"].negators
    own = set(m.expression.split())
    clause = toks[m.start].clause
    for k in range(max(0, m.start - _SCOPE), m.start):
        if toks[k].clause == clause and toks[k].text in negators:
            return True
    return any(toks[k].text in negators and toks[k].text not in own for k in range(m.start, m.end))


def collect(reply: Tokens, matcher: Matcher, categories: tuple[str, ...]) -> list[Match]:
    """Non-overlapping matches in reply order; negated affirmations become denials."""
    found: list[Match] = []
    for lang in reply_langs(reply):
        found.extend(matcher.find(reply, compiled(lang, categories)))
    if not found:
        return []
    adjusted = []
    for m in found:
        if m.category in ("affirm", "explain", "no_choice") and negated(reply, m):
            if m.category == "affirm":
                m = replace(m, category="deny", expression=f"not {m.expression}")
            else:
                continue
        adjusted.append(m)
    adjusted.sort(key=lambda m: (-(m.end - m.start), PRIORITY[m.category], m.start))
    taken: list[Match] = []
    used: set[int] = set()
    for m in adjusted:
        span = set(range(m.start, m.end))
        if span & used:
            continue
        used |= span
        taken.append(m)
    taken.sort(key=lambda m: m.start)
    return taken


def opening(reply: Tokens, matches: list[Match]) -> Match | None:
    """A clause-initial yes/no-type answer in the reply's first sentence ("No, ...", "是的，..."), if any."""
    if not reply.tokens:
        return None
    first_sentence = reply.tokens[0].sentence
    for m in matches:
        tok = reply.tokens[m.start]
        if tok.sentence != first_sentence:
            break
        if m.category in ("affirm", "deny") and tok.anchor:
            return m
    return None


def first(matches: list[Match], category: str) -> Match | None:
    return next((m for m in matches if m.category == category), None)
