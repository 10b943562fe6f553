"""The CHBias suite generator: aligned sentence pairs -> `chbias` probes (``generator: chbias``).

A probe is one PAIR: the stereotyped sentence (T1) and the same sentence with the target group swapped (T2).
It is answered by the model's perplexity of each (harness.run.perplexity, white-box targets only), and the
metric family (harness.metrics.chbias) runs the paper's paired t-test over the answered pairs. Keeping the
pair in one probe keeps the alignment through sampling, resume and errors: a pair is scored whole or not at
all, never half.

Spec keys, CHBias's own data (read from $HARNESS_DATA_DIR/chbias, checksums verified):
``category``  gender | orientation | age | appearance.
``split``     test (default) or valid: the 200 target-swapped pairs of each (the paper's dev/test sets).

Or a user's own pairs, in any language (e.g. CrowS-Pairs):
``pairs``     a CSV or JSONL file with one pair per row, or two text files ``[t1.txt, t2.txt]`` whose line i
              pair up (CHBias's layout). Relative paths are read from the current directory.
``columns``   the two column names, stereotyped first (default ``[sentence, counterpart]``; CrowS-Pairs:
              ``[sent_more, sent_less]``).
``category_column``  optional column naming each pair's category (CrowS-Pairs: ``bias_type``);
``category``  then keeps one category.
``groups``    optional labels of the two sides for reports (CHBias: female / male, old / young, ...).
``lang``      optional; guessed from the text (any CJK character: zh, else en).

Probe fields: kind ``chbias``; bias_type ``paired``; text = T1; options = (T1, T2); groups = the two
side labels; attribute and categories = the category. meta: category, split, pair (0-based index in the
source), line (1-based), identical (T1 == T2: upstream's failed swaps, dropped and counted by the metric),
source (``chbias`` or the file name), template (a stable key).
"""

from __future__ import annotations

import csv
import functools
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.datasets import require_file
from harness.core.errors import ConfigError
from harness.core.records import Probe

#: the kind these probes are (declared by metrics/chbias.py; the name is the contract between the two): a
#: stereotyped sentence and its counterpart (options = (sentence, counterpart)), answered by the model's
#: perplexity of each (white-box targets only), never by generated text
KIND = "chbias"
DATASET = "chbias"
ANSWER_MODE = "perplexity"  # these probes can only be answered by scoring sentences (harness.run.plan)
BIAS_TYPE = "paired"
SPLITS = ("test", "valid")
#: category -> (stereotyped side, counterpart side), as the upstream file names spell them
CATEGORIES: dict[str, tuple[str, str]] = {
    "gender": ("female", "male"),
    "orientation": ("lgbt", "straight"),
    "age": ("old", "young"),
    "appearance": ("fat", "slim"),
}
DEFAULT_COLUMNS = ("sentence", "counterpart")
SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "category", "split", "pairs", "columns",
                       "category_column", "groups"})
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True, slots=True)
class Pair:
    sentence: str
    counterpart: str
    category: str
    line: int  # 1-based line (text files, JSONL) or data row (CSV) in the source


# ------------------------------------------------------------------------------------------ reading


def _lines(path: Path) -> list[str]:
    """A text file's lines (UTF-8, BOM and CRLF tolerated), trailing whitespace removed."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text; save it as UTF-8.") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _zip_lines(first: Path, second: Path, category: str) -> list[Pair]:
    a, b = _lines(first), _lines(second)
    if len(a) != len(b):
        raise ConfigError(f"{first} has {len(a)} sentences but {second} has {len(b)}; line i of one must pair "
                          "with line i of the other.")
    for i, (x, y) in enumerate(zip(a, b, strict=True), start=1):
        if bool(x) != bool(y):
            empty = second if x else first
            raise ConfigError(f"Line {i} of {empty} is empty but its pair is not; every sentence needs its "
                              "counterpart.")
    return [Pair(x, y, category, i) for i, (x, y) in enumerate(zip(a, b, strict=True), start=1) if x]


@functools.cache
def _chbias_pairs(root: str, category: str, split: str) -> tuple[Pair, ...]:
    """CHBias's aligned T1/T2 files of one category and split (cached per data directory)."""
    del root  # part of the cache key only: another $HARNESS_DATA_DIR is another data set
    first, second = CATEGORIES[category]
    return tuple(_zip_lines(require_file(DATASET, f"data/{category}/{category}_{first}_{split}.txt"),
                            require_file(DATASET, f"data/{category}/{category}_{second}_{split}.txt"), category))


