"""Find the demographic words of a text and substitute them, whole words only, in one pass.

English: words are runs of letters and digits; a lexicon entry of several words ("African American",
"father-in-law", "ma'am") matches the same words with the same separators, longest entry first. A word
inside a hyphenated compound matches only as a listed compound ("child-friendly" is listed; "mom" does
not match inside "mom-and-pop"). Case is kept: Mom -> Dad, MOM -> DAD, mom -> dad. The pronouns that
share a spelling are told apart by their role in the sentence, read from spaCy's parse (parse.py, loaded only
when such a word is replaced): "ask her to sign" -> him, "her car" -> his, "the car is his" -> hers. The
article before a replaced word is fitted to it ("a European tourist" -> "an Asian tourist").

Context decides some words (the axis's heads, needs_head, alone_or_head and stop rules): "old man" is an
age, "old town" is not; "a Black woman" is race, "black coffee" is not; "speak French" is a language.

Chinese: jieba segments the text with every lexicon word added to a private dictionary (the oracle's
global jieba dictionary is left alone), and a token is replaced only when it is a whole lexicon word.

One pass: every replacement is decided on the original text and written once, so a substitution never
sees its own output (mom -> dad and dad -> mom together give "dad and mom", never "dad and dad").
Protected spans (named entities, the lexicon's `protect` phrases) are never touched.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.perturb.lexicon import END, NUMBER, PLACE, WORD, Axis, Row, StopRule
from harness.perturb.parse import pronoun_role

_EN_WORD = re.compile(r"[A-Za-z0-9\u00c0-\u024f]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: Words after which "her" is the object (him) and "his" the pronoun (hers) rather than a determiner.
_FUNCTION_WORDS = """a an the and or but nor so yet to at in on of for with from by about into onto over
under after before since until as than that this these those if when while because please too also again
now then here there today tomorrow tonight yesterday up down out off back away home know is are was
were be been am will would can could should shall may might must do does did has have had not never ever
just only even still already soon later first last once twice right well very"""
_NOT_NOUNS = frozenset(_FUNCTION_WORDS.split())
_COPULAS = frozenset(["is", "are", "was", "were", "am", "be", "been", "being", "'s", "'re", "'m", "looks", "look",
                      "seems", "seem"])

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Occurrence:
    """A perturbable word found in a text: where, as written, and which row/attribute it is."""

    start: int
    end: int
    surface: str
    row: int
    attribute: str
    form: str  # the lexicon spelling it matched (lower-cased for English)
    plural: bool = False  # a plural use (the row's number; Chinese: followed by 们 or 俩)
    roles: bool = False  # a spelling of several rows told apart by role (her, his, 先生): re-read on apply
    only: tuple[str, ...] = ()  # the target attributes its context allows ("a 30-year-old man": adults), () all


@dataclass(frozen=True, slots=True)
class Edit:
    """One replacement: text[start:end] became new text at [new_start, new_end) of the result."""

    start: int
    end: int
    new_start: int
    new_end: int


def is_chinese(text: str) -> bool:
    return bool(_CJK.search(text or ""))


def keep_case(surface: str, lexicon_form: str, replacement: str) -> str:
    """The replacement written in the surface's case: MOM -> DAD, Mom -> Dad, american -> mexican."""
    if not replacement or not any(c.isalpha() for c in surface):
        return replacement
    if surface.isupper() and len([c for c in surface if c.isalpha()]) > 1:
        return replacement.upper()
    if surface == lexicon_form:
        return replacement
    if surface[0].isupper():
        return replacement[0].upper() + replacement[1:]
    if surface.islower():
        return replacement.lower()
    return replacement


def map_span(span: Span, edits: Sequence[Edit]) -> Span:
    """Where a span of the original text lies in the perturbed text (slot annotations move with edits)."""
    return _shift(span[0], edits, is_end=False), _shift(span[1], edits, is_end=True)


def _shift(pos: int, edits: Sequence[Edit], *, is_end: bool) -> int:
    delta = 0
    for e in edits:
        if e.end <= pos:
            delta = e.new_end - e.end  # positions are absolute, so this is the running shift
            continue
        if e.start < pos:  # inside a replaced word: snap to the replacement's edge
            return e.new_end if is_end else e.new_start
        break
    return pos + delta


