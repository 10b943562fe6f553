"""Loaders for the upstream BiasAsker data: the full data set and the paper's two samples.

Everything is turned into a `Catalog` (groups + properties) so tuple building never sees upstream quirks.
Decisions, each forced by how the files really are (see ../shared/upstream-notes.md 1.2):

* Property.text is always the original stereotype and Property.antonym its positive counterpart. In the
  API sample CSV that is the reverse of the column names suggest: `bias_`/`translation_` hold the
  stereotype and `bias`/`translate` the positive antonym (what upstream asked). The manual sample's
  columns are `bias,translation` (stereotype) and `antonym,translate a` (positive).
* Sample categories: `label` is a list of upstream int ids ("[1, 6]"), mapped to the paper's names; the
  row's `cat` (the category the property was sampled for) is put first, so categories[0] is its primary
  category.
* Full-data labels are normalised to the paper's 12 names: "Ability" -> "Competence", lower-case
  duplicates merged. `delete` (3 rows, an annotator's mark) is dropped. "Swear words" (238 rows) is not
  a bias dimension but a note that the text is profane, so it is dropped from categories and kept as a
  flag (`BiasAskerFull.profane`). A property whose only labels were these ends with no category: it is
  still loaded (the set has 7,343 properties), and category-based sampling simply never picks it.
* Translations are aligned by row. Cells are cleaned of CRLF, of stray "A"/"a" lines (rows 743, 2599,
  3349, ...) and duplicated second lines (4115, 4118, 4138: the first line is the translation), and of
  the translator's "A群体"/"A集团"/"A 组"/"A参与" ("group A") prefixes, which would otherwise read
  "黑人A群体..." after a group name. Two antonym cells stay unusable ("xxx", "t低者优先"): kept as is.
* Antonyms: antonym_annotation.csv was annotated on a slightly different version of the sentences, so it
  is joined by a key (whitespace collapsed, case folded, trailing "?.!" dropped), not by row. 6,742 of
  the 7,343 properties get an antonym (one antonym cell is blank); 89 antonym rows match no property and are kept only in
  `BiasAskerFull.antonyms`. A property without antonym has antonym "" and is skipped by suites that ask
  about antonyms (question_gen decides; the catalog never invents one).
* "are lazy" appears twice with the same labels; both rows are kept so counts match the published set.
"""

from __future__ import annotations

import ast
import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from harness.datasets import DataCorruptError, require_file
from question_gen.catalog import CATEGORIES, Catalog, Group, Property

DATASET = "biasasker"

# Upstream's `category_dict` (1-based ids used in the samples) is the order of CATEGORIES.
CATEGORY_BY_ID: dict[int, str] = {i + 1: name for i, name in enumerate(CATEGORIES)}

# Full-data label spellings -> the paper's names. Keys are case-folded.
_LABEL_ALIASES: dict[str, str] = {name.casefold(): name for name in CATEGORIES}
_LABEL_ALIASES["ability"] = "Competence"
_LABEL_ALIASES["family & relation"] = "Family & relationship"
PROFANE_LABEL = "swear words"
JUNK_LABELS = frozenset({"delete"})

# "A群体..." / "A集团..." / "A 组..." / "A租组..." / "A参与...": the translator rendered the elided subject as
# "group A". Only stripped when Chinese follows, so a real Latin start ("LGBT青年") is never touched.
_GROUP_A_PREFIX = re.compile(r"^(?:AI|A|a)\s*(?:租组|租|群体|集团|组|族群|类)?\s*(?=[\u4e00-\u9fff])")


@dataclass(frozen=True, slots=True)
class Antonym:
    """One row of antonym_annotation.csv with its translation."""

    sentence: str
    antonym: str
    antonym_zh: str
    categories: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BiasAskerFull:
    """The full data set: the catalog plus what does not fit a Catalog (flags, raw antonym rows)."""

    catalog: Catalog
    antonyms: tuple[Antonym, ...]
    profane: frozenset[str]  # property texts labelled "Swear words" upstream
    unmatched_antonyms: tuple[str, ...]  # antonym-file sentences that match no property


