"""CTDA and CADA: counterfactual copies of the training set, built with simultaneous, word-aware swaps.

Upstream built its swapped sets with a chain of `str.replace` calls, one pair after another and in one
direction. That has five failure modes, each shown in tests/whitebox/test_debias_augment.py:
  * round trips: (胖→瘦) then (瘦→胖) turns every 胖 and 瘦 into 胖;
  * chains: (服务员→老板) then (老→年轻) turns 服务员 into 年轻板;
  * one direction: a sentence that names both groups ends up naming one twice (男…女 → 男…男);
  * substrings: 妈→爸 turns 大妈 (old woman) into 大爸, 老→年轻 turns 老师 into 年轻师;
  * case: the pair (txl, 异性恋) misses TXL.
Here a sentence is read once, left to right, and every term is replaced by its partner in the same
pass (T1→T2 and T2→T1 at once), so a replacement is never looked at again. Terms are matched
case-insensitively on word boundaries: the sentence is segmented with jieba (terms added to a private
dictionary), a segment equal to a term is swapped, and a term inside a longer segment is swapped only
when that makes sense as a word: the swapped segment is itself a dictionary word (女人→男人, 女生→男生),
or the segment is a rare dictionary entry that is the term plus a particle (很胖→很瘦). A common word
that merely contains a term (老师, 高兴, 其他, 活泼, 美国) is left alone. Latin-script terms (gay, txl)
only ever match a whole segment, so `gays` or `txlx` are not touched.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache

from harness.whitebox.debias.spec import BiasSpec

#: A longer dictionary word whose jieba frequency is at least this is a word in its own right (老师 6415,
#: 高兴 5387, 活泼 740, 高挑 35, 眼高手低 29) and is not broken up; rarer entries are phrases (很胖 3,
#: 很傻 3). Chosen by reading every in-word decision on the four CHBias training sets (docs/debias.md).
PROTECT_FREQ = 10


@cache
def _base_tokenizer():  # jieba loads its 5 MB dictionary once per process (~1 s)
    import jieba

    jieba.setLogLevel(logging.WARNING)
    tok = jieba.Tokenizer()
    tok.initialize()
    return tok


def _is_latin(word: str) -> bool:
    return word.isascii()


@dataclass
class SwapResult:
    text: str
    swaps: int


class Swapper:
    """Replace every term of a list of pairs by its partner, both directions, in one pass."""

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        import jieba

        mapping: dict[str, str] = {}
        for a, b in pairs:  # forward first: a term that is a T1 somewhere keeps its T1 partner
            mapping.setdefault(a.lower(), b)
        for a, b in pairs:  # then back: a T2 shared by several T1 goes back to the first of them
            mapping.setdefault(b.lower(), a)
        self.mapping = mapping
        self._inner_terms = sorted((k for k in mapping if not _is_latin(k)), key=len, reverse=True)
        base = _base_tokenizer()
        tok = jieba.Tokenizer()  # private: adding terms must not change anybody else's jieba
        tok.FREQ, tok.total, tok.initialized = dict(base.FREQ), base.total, True
        for term in mapping:
            if not _is_latin(term) and len(term) > 1 and not tok.FREQ.get(term):
                tok.add_word(term)
        self._tok = tok

    def _inner(self, segment: str) -> tuple[str, int]:
        """Swap the longest terms inside a segment, left to right, without overlaps."""
        out: list[str] = []
        low = segment.lower()
        i = swaps = 0
        while i < len(segment):
            for term in self._inner_terms:
                if low.startswith(term, i):
                    out.append(self.mapping[term])
                    i += len(term)
                    swaps += 1
                    break
            else:
                out.append(segment[i])
                i += 1
        return "".join(out), swaps

    def swap(self, text: str) -> SwapResult:
        out: list[str] = []
        swaps = 0
        freq = self._tok.FREQ
        for seg in self._tok.cut(text, HMM=False):
            key = seg.lower()
            if key in self.mapping:
                out.append(self.mapping[key])
                swaps += 1
                continue
            if not _is_latin(seg):
                new, n = self._inner(seg)
                if n and (freq.get(new, 0) > 0 or freq.get(seg, 0) < PROTECT_FREQ):
                    out.append(new)
                    swaps += n
                    continue
            out.append(seg)
        return SwapResult("".join(out), swaps)


@dataclass
class Augmented:
    """An augmented training set and what the swap did (kept in the report)."""

    sentences: list[str]
    originals: int
    changed: int  # swapped copies that differ from their original
    unchanged: list[str]  # originals in which no term was found: their copy would be a duplicate

    def summary(self) -> dict[str, int]:
        return {"original": self.originals, "swapped_copies": self.changed,
                "no_term_found": len(self.unchanged), "total": len(self.sentences)}


def counterfactual_set(sentences: Iterable[str], pairs: Sequence[tuple[str, str]], *, seed: int = 42) -> Augmented:
    """The originals plus a swapped copy of each sentence that changed, shuffled with a fixed seed.

    Upstream kept a copy of every line, swapped or not, so up to 84% of its gender CADA copies were
    duplicates of their original (a doubled weight on exactly the sentences the swap missed). Here a
    sentence without a term adds nothing; the count is reported instead.
    """
    swapper = Swapper(pairs)
    originals = [s for s in sentences if s.strip()]
    out = list(originals)
    unchanged: list[str] = []
    for s in originals:
        new = swapper.swap(s).text
        if new != s:
            out.append(new)
        else:
            unchanged.append(s)
    random.Random(seed).shuffle(out)
    return Augmented(out, len(originals), len(out) - len(originals), unchanged)


def ctda(sentences: Iterable[str], spec: BiasSpec, *, seed: int = 42) -> Augmented:
    """Counter-target data augmentation: swap the target terms (女↔男, 老人↔年轻人, ...)."""
    return counterfactual_set(sentences, spec.target_pairs, seed=seed)


def cada(sentences: Iterable[str], spec: BiasSpec, *, seed: int = 42) -> Augmented:
    """Counter-attribute data augmentation: swap the attribute pairs (丑↔美, 讨厌↔喜欢, ...)."""
    return counterfactual_set(sentences, spec.attribute_pairs, seed=seed)
