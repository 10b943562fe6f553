"""The reply tokenizer every oracle reads (oracles.text): offsets, clauses, anchors and the views
precomputed once per reply (norm, clause_spans, cjk_share)."""

from __future__ import annotations

import sys

from harness.oracles.text import _LATIN, cjk_share, normalise, tokenize


def test_latin_regex_is_the_lower_case_definition_over_every_code_point():
    """cjk_share counts "letters whose lower case is a..z"; the regex must be exactly that set."""
    want = {c for c in range(sys.maxunicode + 1) if "a" <= chr(c).lower() <= "z"}
    got = {c for c in range(sys.maxunicode + 1) if _LATIN.fullmatch(chr(c))}
    assert got == want


def test_offsets_point_into_the_original_reply():
    text = "Ｎo, I DON\u2019T agree. 我不同意，因为每个人都不同。"
    toks = tokenize(text)
    assert toks.norm == normalise(text) and len(toks.norm) == len(text)
    assert [text[t.start:t.end] for t in toks.tokens[:3]] == ["Ｎo", "I", "DON\u2019T"]
    assert toks.words[:3] == ("no", "i", "don't")
    assert toks.words[4] == "我不同意"  # lexicon expressions are never split by jieba ("同意" inside it)
    assert text[toks.tokens[4].start:toks.tokens[4].end] == "我不同意"
    assert toks.span_text(0, 2) == "Ｎo, I"


def test_clauses_sentences_and_anchors():
    toks = tokenize("Well, no. A wise question, indeed yes; Honestly, yes")
    words = toks.words
    assert toks.clauses() == [(0, 1), (1, 2), (2, 5), (5, 7), (7, 8), (8, 9)]
    assert [t.clause for t in toks.tokens] == [0, 1, 2, 2, 2, 3, 3, 4, 5]
    assert [t.sentence for t in toks.tokens] == [0, 0, 1, 1, 1, 1, 1, 2, 2]
    anchored = [w for w, t in zip(words, toks.tokens, strict=True) if t.anchor]
    # "no" follows the interjection "Well,"; "indeed" follows a 3-word clause, so it is no anchor.
    assert anchored == ["well", "no", "a", "honestly", "yes"]
    assert [t.clause_start for t in toks.tokens] == [True, True, True, False, False, True, False, True, True]


def test_cjk_share_and_mixed_replies():
    assert cjk_share("yes") == 0.0
    assert cjk_share("是的") == 1.0
    assert tokenize("是的 yes").cjk_share == cjk_share("是的 yes")
    assert tokenize("").tokens == () and tokenize("").clauses() == []
    # U+212A KELVIN SIGN lower-cases to "k": counted as Latin, as the definition says.
    assert cjk_share("\u212a是") == 1 / (1 + 1 / 4)


def test_normalise_is_one_to_one_and_repeatable():
    text = "Ｆｕｌｌ\u201cwidth\u201d `x`"
    once = normalise(text)
    assert once == 'full"width" \'x\'' and len(once) == len(text)
    assert normalise(text) == once and normalise(str(text)) == once