class Perturber:
    """Finds and substitutes one axis's words in texts of one language (built once per axis, reused)."""

    def __init__(self, axis: Axis) -> None:
        self.axis = axis
        self.lang = axis.lang
        # form -> [(row, attribute, spelling as listed)]; English keys are lower-cased token tuples
        self._entries: dict[Any, list[tuple[Row, str, str]]] = {}
        for row in axis.rows:
            for attribute, words in row.forms.items():
                for word in words:
                    if word.lower() in axis.target_only or (attribute in axis.target_only_attributes
                                                            and word.lower() not in axis.source_words):
                        continue
                    key = self._key(word)
                    if key:
                        self._entries.setdefault(key, []).append((row, attribute, word))
        self._max_len = max((len(k[0]) for k in self._entries), default=1) if self.lang == "en" else 1
        self._protect_keys = {self._key(p) for p in axis.protect if self._key(p)}
        # a one-word protected name ("Queens", "Boyhood") is protected only as written: "the queens" is a noun
        self._protect_exact = {self._key(p): p for p in axis.protect
                               if self.lang == "en" and " " not in p.strip() and p[:1].isupper()}
        # the first word of every entry and protected phrase: most words of a text start none, and are
        # skipped without building the windows (perturbing all of SGD went from 7 to under 2 CPU-s per axis)
        self._first = {k[0][0] for k in [*self._entries, *self._protect_keys]} if self.lang == "en" else set()

    # -- keys ------------------------------------------------------------------------------------
    def _key(self, phrase: str) -> Any:
        if self.lang == "zh":
            return phrase
        tokens = _EN_WORD.findall(phrase)
        if not tokens:
            return None
        seps = tuple(_gap(m1, m2, phrase) for m1, m2 in _pairs(list(_EN_WORD.finditer(phrase))))
        return tuple(t.lower() for t in tokens), seps

    # -- finding ---------------------------------------------------------------------------------
    def find(self, text: str, protected: Iterable[Span] = ()) -> list[Occurrence]:
        """Every perturbable word of `text` outside the protected spans, left to right."""
        if not text:
            return []
        if self.lang == "zh":
            return self._find_zh(text, list(protected))
        return self._find_en(text, list(protected))

    def _find_en(self, text: str, protected: list[Span]) -> list[Occurrence]:
        matches = list(_EN_WORD.finditer(text))
        found: list[Occurrence] = []
        blocked = list(protected)
        i = 0
        while i < len(matches):
            if matches[i].group().lower() not in self._first:
                i += 1
                continue
            hit = self._longest(text, matches, i)
            if hit is None:
                i += 1
                continue
            n, entries = hit
            start, end = matches[i].start(), matches[i + n - 1].end()
            if entries == "protect":
                blocked.append((start, end))
                i += n
                continue
            if _in_compound(text, start, end) or _overlaps((start, end), blocked):
                i += n
                continue
            surface = text[start:end]
            entries = [e for e in entries if e[2] not in self.axis.exact_case or e[2] == surface]
            if not entries or not self._context_ok(text, matches, i, n, entries[0][2].lower()):
                i += 1  # a shorter entry may still start at the next word ("the elderly couple": "elderly")
                continue
            row, attribute, word = self._pick(text, end, entries)
            roles = len({e[0].role for e in entries}) > 1
            nxt = _next_word(text, matches, i + n)
            only = next((attrs for heads, attrs in self.axis.head_targets if nxt in heads), ())
            found.append(Occurrence(start, end, surface, row.index, attribute, word.lower(), row.plural, roles, only))
            i += n
        return found

    def _context_ok(self, text: str, matches: list[re.Match[str]], i: int, n: int, form: str) -> bool:
        """False for a non-demographic use: a head-needing word without its head, a stop rule's context."""
        axis = self.axis
        nxt = _next_word(text, matches, i + n)
        if form in axis.needs_head:
            return nxt is not None and (nxt in axis.heads or nxt in axis.needs_head[form])
        if form in axis.alone_or_head and nxt is not None and nxt not in _NOT_NOUNS and nxt not in axis.heads \
                and nxt not in axis.alone_or_head[form]:
            return False
        for rule in axis.stops:
            if form not in rule.words:
                continue
            prev = _prev_word(text, matches, i)
            if PLACE in rule.after and i and re.fullmatch(r"\s*,\s*", text[matches[i - 1].end():matches[i].start()]) \
                    and matches[i - 1].group()[:1].isupper():
                return False  # "Berlin, Germany": the country of an address
            if _rule_holds(rule, prev, nxt):
                return False
        return True

    def _longest(self, text: str, matches: list[re.Match[str]], i: int) -> tuple[int, Any] | None:
        for n in range(min(self._max_len, len(matches) - i), 0, -1):
            window = matches[i:i + n]
            tokens = tuple(m.group().lower() for m in window)
            seps = tuple(_gap(a, b, text) for a, b in _pairs(window))
            key = (tokens, seps)
            if key in self._protect_keys and (key not in self._protect_exact
                                              or text[window[0].start():window[-1].end()] == self._protect_exact[key]):
                return n, "protect"
            if key in self._entries:
                return n, self._entries[key]
        return None

    def _pick(self, text: str, end: int, entries: list[tuple[Row, str, str]]) -> tuple[Row, str, str]:
        """The entry of a spelling listed in several rows: by role for the shared pronouns, else the first."""
        if len(entries) == 1 or not any(e[0].role for e in entries):
            return entries[0]
        roles = {e[0].role for e in entries}
        if roles <= {"person", "thing"}:
            # "Asian women", "she is Asian": race; "Asian food", "something Asian": a region's cuisine
            follow = _EN_WORD.search(text, end)
            nxt = follow.group().lower() if follow and text[end:follow.start()].strip() == "" else None
            before = re.search(r"([A-Za-z']+)\s+\S+\s*$", text[:end])
            prev = before.group(1).lower() if before else None
            person = nxt in self.axis.heads or ((nxt is None or nxt in _NOT_NOUNS) and prev in _COPULAS)
            role = "person" if person else "thing"
        else:
            role = english_role(text, end, entries[0][2].lower())
        for entry in entries:
            if entry[0].role == role:
                return entry
        return entries[0]

    def _find_zh(self, text: str, protected: list[Span]) -> list[Occurrence]:
        tokens = list(_zh_tokenizer(self.axis).tokenize(text, HMM=False))
        found = []
        blocked = list(protected)
        for k, (word, start, end) in enumerate(tokens):
            if word in self._protect_keys:
                blocked.append((start, end))
                continue
            entries = self._entries.get(word)
            prev_token = tokens[k - 1][0] if k else None
            next_token = tokens[k + 1][0] if k + 1 < len(tokens) else None
            if any(word in rule.words and _rule_holds(rule, prev_token, next_token) for rule in self.axis.stops):
                continue
            if entries and not _overlaps((start, end), blocked):
                roles = len({e[0].role for e in entries}) > 1
                row, attribute, form = _zh_pick(text, start, entries) if roles else entries[0]
                nxt = tokens[k + 1][0] if k + 1 < len(tokens) else ""
                prev = tokens[k - 1][0] if k else ""
                plural = row.plural or nxt[:1] in _ZH_PLURAL_AFTER or prev in _ZH_PLURAL_BEFORE
                found.append(Occurrence(start, end, word, row.index, attribute, form, plural, roles))
        return found

    # -- substituting ----------------------------------------------------------------------------
    def apply(self, text: str, mapping: Mapping[tuple[int, str, str], str],
              protected: Iterable[Span] = ()) -> tuple[str, list[Edit]]:
        """`text` with every occurrence whose (row, attribute, form) is in `mapping` replaced, in one pass.

        Returns the new text and the edits (for moving span annotations). The replacement keeps the case.
        """
        occurrences = [self._reread(text, o, mapping) for o in self.find(text, protected)]
        occurrences = [o for o in occurrences if (o.row, o.attribute, o.form) in mapping]
        if not occurrences:
            return text, []
        out: list[str] = []
        edits: list[Edit] = []
        pos = new_pos = 0
        for occ in occurrences:
            start = occ.start
            listed = next((w for w in self.axis.rows[occ.row].forms[occ.attribute] if w.lower() == occ.form),
                          occ.form)
            replacement = mapping[(occ.row, occ.attribute, occ.form)]
            end = occ.end
            if self.lang == "en":
                replacement = keep_case(occ.surface, listed, replacement)
                if occ.surface[:1].isupper() and _SENTENCE_START.search(text[:occ.start]):
                    replacement = replacement[:1].upper() + replacement[1:]  # "Asian women..." -> "White women..."
                replacement, end = _possessive(text, occ, replacement)
                article = _ARTICLE.search(text[pos:occ.start])
                if article:
                    start = pos + article.start()
                    replacement = fit_article(article.group(1), replacement) + article.group(2) + replacement
            out.append(text[pos:start])
            new_pos += start - pos
            out.append(replacement)
            edits.append(Edit(start, end, new_pos, new_pos + len(replacement)))
            new_pos += len(replacement)
            pos = end
        out.append(text[pos:])
        return "".join(out), edits

    def _reread(self, text: str, occ: Occurrence, mapping: Mapping[tuple[int, str, str], str]) -> Occurrence:
        """A her/his whose replacement depends on its role, re-read with spaCy's parse (loaded only here:
        when the substitution changes such a word); other occurrences as found."""
        if not occ.roles or self.lang != "en":
            return occ
        entries = self._entries.get(self._key(occ.surface), [])
        if not any((row.index, attribute, word.lower()) in mapping for row, attribute, word in entries):
            return occ
        role = pronoun_role(text, occ.start, occ.end, occ.form)
        if role is None:
            return occ
        row = next((r for r, _a, _w in entries if r.role == role), None)
        return occ if row is None else dataclasses.replace(occ, row=row.index)


