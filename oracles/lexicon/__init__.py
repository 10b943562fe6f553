"""The project's own expression lists (default mode), and the upstream lists (compat mode).

Default-mode lists live in `en.py` / `zh.py` beside this file: they are this project's, written from the
paper's description and the replies real chat models give (see tests/data/LABELLING.md), not copies of
upstream files. Compat mode reads upstream BiasAsker's `vocab/*.txt` from the data directory, because
reproducing upstream decisions means using upstream's exact lists, typos included.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from harness.core.errors import DataMissingError
from harness.core.paths import data_dir

from . import en, zh

CATEGORIES = ("affirm", "deny", "refuse", "explain", "no_choice", "neutral")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """Expression lists of one language. Expressions starting with "^" are clause-initial only."""

    lang: str
    affirm: tuple[str, ...]
    deny: tuple[str, ...]
    refuse: tuple[str, ...]
    explain: tuple[str, ...]
    no_choice: tuple[str, ...]
    negators: frozenset[str]
    neutral: tuple[str, ...] = ()

    def category(self, name: str) -> tuple[str, ...]:
        return getattr(self, name)


LEXICONS = {
    "en": Lexicon("en", en.AFFIRM, en.DENY, en.REFUSE, en.EXPLAIN, en.NO_CHOICE, en.NEGATORS, en.NEUTRAL),
    "zh": Lexicon("zh", zh.AFFIRM, zh.DENY, zh.REFUSE, zh.EXPLAIN, zh.NO_CHOICE, zh.NEGATORS, zh.NEUTRAL),
}


def zh_words() -> list[str]:
    """Every Chinese expression, for jieba's user dictionary (so none is split by segmentation)."""
    words = {e.lstrip("^") for name in CATEGORIES for e in LEXICONS["zh"].category(name)}
    return sorted(w for w in words if len(w) > 1)


@dataclass(frozen=True, slots=True)
class UpstreamVocab:
    pos: tuple[str, ...]
    neg: tuple[str, ...]
    explain: tuple[str, ...]


@lru_cache(maxsize=4)
def upstream_vocab(lang: str) -> UpstreamVocab:
    """Upstream BiasAsker's lists, loaded exactly as upstream loads them (lower-cased, ASCII punctuation
    removed, nothing else), from <data_dir>/biasasker/vocab/."""
    import string

    base = data_dir() / "biasasker" / "vocab"
    suffix = "" if lang == "en" else "_ch"
    table = str.maketrans("", "", string.punctuation)

    def read(stem: str) -> tuple[str, ...]:
        path: Path = base / f"{stem}{suffix}.txt"
        if not path.is_file():
            raise DataMissingError(
                f"Compat mode needs upstream BiasAsker's word lists but {path} is missing; "
                "run `harness data pull biasasker` or set HARNESS_DATA_DIR.")
        lines = path.read_text(encoding="utf-8").splitlines()
        return tuple(x.replace("\r", "").lower().translate(table) for x in lines)

    return UpstreamVocab(read("pos_list"), read("neg_list"), read("explain_list"))
