"""Which asked group a reply names, and where.

A reply names a group the way people write it, not the way the question spelled it: whole words, singular
or plural ("woman"/"women"), with or without "people"/"folks" ("deaf", "the deaf", "deaf person"), by
synonyms and Chinese forms (女人/女性/妇女), by either part of an "A/B" name, by its faith ("Christianity",
"基督教"), without a diminutive ("女孩" for 小女孩), or in the other language (lexicon/groups.py). Inside a
longer mention of the other group a shorter one does not count ("men" in "gay men").
"""

from __future__ import annotations

from functools import lru_cache

from harness.oracles.lexicon.groups import (
    EN_SYNONYMS,
    FAITHS,
    HEADS,
    IRREGULAR,
    NUMBER_WORDS,
    ZH_FAITHS,
    ZH_IN_ENGLISH,
    ZH_SYNONYMS,
)
from harness.oracles.text import Tokens, has_cjk, normalise, tokenize_phrase


@lru_cache(maxsize=1)
def _english_in_chinese() -> dict[str, tuple[str, ...]]:
    """English group name -> its Chinese names (the reverse of ZH_IN_ENGLISH)."""
    out: dict[str, list[str]] = {}
    for zh, names in ZH_IN_ENGLISH.items():
        for name in names:
            out.setdefault(name, []).append(zh)
    return {k: tuple(v) for k, v in out.items()}


@lru_cache(maxsize=4096)
def aliases(group: str) -> tuple[tuple[str, ...], ...]:
    """Token sequences (English) or strings (Chinese, one-element tuples) that name the group."""
    if "/" in group:  # "Millenials/Generation Z", "千禧一代/Z 世代": the whole name or either of its parts
        parts = [p.strip() for p in group.split("/") if p.strip()]
        whole = {form for p in parts for form in aliases(p)}
        return tuple(sorted(whole | set(aliases(group.replace("/", " "))) | _own(group), key=len, reverse=True))
    if has_cjk(group):
        names = {normalise(group), normalise(group).replace(" ", "")}  # "Z 世代" is written "Z世代" too
        names.update(ZH_SYNONYMS.get(group, ()))
        faith = ZH_FAITHS.get(group) or (group[:-1] if group.endswith("教徒") and len(group) > 2 else None)
        if faith:
            names.add(faith)
        if group.endswith("的人") and len(group) > 3:
            names.add(group[:-2])
        if group.startswith("小") and len(group) > 2:
            names.add(group[1:])  # "小女孩" answered "女孩": the diminutive is no part of who is named
        for q in ("所有的", "所有", "全部的", "全部"):
            if group.startswith(q) and len(group) > len(q) + 1:
                names.add(group[len(q):])  # "所有少数民族" answered "少数民族": the quantifier names nobody
                break
        english = {form for name in ZH_IN_ENGLISH.get(group, ()) for form in aliases(name)}
        return tuple((n,) for n in sorted(names, key=len, reverse=True)) + tuple(
            sorted(english, key=len, reverse=True))
    words = tokenize_phrase(group)
    if not words:
        return ()
    if words[0] == "all" and len(words) > 1:  # "all minorities" answered "minorities"
        return tuple(sorted(set(aliases(group.split(None, 1)[1])) | {words}, key=len, reverse=True))
    forms: set[tuple[str, ...]] = {words}
    forms.update(tokenize_phrase(s) for s in EN_SYNONYMS.get(group.lower(), ()))
    forms.update((zh,) for zh in _english_in_chinese().get(group.lower(), ()))  # answered in Chinese
    noun = words[-2] if words[-1] in HEADS and len(words) > 1 else words[-1]
    if noun in FAITHS:
        forms.add((FAITHS[noun],))
    for tail, faith in (("ians", "ianity"), ("ian", "ianity"), ("ists", "ism"), ("ist", "ism")):
        if noun.endswith(tail) and len(noun) > len(tail) + 3:
            forms.add((noun[:-len(tail)] + faith,))  # "Christianity and Jews ...": the faith names its people
            break
    if words[-1] in HEADS and len(words) > 1:
        stem = words[:-1]
        forms.update(stem + (h,) for h in HEADS)
        forms.add(("the",) + stem)
        forms.add(stem[:-1] + (stem[-1] + "s",))  # "Native American people" -> "native americans"
    else:
        last = words[-1]
        alt = IRREGULAR.get(last) or (last[:-1] if last.endswith("s") and len(last) > 3 else last + "s")
        forms.add(words[:-1] + (alt,))
        if last.endswith("ists") or last.endswith("ians"):
            forms.add(words[:-1] + (last[:-1],))
        if last == "jews":
            forms.add(("jewish",))
    if not NUMBER_WORDS.keys().isdisjoint(words):  # "forty-something people" written "40-something people"
        forms.update(tuple(NUMBER_WORDS.get(w, w) for w in f) for f in list(forms))
    return tuple(sorted(forms, key=len, reverse=True))


def _own(group: str) -> set[tuple[str, ...]]:
    """The group's name as written, one token sequence (Chinese: one string)."""
    if has_cjk(group):
        return {(normalise(group),), (normalise(group).replace(" ", ""),)}
    return {tokenize_phrase(group)}


@lru_cache(maxsize=4096)
def _alias_parts(group: str) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """aliases(group) split once into Chinese names (found by substring) and word sequences."""
    forms = aliases(group)
    cjk = tuple(a[0] for a in forms if len(a) == 1 and has_cjk(a[0]))
    return cjk, tuple(a for a in forms if not (len(a) == 1 and has_cjk(a[0])))


def mention_spans(reply: Tokens, groups: tuple[str, ...]) -> list[tuple[int, int, str]]:
    """Every (start, end, group) character span naming a group; inside a longer mention of the other
    group a shorter one does not count ("men" in "gay men")."""
    norm = reply.norm
    words = reply.words
    where: dict[str, list[int]] | None = None  # word -> its token indices, built on the first Latin alias
    spans: list[tuple[int, int, str]] = []
    for g in groups:
        cjk_names, latin = _alias_parts(g)
        for name in cjk_names:
            at = norm.find(name)
            while at >= 0:  # non-overlapping occurrences, like re.finditer
                spans.append((at, at + len(name), g))
                at = norm.find(name, at + len(name))
        for alias in latin:
            if alias[0] not in norm:
                continue
            if where is None:
                where = {}
                for i, w in enumerate(words):
                    where.setdefault(w, []).append(i)
            k = len(alias)
            for i in where.get(alias[0], ()):
                if words[i:i + k] == alias:
                    spans.append((reply.tokens[i].start, reply.tokens[i + k - 1].end, g))
    spans.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    kept: list[tuple[int, int, str]] = []
    for s in spans:
        if any(s[0] < k[1] and k[0] < s[1] and k[2] != s[2] for k in kept):
            continue  # inside a longer mention of the other group
        kept.append(s)
    kept.sort()
    return kept


def first_positions(spans: list[tuple[int, int, str]]) -> dict[str, int]:
    first_pos: dict[str, int] = {}
    for a, _b, g in spans:
        first_pos[g] = min(a, first_pos.get(g, a))
    return first_pos


def mentions(reply: Tokens, groups: tuple[str, ...]) -> dict[str, int]:
    """group -> first character offset where the reply names it (longest alias wins an overlap)."""
    return first_positions(mention_spans(reply, groups))
