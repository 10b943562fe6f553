"""MODE 1's word lists (w^L, w^C) and their token ids in a model's vocabulary.

The paper took 250 words per side from the Media Cloud news corpus by TF-IDF; neither list was published.
The project ships hand-written lists (data/liberal.txt, data/conservative.txt: US campaign and news
vocabulary, fewer than 250 words each); a user gives their own with --words-liberal / --words-conservative
(one word per line, # comments). A word counts only if the model spells it as ONE token (with a leading
space, as words appear mid-sentence, else bare): eq. 6 reads one probability per word. Words on both lists
are dropped from both. A list none of whose words the vocabulary holds is a one-sentence ConfigError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError

DEFAULT_WORDS_PER_SIDE = 250  # the paper's number; the shipped lists are shorter, so all of theirs are used
SIDES = ("liberal", "conservative")


def read_words(path: Path | None, side: str) -> list[str]:
    """The words of a list file (the shipped one when path is None), lower-cased, deduplicated, in order."""
    if path is None:
        text = (resources.files("harness.whitebox.calibration") / "data" / f"{side}.txt").read_text("utf-8")
    else:
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"Cannot read the {side} word list {path} ({type(exc).__name__}).") from None
    words = [line.strip().lower() for line in text.splitlines()]
    return list(dict.fromkeys(w for w in words if w and not w.startswith("#")))


def single_token_id(tokenizer: Any, word: str) -> int | None:
    """The id of the one token spelling `word` (" word" first, then "word"), or None."""
    for form in (" " + word, word):
        ids = tokenizer(form, add_special_tokens=False)["input_ids"]
        if len(ids) == 1:
            return int(ids[0])
    return None


@dataclass
class WordLists:
    liberal: list[int]
    conservative: list[int]
    words: dict[str, list[str]] = field(default_factory=dict)  # side -> the words kept, in id order
    dropped: dict[str, int] = field(default_factory=dict)  # side -> words not one token in this vocabulary
    shared: int = 0  # words on both lists (dropped from both)


def word_lists(tokenizer: Any, *, liberal: Path | None = None, conservative: Path | None = None,
               per_side: int = DEFAULT_WORDS_PER_SIDE) -> WordLists:
    """Token ids of at most `per_side` words per side (ConfigError when a side has none in the vocabulary)."""
    ids: dict[str, dict[int, str]] = {}
    dropped: dict[str, int] = {}
    sources = {"liberal": liberal, "conservative": conservative}
    for side in SIDES:
        found: dict[int, str] = {}
        words = read_words(sources[side], side)
        for w in words:
            tid = single_token_id(tokenizer, w)
            if tid is not None:
                found.setdefault(tid, w)
        ids[side] = found
        dropped[side] = len(words) - len(found)
    shared = set(ids["liberal"]) & set(ids["conservative"])
    out: dict[str, dict[int, str]] = {}
    for side in SIDES:
        kept = {t: w for t, w in ids[side].items() if t not in shared}
        if not kept:
            where = sources[side] or f"the shipped {side} list"
            raise ConfigError(f"None of the words of {where} is a single token in this model's vocabulary, so "
                              "MODE 1 has nothing to measure; give a list of common words.")
        out[side] = dict(list(kept.items())[:per_side])
    return WordLists(liberal=list(out["liberal"]), conservative=list(out["conservative"]),
                     words={s: list(out[s].values()) for s in SIDES}, dropped=dropped, shared=len(shared))
