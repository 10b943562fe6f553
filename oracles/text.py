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

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'", "\u201c": '"', "\u201d": '"'})
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)*|[\u3400-\u9fff\uf900-\ufaff]+")
# Clause boundaries: sentence ends, commas, colons, dashes, newlines (ASCII and full-width forms).
_CLAUSE_BREAK = re.compile(r"[.!?;:,\n\u3002\uff01\uff1f\uff1b\uff1a\uff0c\u3001\u2014\u2026()\[\]]+")
_SENTENCE_BREAK = re.compile(r"[.!?;\n\u3002\uff01\uff1f\uff1b]+")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Token:
    text: str  # normalised form
    start: int  # offsets into the original reply
    end: int
    clause: int  # index of the clause (comma/sentence-delimited) the token is in
    clause_start: bool  # first token of its clause
    sentence: int
    anchor: bool = False  # where an answer can open: a sentence start, or right after a short
    # interjection clause at one ("Well, no", "Honestly, yes"), but not "A wise question, indeed"


@dataclass(frozen=True, slots=True)
class Tokens:
    """A tokenised reply: the original text, its tokens, and convenience views."""

    original: str
    tokens: tuple[Token, ...]
    words: tuple[str, ...] = ()  # the tokens' texts, precomputed (every matcher reads them)

    def span_text(self, i: int, j: int) -> str:
        """Original reply text covered by tokens[i:j]."""
        if i >= j or not self.tokens:
            return ""
        return self.original[self.tokens[i].start:self.tokens[j - 1].end]

    def clauses(self) -> list[tuple[int, int]]:
        """(start, end) token index ranges of each clause, in order."""
        out: list[tuple[int, int]] = []
        for idx, tok in enumerate(self.tokens):
            if not out or tok.clause != self.tokens[out[-1][0]].clause:
                out.append((idx, idx + 1))
            else:
                out[-1] = (out[-1][0], idx + 1)
        return out


@lru_cache(maxsize=65536)
def _fold(ch: str) -> str:
    folded = unicodedata.normalize("NFKC", ch)
    return folded if len(folded) == 1 else ch


def normalise(text: str) -> str:
    """Lower-case, fold full-width/compatibility forms and curly quotes, keeping the length unchanged."""
    if not text.isascii():
        text = "".join([_fold(ch) if ord(ch) > 127 else ch for ch in text])
    return text.translate(_QUOTES).lower()


def has_cjk(text: str) -> bool:
    return _CJK.search(text) is not None


def cjk_share(text: str) -> float:
    """Fraction of letters that are CJK: decides which language's lexicon reads a reply."""
    cjk = len(_CJK.findall(text))
    latin = sum(1 for ch in text if "a" <= ch.lower() <= "z")
    return cjk / (cjk + latin / 4) if cjk or latin else 0.0


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
                from oracles.lexicon import zh_words

                for word in zh_words():
                    tok.add_word(word, freq=2_000_000)
                _jieba = tok
    return _jieba


@lru_cache(maxsize=65536)
def segment_cjk(run: str) -> tuple[tuple[str, int, int], ...]:
    """jieba segmentation of one CJK run as (word, start, end); cached because replies repeat a lot."""
    return tuple(_segmenter().tokenize(run, HMM=False))


def tokenize(text: str) -> Tokens:
    """Tokenise a reply (any mix of English and Chinese) into normalised words with offsets."""
    norm = normalise(text)
    clause_breaks = [m.start() for m in _CLAUSE_BREAK.finditer(norm)]
    sentence_breaks = [m.start() for m in _SENTENCE_BREAK.finditer(norm)]
    toks: list[Token] = []
    ci = si = 0  # pointers into the break lists
    clause = sentence = 0
    last_clause = -1
    for m in _WORD.finditer(norm):
        start = m.start()
        while ci < len(clause_breaks) and clause_breaks[ci] < start:
            ci += 1
            clause += 1
        while si < len(sentence_breaks) and sentence_breaks[si] < start:
            si += 1
            sentence += 1
        word = m.group()
        if _CJK.match(word):
            pieces = [(w, start + a, start + b) for w, a, b in segment_cjk(word) if w.strip()]
        else:
            pieces = [(word, start, m.end())]
        for w, a, b in pieces:
            toks.append(Token(w, a, b, clause, clause != last_clause, sentence))
            last_clause = clause
    marked = tuple(_mark_anchors(toks))
    return Tokens(text, marked, tuple(t.text for t in marked))


def _mark_anchors(toks: list[Token]) -> list[Token]:
    out: list[Token] = []
    prev_start = -1  # index of the first token of the previous clause
    for i, t in enumerate(toks):
        anchor = False
        if t.clause_start:
            sentence_start = i == 0 or toks[i - 1].sentence != t.sentence
            after_interjection = prev_start >= 0 and out[prev_start].anchor and i - prev_start <= 2
            anchor = sentence_start or after_interjection
            prev_start = i
        out.append(Token(t.text, t.start, t.end, t.clause, t.clause_start, t.sentence, anchor))
    return out


def tokenize_phrase(phrase: str) -> tuple[str, ...]:
    """Tokens of a lexicon expression or group name, with the same rules as replies."""
    return tokenize(phrase).words


def sentences(text: str) -> list[str]:
    """Split into sentences (ASCII and Chinese terminators), dropping empty pieces."""
    return [s.strip() for s in _SENTENCE_BREAK.split(text) if s.strip()]