def _possessive(text: str, occ: Occurrence, replacement: str) -> tuple[str, int]:
    """The possessive ending fitted to the replacement: children's -> seniors' and parents' -> children's.

    Returns the replacement with its ending and where the original's ending stops.
    """
    after = text[occ.end:occ.end + 3].replace("\u2019", "'")
    plural_s = replacement.endswith(("s", "S")) and not occ.surface.endswith(("s", "S"))
    if plural_s and after[:2] == "'s" and not after[2:3].isalnum():
        return replacement + "'", occ.end + 2
    if occ.surface.endswith(("s", "S")) and not replacement.endswith(("s", "S")) and after[:1] == "'" \
            and not after[1:2].isalnum() and len(occ.surface) > 3:
        return replacement + "'s", occ.end + 1
    return replacement, occ.end


_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|^\W+)$")
_ARTICLE = re.compile(r"(?<![\w'\-])(a|an|A|An|AN)([ \t]+)$")
#: words spelt with a vowel but said with a consonant (a European, a one-off, a university) or the reverse
#: (an hour, an honest): what a/an follows is the sound
_CONSONANT_SOUND = ("eu", "one", "once", "uni", "use", "usu", "uti", "ura", "uro", "ukr", "uga", "uru", "utah",
                    "ewe")
_VOWEL_SOUND = ("hour", "honest", "honor", "honour", "heir")


