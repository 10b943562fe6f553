"""Reply text -> normalised tokens with character offsets and clause positions.

Every oracle works on the same token view of a reply, so word boundaries are decided once, here:
  * English (and any Latin-script run) is split into words; contractions stay one word ("don't"),
    so "yes" never matches inside "eyes" and "I agree" never matches inside "I don't agree".
  * Chinese runs are segmented with jieba (the oracle lexicons are added to jieba's dictionary so a
    listed expression is never split), so "同意" is not found inside "不同意".
  * A reply mixing both (Qwen often answers a Chinese question in English) is handled per run.
Normalisation maps characters one to one (lower case, NFKC per character when it stays one character,
curly quotes to straight), so a token's offsets point into the ORIGINAL reply: the evidence span shown
in reports is the model's own text.
"""

from __future__ import annotations

import bisect
import operator
import re
import threading
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u201c": '"', "\u201d": '"'})
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
# Clause boundaries: sentence ends, commas, colons, dashes, newlines (ASCII and full-width forms).
_CLAUSE_BREAK = re.compile(r"[.!?;:,\n\u3002\uff01\uff1f\uff1b\uff1a\uff0c\u3001\u2014\u2026()\[\]]+")
_SENTENCE_BREAK = re.compile(r"[.!?;\n\u3002\uff01\uff1f\uff1b]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# Characters whose lower case falls between "a" and "z": ASCII letters plus U+0130 and U+212A (the
# definition cjk_share always used, `"a" <= ch.lower() <= "z"`, as one regex; tests/oracles/test_oracle_text.py
# checks the set against every code point).
_LATIN = re.compile("[A-Za-z\u0130\u212a]")
_ASCII_LETTERS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # _LATIN's ASCII part, for bytes


class Token(NamedTuple):
    """One word of a reply. A named tuple, not a dataclass: a reply has dozens of tokens and building
    them was the largest single cost of scoring (benchmarks/oracle_speed.py)."""

    text: str  # normalised form
    start: int  # offsets into the original reply
    end: int
    clause: int  # index of the clause (comma/sentence-delimited) the token is in
    clause_start: bool  # first token of its clause
    sentence: int
    anchor: bool = False  # where an answer can open: a sentence start, or right after a short
    # interjection clause at one ("Well, no", "Honestly, yes"), but not "A wise question, indeed"


_new_token = tuple.__new__  # Token's own __new__ is a Python-level wrapper around this


@dataclass(frozen=True, slots=True)
class Tokens:
    """A tokenised reply: the original text, its tokens, and views every rule reads, computed once.

    `norm` is normalise(original) (same length, so token offsets index both); `clause_spans` are the
    (start, end) token ranges of each clause; `cjk_share` is cjk_share(original).
    """

    original: str
    tokens: tuple[Token, ...]
    words: tuple[str, ...] = ()  # the tokens' texts, precomputed (every matcher reads them)
    norm: str = ""
    clause_spans: tuple[tuple[int, int], ...] = ()
    cjk_share: float = 0.0

    def span_text(self, i: int, j: int) -> str:
        """Original reply text covered by tokens[i:j]."""
        if i >= j or not self.tokens:
            return ""
        return self.original[self.tokens[i].start:self.tokens[j - 1].end]

    def clauses(self) -> list[tuple[int, int]]:
        """(start, end) token index ranges of each clause, in order."""
        return list(self.clause_spans)

    def clause_bounds(self, i: int) -> tuple[int, int]:
        """(start, end) token range of the clause token i is in: the unit the rules scope negation and
        predicates to."""
        return self._bounds(i, 3)

    def sentence_bounds(self, i: int) -> tuple[int, int]:
        """(start, end) token range of the sentence token i is in."""
        return self._bounds(i, 5)

    def _bounds(self, i: int, field: int) -> tuple[int, int]:
        toks = self.tokens
        unit = toks[i][field]
        lo = i
        while lo > 0 and toks[lo - 1][field] == unit:
            lo -= 1
        hi = i + 1
        while hi < len(toks) and toks[hi][field] == unit:
            hi += 1
        return lo, hi


@lru_cache(maxsize=65536)
def _fold(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", ch)
    return folded if len(folded) == 1 else ch


class _FoldTable(dict):
    """str.translate table for non-ASCII text: each character's fold + quote mapping, computed on first
    sight (one C-level dict lookup per character afterwards instead of a Python call)."""

    def __missing__(self, code: int) -> str:
        ch = chr(code)
        out = (_fold(ch) if code > 127 else ch).translate(_QUOTES)
        if len(self) < 200_000:
            self[code] = out
        return out


_FOLD_TABLE = _FoldTable()
# The last (text, normalised text): the tokenizer and several rules normalise the same reply in turn.
# One tuple, read and replaced whole, so threads never mix two replies.
_last_norm: tuple[str | None, str] = (None, "")


def normalise(text: str) -> str:
    """Lower-case, fold full-width/compatibility forms and curly quotes, keeping the length unchanged."""
    global _last_norm
    last = _last_norm
    if last[0] is text:
        return last[1]
    # ASCII: "`" is the only ASCII character _QUOTES maps.
    out = text.replace("`", "'").lower() if text.isascii() else text.translate(_FOLD_TABLE).lower()
    _last_norm = (text, out)
    return out


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


_last_share: tuple[str | None, float] = (None, 0.0)  # the last (text, share), like _last_norm


def cjk_share(text: str) -> float:
    """Fraction of letters that are CJK: decides which language's lexicon reads a reply."""
    global _last_share
    last = _last_share
    if last[0] is text:
        return last[1]
    if text.isascii():
        cjk = 0
        raw = text.encode("ascii")
        latin = len(raw) - len(raw.translate(None, _ASCII_LETTERS))
    else:
        cjk = len(_CJK.findall(text))
        raw = text.encode("utf-8")  # multi-byte sequences hold no ASCII bytes: letters counted exactly
        latin = len(raw) - len(raw.translate(None, _ASCII_LETTERS)) + text.count("\u0130") + text.count("\u212a")
    share = cjk / (cjk + latin / 4) if cjk or latin else 0.0
    _last_share = (text, share)
    return share


_jieba_lock = threading.Lock()
_jieba = None


def _segmenter():
    """jieba, loaded once, with every lexicon expression registered as a word (see module docstring)."""
    global _jieba
    if _jieba is None:
        with _jieba_lock:
            if _jieba is None:
                import logging

                import jieba

                jieba.setLogLevel(logging.WARNING)
                tok = jieba.Tokenizer()
                from harness.oracles.lexicon import zh_words

                for word in zh_words():
                    tok.add_word(word, freq=2_000_000)
                _jieba = tok
    return _jieba


@lru_cache(maxsize=65536)
def segment_cjk(run: str) -> tuple[tuple[str, int, int], ...]:
    """jieba segmentation of one CJK run as (word, start, end); cached because replies repeat a lot."""
    return tuple(_segmenter().tokenize(run, HMM=False))


def tokenize(text: str) -> Tokens:
    """Tokenise a reply (any mix of English and Chinese) into normalised words with offsets.

    One pass: each token is built once, with its clause, sentence and anchor (see Token.anchor).
    """
    norm = normalise(text)
    clause_breaks = [m.start() for m in _CLAUSE_BREAK.finditer(norm)]
    sentence_breaks = [m.start() for m in _SENTENCE_BREAK.finditer(norm)]
    toks: list[Token] = []
    spans: list[tuple[int, int]] = []
    last_clause = last_sentence = -1
    prev_start = -1  # index of the first token of the previous clause
    prev_anchor = False  # ... and whether it was an anchor
    for m in _WORD.finditer(norm):
        start = m.start()
        clause = bisect_left(clause_breaks, start)  # breaks before the word
        sentence = bisect_left(sentence_breaks, start)
        word = m.group()
        if word[0] > "\x7f":  # a CJK run (the only non-ASCII alternative of _WORD)
            pieces = [(w, start + a, start + b) for w, a, b in segment_cjk(word) if w.strip()]
        else:
            pieces = ((word, start, m.end()),)
        for w, a, b in pieces:
            i = len(toks)
            if clause != last_clause:
                anchor = (sentence != last_sentence  # i == 0 included: last_sentence starts at -1
                          or (prev_anchor and i - prev_start <= 2))
                prev_start, prev_anchor = i, anchor
                spans.append((i, i + 1))
                toks.append(_new_token(Token, (w, a, b, clause, True, sentence, anchor)))
                last_clause = clause
            else:
                spans[-1] = (spans[-1][0], i + 1)
                toks.append(_new_token(Token, (w, a, b, clause, False, sentence, False)))
            last_sentence = sentence
    return Tokens(text, tuple(toks), tuple([t[0] for t in toks]), norm, tuple(spans), cjk_share(text))


def tokenize_phrase(phrase: str) -> tuple[str, ...]:
    """Tokens of a lexicon expression or group name, with the same rules as replies."""
    return tokenize(phrase).words


_TOKEN_END = operator.itemgetter(2)  # Token.end


def token_at(reply: Tokens, offset: int) -> int:
    """Index of the token covering (or first after) a character offset."""
    return min(bisect.bisect_right(reply.tokens, offset, key=_TOKEN_END), len(reply.tokens) - 1)


def word_alternation(words: Iterable[str]) -> str:
    """A regex alternation of words, whole-word for Latin ones ("than" must not match inside "thank")."""
    return "|".join(rf"\b{re.escape(w)}\b" if w.isascii() else re.escape(w) for w in words)