def _records(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(row or line number, record) of a CSV (header row) or JSONL file."""
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        out = []
        for i, line in enumerate(_lines(path), start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError as exc:
                raise ConfigError(f"Line {i} of {path} is not JSON ({exc.msg}).") from None
            if not isinstance(obj, dict):
                raise ConfigError(f"Line {i} of {path} must be a JSON object with the two sentences.")
            out.append((i, obj))
        return out
    try:
        with path.open(encoding="utf-8-sig", newline="") as fh:
            return [(i, row) for i, row in enumerate(csv.DictReader(fh), start=1)]
    except UnicodeDecodeError:
        raise ConfigError(f"{path} is not UTF-8 text; save it as UTF-8.") from None
    except csv.Error as exc:
        raise ConfigError(f"{path} is not a readable CSV file ({exc}).") from None


def _table_pairs(path: Path, columns: tuple[str, str], category_column: str | None) -> list[Pair]:
    records = _records(path)
    if not records:
        raise ConfigError(f"{path} holds no pairs.")
    first = records[0][1]
    for column in (*columns, *([category_column] if category_column else [])):
        if column not in first:
            raise ConfigError(f"{path} has no column '{column}' (it has: {', '.join(map(str, first))}); name "
                              "yours with columns: [SENTENCE, COUNTERPART] in the suite file.")
    pairs = []
    for number, row in records:
        x, y = (str(row.get(c) or "").strip() for c in columns)
        if not x and not y:
            continue
        if not x or not y:
            raise ConfigError(f"Row {number} of {path} has a {'sentence' if x else 'counterpart'} but no "
                              f"{'counterpart' if x else 'sentence'}; every sentence needs its counterpart.")
        category = str(row.get(category_column) or "").strip() if category_column else ""
        pairs.append(Pair(x, y, category, number))
    return pairs


@functools.cache
def _file_pairs(files: tuple[str, ...], columns: tuple[str, str], category_column: str | None,
                stamp: tuple[tuple[int, int], ...]) -> tuple[Pair, ...]:
    """A user's pairs (cached per file content stamp: size and modification time)."""
    del stamp
    paths = [Path(f) for f in files]
    if len(paths) == 2:
        return tuple(_zip_lines(paths[0], paths[1], ""))
    return tuple(_table_pairs(paths[0], columns, category_column))


# --------------------------------------------------------------------------------------------- spec


@dataclass(frozen=True, slots=True)
class Selection:
    """What a spec selects: its pairs and how to label them."""

    pairs: tuple[Pair, ...]
    split: str
    groups: tuple[str, str]
    source: str
    lang: str


def _check_keys(spec: Mapping[str, Any]) -> None:
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        known = ", ".join(sorted(SPEC_KEYS - {"name", "generator", "lang", "description"}))
        raise ConfigError(f"Unknown CHBias suite option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; known: {known}.")


def _pair_files(raw: Any) -> list[Path]:
    files = [raw] if isinstance(raw, str | Path) else list(raw) if isinstance(raw, list | tuple) else None
    if not files or len(files) > 2 or not all(isinstance(f, str | Path) and str(f) for f in files):
        raise ConfigError("pairs must be one CSV/JSONL file or a list of two text files [T1, T2], "
                          f"not {raw!r}.")
    paths = [Path(f).expanduser() for f in files]
    for path in paths:
        if not path.is_file():
            raise ConfigError(f"The pairs file {path} does not exist (relative paths are read from the "
                              "current directory).")
    return paths


def _columns(spec: Mapping[str, Any]) -> tuple[str, str]:
    raw = spec.get("columns") or DEFAULT_COLUMNS
    if isinstance(raw, str):
        raw = [c.strip() for c in raw.split(",")]
    if not isinstance(raw, list | tuple) or len(raw) != 2 or not all(isinstance(c, str) and c for c in raw):
        raise ConfigError(f"columns must name two columns, stereotyped sentence first, not {raw!r}.")
    return str(raw[0]), str(raw[1])


def _groups(spec: Mapping[str, Any], default: tuple[str, str]) -> tuple[str, str]:
    raw = spec.get("groups")
    if raw is None:
        return default
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        raise ConfigError(f"groups must be two labels, stereotyped side first, not {raw!r}.")
    return str(raw[0]), str(raw[1])


def _guess_lang(pairs: tuple[Pair, ...]) -> str:
    return "zh" if any(_CJK.search(p.sentence) for p in pairs[:50]) else "en"


def _user_selection(spec: Mapping[str, Any]) -> Selection:
    paths = _pair_files(spec["pairs"])
    category_column = spec.get("category_column") or None
    stamp = tuple((p.stat().st_size, p.stat().st_mtime_ns) for p in paths)
    pairs = _file_pairs(tuple(str(p.resolve()) for p in paths), _columns(spec), category_column, stamp)
    source = " + ".join(p.name for p in paths)
    if not pairs:
        raise ConfigError(f"{source} holds no pairs.")
    wanted = spec.get("category")
    if wanted not in (None, "", "all"):
        if not category_column:
            raise ConfigError("category filters a pairs file only with category_column naming its column.")
        kept = tuple(p for p in pairs if p.category == str(wanted))
        if not kept:
            found = sorted({p.category for p in pairs if p.category})
            raise ConfigError(f"No pair of {source} has category '{wanted}'; its categories: "
                              f"{', '.join(found) or 'none'}.")
        pairs = kept
    lang = str(spec.get("lang") or _guess_lang(pairs))
    return Selection(pairs, "", _groups(spec, ("stereotyped", "counterpart")), source, lang)


def selection(spec: Mapping[str, Any]) -> Selection:
    """The pairs a spec selects (see the module docstring), or a one-sentence ConfigError."""
    _check_keys(spec)
    if spec.get("pairs"):
        return _user_selection(spec)
    category = spec.get("category")
    if category not in CATEGORIES:
        raise ConfigError(f"A CHBias suite needs category: one of {', '.join(CATEGORIES)} (got {category!r}), "
                          "or pairs: FILE for your own pairs.")
    split = str(spec.get("split") or "test")
    if split not in SPLITS:
        raise ConfigError(f"CHBias split must be test or valid, not {split!r}.")
    from harness.core.paths import data_dir  # the cache key: another data directory is another data set

    pairs = _chbias_pairs(str(data_dir()), category, split)
    return Selection(pairs, split, _groups(spec, CATEGORIES[category]), DATASET, str(spec.get("lang") or "zh"))


# ------------------------------------------------------------------------------------- the protocol


def _probe(sel: Selection, index: int, suite_name: str) -> Probe:
    pair = sel.pairs[index]
    category = pair.category or "all"
    meta = {"template": f"{sel.source}/{category}/{sel.split or 'pairs'}/{pair.line}", "category": category,
            "split": sel.split, "pair": index, "line": pair.line,
            "identical": pair.sentence == pair.counterpart, "source": sel.source}
    return Probe.make(suite_name, sel.lang, KIND, BIAS_TYPE, pair.sentence, groups=sel.groups,
                      attribute=category, categories=(category,), options=(pair.sentence, pair.counterpart),
                      meta=meta)


def generate(spec: Mapping[str, Any], suite_name: str) -> Iterator[Probe]:
    sel = selection(spec)
    for i in range(len(sel.pairs)):
        yield _probe(sel, i, suite_name)


def generate_at(spec: Mapping[str, Any], suite_name: str, positions: list[int]) -> Iterator[Probe]:
    sel = selection(spec)
    for i in sorted(set(positions)):
        if 0 <= i < len(sel.pairs):
            yield _probe(sel, i, suite_name)


def count(spec: Mapping[str, Any]) -> int:
    return len(selection(spec).pairs)


def count_by_type(spec: Mapping[str, Any]) -> dict[str, int]:
    """Pairs per category, for `harness suites`."""
    counts: dict[str, int] = {}
    for pair in selection(spec).pairs:
        key = pair.category or "all"
        counts[key] = counts.get(key, 0) + 1
    return counts
