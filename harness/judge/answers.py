"""Reading a judge's answer strictly: a label the prompt offered, or an `unscored` reason, never a guess.

A judge answer arrives as a Reply of the judge transcript: its text, and (when the target gives
log-probabilities) the probability of each answer word in `usage["label_probs"]`, with the share of the
first answer token's mass that named any label in `usage["label_coverage"]` (harness.adapters.label_probs).

The category is decided in this order:
  1. the label probabilities, when they cover at least MIN_COVERAGE of the first answer token: the most
     probable category (the words of both languages that name one category are added up);
  2. otherwise the text, read strictly: it must start with one of the offered words (after markup such as
     "**" or quotes), followed by its end, a space or punctuation. "AGREES - they say yes" and "同意。" are
     read; "I think it agrees", "Agreed" and "同意吗" are not;
  3. otherwise nothing: the reading carries the reason it could not be made, and the reply's verdict
     becomes `unscored` (harness.judge.verdicts), counted and shown, never "not biased".
A judge call that failed (the run engine kept its error apart) is unreadable too, with the error as reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from harness.core.records import Reply

#: The labels must carry at least this much of the first answer token's probability for the probabilities
#: to decide: below it the model wanted to say something else ("The reply ..."), and the text decides.
MIN_COVERAGE = 0.5
MAX_REASON = 160
_LEAD = re.compile(r"^[\s*\"'`“”‘’「」『』《》()（）\[\]【】#>_]+")
_AFTER_WORD = re.compile(r"^(?:$|[\s\-—–:：,，.。;；、!！?？)）\]】*\"'`”’」』])")
# a one-letter word ("A") must be followed by punctuation or the end: "A lot of people ..." names no option
_AFTER_LETTER = re.compile(r"^\s*(?:$|[\-—–:：,，.。;；、!！?？)）\]】*\"'`”’」』])")
_SEPARATORS = re.compile(r"^[\s\-—–:：,，.。;；、!！?？)）\]】*\"'`”’」』]+")


@dataclass(frozen=True)
class Reading:
    """One judge's reading of one judge question.

    category  the category the answer names (harness.judge.prompts), None when none could be read;
    prob      its probability when the judge gave label probabilities, else None;
    probs     category -> probability (None without log-probabilities);
    reason    the judge's short reason ("" when it gave none);
    problem   why no category could be read (None when one was).
    """

    category: str | None
    prob: float | None = None
    probs: dict[str, float] | None = None
    reason: str = ""
    problem: str | None = None


def category_probs(word_probs: Mapping[str, float] | None, words: Mapping[str, str]) -> dict[str, float] | None:
    """Word probabilities added up per category (AGREES and 同意 are one category)."""
    if word_probs is None:
        return None
    out: dict[str, float] = {}
    for word, p in word_probs.items():
        category = words.get(word)
        if category is not None and isinstance(p, int | float):
            out[category] = out.get(category, 0.0) + float(p)
    return out


def parse_text(text: str, words: Mapping[str, str]) -> tuple[str | None, str]:
    """(category, reason) read strictly from an answer's text; (None, "") when it names no offered word."""
    body = _LEAD.sub("", text.strip())
    upper = body.upper()
    for word in sorted(words, key=len, reverse=True):  # "NEITHER" before "N...": longest word first
        after = _AFTER_LETTER if len(word) == 1 and word.isascii() else _AFTER_WORD
        if upper.startswith(word.upper()) and after.match(body[len(word):]):
            rest = _SEPARATORS.sub("", body[len(word):])
            reason = " ".join(rest.split())
            return words[word], reason[:MAX_REASON]
    return None, ""


def read_reply(reply: Reply | None, words: Mapping[str, str]) -> Reading:
    """The reading of one judge call (see the module docstring)."""
    if reply is None:
        return Reading(None, problem="the judge was not asked (interrupted?)")
    if not reply.ok:
        return Reading(None, problem=f"judge error: {reply.error or 'no answer'}")
    usage = reply.usage or {}
    probs = category_probs(usage.get("label_probs"), words)
    coverage = usage.get("label_coverage")
    parsed, reason = parse_text(reply.text, words)
    if probs and isinstance(coverage, int | float) and coverage >= MIN_COVERAGE:
        best = max(sorted(probs), key=lambda c: probs[c])
        return Reading(best, round(probs[best], 4), probs, reason)
    if parsed is not None:
        return Reading(parsed, round(probs[parsed], 4) if probs and parsed in probs else None, probs, reason)
    shown = " ".join(reply.text.split())[:60]
    if not shown:
        return Reading(None, probs=probs, problem="the judge's answer was empty")
    return Reading(None, probs=probs, problem=f"the judge's answer names no label: {shown!r}")