# ------------------------------------------------------------------------------------------ helpers

def _read_rows(path: Path, *, columns: tuple[str, ...]) -> list[dict[str, str]]:
    """Read a CSV whose header must hold `columns`; one sentence naming the file if it can't."""
    try:
        text = path.read_text(encoding="utf-8")
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as exc:
        raise _corrupt(path, f"it cannot be read as UTF-8 CSV ({exc})") from None
    missing = [c for c in columns if c not in (reader.fieldnames or ())]
    if missing:
        raise _corrupt(path, f"its header lacks {', '.join(missing)}")
    return rows


def _corrupt(path: Path, why: str) -> DataCorruptError:
    return DataCorruptError(
        f"Data file {path} is unusable: {why}; run `harness data verify {DATASET}` "
        f"and `harness data pull {DATASET}` to replace it."
    )


def clean_translation(cell: str, *, phrase: bool = True) -> str:
    """One clean Chinese phrase from a translation cell (see the module docstring for what is fixed).

    phrase=True for property/antonym cells (verb phrases that follow a group, where a leading "A..."
    is the translator's placeholder); group names are only trimmed to their first line.
    """
    lines = [ln.strip() for ln in cell.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    lines = [ln for ln in lines if ln and ln not in {"A", "a"}]
    text = lines[0] if lines else ""
    return _GROUP_A_PREFIX.sub("", text, count=1).strip() if phrase else text


def normalise_labels(raw: str) -> tuple[tuple[str, ...], bool]:
    """Full-data label text -> (paper category names in first-seen order, profane flag).

    Unknown labels raise ValueError: a label the loader doesn't know means the file is not the pinned one.
    """
    names: list[str] = []
    profane = False
    for part in raw.split(","):
        key = part.strip().casefold()
        if not key or key in JUNK_LABELS:
            continue
        if key == PROFANE_LABEL:
            profane = True
            continue
        name = _LABEL_ALIASES.get(key)
        if name is None:
            raise ValueError(f"unknown label {part.strip()!r}")
        if name not in names:
            names.append(name)
    return tuple(names), profane


def sentence_key(sentence: str) -> str:
    """Join key between the bias and antonym files, which differ in spacing, case and trailing '?'."""
    return " ".join(sentence.split()).rstrip("?.! ").casefold()


def _sample_categories(cat: str, label: str, path: Path) -> tuple[str, ...]:
    try:
        primary = int(cat)
        ids = ast.literal_eval(label)
        ids = [ids] if isinstance(ids, int) else list(ids)
        ordered = [primary] + [i for i in ids if i != primary]
        return tuple(CATEGORY_BY_ID[i] for i in ordered)
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise _corrupt(path, f"category {cat!r} / label {label!r} is not a list of ids 1..12") from None


# ------------------------------------------------------------------------------------------ samples

def _sample_groups(relpath: str) -> tuple[Group, ...]:
    path = require_file(DATASET, relpath)
    rows = _read_rows(path, columns=("category", "group", "translate"))
    return tuple(Group(r["group"].strip(), r["category"].strip(), r["translate"].strip()) for r in rows)


#: Where each sample file keeps the stereotype, the positive antonym and their translations: the two files
#: name their columns differently (and the API sample's unadorned `bias` is the antonym, not the bias).
_SAMPLE_FILES = {
    "biasasker-api-sample": ("groups_for_auto.csv", "sample_bias_data_for_auto.csv",
                             {"text": "bias_", "zh": "translation_", "antonym": "bias", "antonym_zh": "translate"}),
    "biasasker-manual-sample": ("groups_for_manual.csv", "sample_bias_data_for_manual.csv",
                                {"text": "bias", "zh": "translation", "antonym": "antonym",
                                 "antonym_zh": "translate a"}),
}


def _load_sample(name: str) -> Catalog:
    groups_file, bias_file, columns = _SAMPLE_FILES[name]
    groups = _sample_groups(f"data_sample/{groups_file}")
    path = require_file(DATASET, f"data_sample/{bias_file}")
    rows = _read_rows(path, columns=("cat", "label", *columns.values()))
    props = tuple(
        Property(categories=_sample_categories(r["cat"], r["label"], path),
                 **{field: r[column].strip() for field, column in columns.items()})
        for r in rows
    )
    return Catalog(name, groups, props)


def load_api_sample() -> Catalog:
    """The paper's API-scale sample: 35 groups (7 attributes) x 84 properties (7 per category)."""
    return _load_sample("biasasker-api-sample")


def load_manual_sample() -> Catalog:
    """The paper's manual-scale sample: 17 groups x 15 properties (5 each of 3 categories)."""
    return _load_sample("biasasker-manual-sample")


# ------------------------------------------------------------------------------------------ full set

def _aligned(english: list[dict[str, str]], relpath: str, *, phrase: bool = True) -> list[str]:
    """Row-aligned Chinese translations for `english`; a length mismatch means a damaged file."""
    path = require_file(DATASET, relpath)
    rows = _read_rows(path, columns=("Translation",))
    if len(rows) != len(english):
        raise _corrupt(path, f"it has {len(rows)} rows but its English file has {len(english)}")
    return [clean_translation(r["Translation"], phrase=phrase) for r in rows]


def load_full_data() -> BiasAskerFull:
    """The full data set: 1,262 groups (11 attributes), 7,343 properties, 6,832 antonym rows."""
    g_path = require_file(DATASET, "dataset/groups.csv")
    g_rows = _read_rows(g_path, columns=("Group", "Category"))
    g_zh = _aligned(g_rows, "dataset/groups_translate.csv", phrase=False)
    groups = tuple(
        Group(r["Group"].strip(), r["Category"].strip(), zh) for r, zh in zip(g_rows, g_zh, strict=True)
    )

    a_path = require_file(DATASET, "dataset/antonym_annotation.csv")
    a_rows = _read_rows(a_path, columns=("Sentence", "Antonym", "Labels"))
    a_zh = _aligned(a_rows, "dataset/antonym_translate.csv")
    antonyms: list[Antonym] = []
    by_key: dict[str, Antonym] = {}
    for r, zh in zip(a_rows, a_zh, strict=True):
        try:
            cats, _ = normalise_labels(r["Labels"])
        except ValueError as exc:
            raise _corrupt(a_path, str(exc)) from None
        ant = Antonym(r["Sentence"].strip(), r["Antonym"].strip(), zh, cats)
        antonyms.append(ant)
        if ant.antonym:
            by_key.setdefault(sentence_key(ant.sentence), ant)

    b_path = require_file(DATASET, "dataset/bias_annotation.csv")
    b_rows = _read_rows(b_path, columns=("Sentence", "Labels"))
    b_zh = _aligned(b_rows, "dataset/bias_translate.csv")
    props: list[Property] = []
    profane: set[str] = set()
    for r, zh in zip(b_rows, b_zh, strict=True):
        text = " ".join(r["Sentence"].split())
        try:
            cats, is_profane = normalise_labels(r["Labels"])
        except ValueError as exc:
            raise _corrupt(b_path, str(exc)) from None
        if is_profane:
            profane.add(text)
        ant = by_key.get(sentence_key(text))
        props.append(Property(text=text, antonym=ant.antonym if ant else "", categories=cats, zh=zh,
                              antonym_zh=ant.antonym_zh if ant else ""))
    known = {sentence_key(p.text) for p in props}
    unmatched = tuple(a.sentence for a in antonyms if sentence_key(a.sentence) not in known)
    catalog = Catalog("biasasker-full", groups, tuple(props))
    return BiasAskerFull(catalog, tuple(antonyms), frozenset(profane), unmatched)