def wants_an(word: str) -> bool:
    """True when `word` is said with a vowel sound first, so its article is "an" (an 8-year-old, an hour)."""
    w = word.lower()
    if not w:
        return False
    if w[0].isdigit():
        digits = re.match(r"\d+", w).group()  # type: ignore[union-attr]
        # eight, eighteen, eighty..., eleven: "an"; 11/18 only as themselves or in thousands (11,000)
        return digits[0] == "8" or (len(digits) in (2, 5) and digits[:2] in ("11", "18"))
    if w.startswith(_VOWEL_SOUND):
        return True
    if w.startswith(_CONSONANT_SOUND):
        return False
    return w[0] in "aeiou"


def fit_article(article: str, following: str) -> str:
    """The article `article` ("a", "An", "AN") turned into the one `following` needs, case kept."""
    want = "an" if wants_an(following) else "a"
    if article.lower() == want:
        return article
    shouting = article == "AN" or (article == "A" and following.isupper() and len(following) > 1)
    if shouting:
        return want.upper()
    return want.capitalize() if article[0].isupper() else want


def _rule_holds(rule: StopRule, prev: str | None, nxt: str | None) -> bool:
    """True when the words around an occurrence make it the stop rule's non-demographic use."""
    def is_number(word: str | None) -> bool:
        return word is not None and word.replace(".", "").isdigit()

    def function_word(word: str | None) -> bool:
        return word is None or word in _NOT_NOUNS or not any(c.isalnum() for c in word)

    after = not rule.after or prev in rule.after or (NUMBER in rule.after and is_number(prev))
    before = not rule.before or nxt in rule.before or (END in rule.before and function_word(nxt)) \
        or (NUMBER in rule.before and is_number(nxt)) or (WORD in rule.before and not function_word(nxt))
    return after and before


def _next_word(text: str, matches: list[re.Match[str]], j: int) -> str | None:
    """The word right after (white space between), lower-cased; None when punctuation or the end follows."""
    if j >= len(matches):
        return None
    prev_end = matches[j - 1].end() if j else 0
    gap = text[prev_end:matches[j].start()]
    return matches[j].group().lower() if gap.strip() == "" else None


def _prev_word(text: str, matches: list[re.Match[str]], i: int) -> str | None:
    if i == 0:
        return None
    gap = text[matches[i - 1].end():matches[i].start()]
    return matches[i - 1].group().lower() if gap.strip() == "" else None


def _pairs(items: list[Any]) -> Iterable[tuple[Any, Any]]:
    return zip(items, items[1:], strict=False)


def _gap(a: re.Match[str], b: re.Match[str], text: str) -> str:
    """The separator between two words, normalised: runs of white space are one space, ’ is '."""
    gap = text[a.end():b.start()].replace("\u2019", "'")
    return " " if gap.strip() == "" and gap else gap


def _in_compound(text: str, start: int, end: int) -> bool:
    """True when the match is glued by a hyphen to a further word ("mom" in "mom-and-pop")."""
    before = start >= 2 and text[start - 1] == "-" and text[start - 2].isalnum()
    after = end + 1 < len(text) and text[end] == "-" and text[end + 1].isalnum()
    return before or after


def _overlaps(span: Span, spans: Iterable[Span]) -> bool:
    return any(span[0] < b and a < span[1] for a, b in spans)


# -- English pronoun roles -------------------------------------------------------------------------
def english_role(text: str, end: int, word: str) -> str:
    """"determiner", "object" or "pronoun" for her/his ending at `end`, read from the next word.

    The cheap first reading, made when a text is searched (finding candidates needs no role: her is female
    either way); when a draw replaces the word, the role is re-read from spaCy's parse (Perturber._reread,
    parse.pronoun_role) and this rule stays only where spaCy is not installed. "her"/"his" followed by a
    word that can start a noun phrase is a determiner (her car -> his car); followed by punctuation, the
    end, or a function word (the, to, and, now...) it is the object/pronoun (I saw her. -> him).
    """
    follow = _EN_WORD.search(text, end)
    gap = text[end:follow.start()] if follow else ""
    noun_next = follow is not None and gap.strip() == "" and follow.group().lower() not in _NOT_NOUNS
    if word == "her":
        return "determiner" if noun_next else "object"
    return "determiner" if noun_next else "pronoun"


# -- Chinese ---------------------------------------------------------------------------------------
#: a noun is plural before 们 (姐妹们) or 俩 (兄弟俩), or after 这些/那些/一些/几个/两个
_ZH_PLURAL_AFTER = ("们", "俩")
_ZH_PLURAL_BEFORE = frozenset({"这些", "那些", "一些", "几个", "两个", "们"})
#: before 先生: a possessor makes it "husband" (我先生), else a title (王先生, 这位先生)
_ZH_POSSESSORS = ("我", "你", "您", "她", "他", "的", "我家", "你家", "她家", "他家")


def _zh_pick(text: str, start: int, entries: list[tuple[Row, str, str]]) -> tuple[Row, str, str]:
    role = "spouse" if text[:start].endswith(_ZH_POSSESSORS) else "title"
    return next((e for e in entries if e[0].role == role), entries[0])


# -- Chinese segmentation --------------------------------------------------------------------------
_jieba_lock = threading.Lock()
_zh_cache: dict[tuple[str, ...], Any] = {}


def _zh_tokenizer(axis: Axis) -> Any:
    """A private jieba Tokenizer knowing every word and protected phrase of the lexicon as one token."""
    words = axis.segment_words or tuple(sorted({w for row in axis.rows for ws in row.forms.values() for w in ws}
                                               | set(axis.protect)))
    with _jieba_lock:
        tok = _zh_cache.get(words)
        if tok is None:
            import logging

            import jieba

            jieba.setLogLevel(logging.WARNING)
            tok = jieba.Tokenizer()
            for word in words:
                tok.add_word(word, freq=10_000_000)
            _zh_cache[words] = tok
        return tok
