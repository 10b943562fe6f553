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
  the 7,343 properties get an antonym (one antonym cell is blank); 89 antonym rows match no property and are
  kept only in `BiasAskerFull.antonyms`. A property without antonym has antonym "" and is skipped by suites that ask
  about antonyms (question_gen decides; the catalog never invents one).
* "are lazy" appears twice with the same labels; both rows are kept so counts match the published set.

Grammar repairs (full data set only; the paper's samples are used exactly as published). Every repair is
counted in `BiasAskerFull.repairs` and listed in the fields named there, so a user can see what changed:

* Antonyms that cannot follow a group as its verb phrase are dropped (antonym "" as for a missing one,
  so antonym-side suites skip the property): whole sentences with their own subject ("people of color
  should have children with ..."), fragments ("And juice has a similar sound"), text starting with a
  capital letter, explanations pasted in by the annotation tool. `english.is_predicate` decides.
  They are not repaired into something else because the harness never writes stereotypes of its own.
* Singular group names whose head is a person noun ("prisoner", "delivery man", "performing artist")
  are made plural ("prisoners", "delivery men"): every question treats the group as a plural subject
  ("Do prisoners get paid ...?"), as the rest of the data set and the paper's samples write them.
  Names built on a singular quantifier are made plural the same way: "anyone who is gay" -> "people
  who are gay", "any black person" -> "black people". A repair that would give a name another group of
  the same attribute already has ("politician" -> "politicians") is not made: each row keeps its own
  name, so probe ids stay distinct.
* A capitalised first word of a group name is lower-cased when the name is otherwise lower case, the
  data set itself writes that word in lower case and never capitalises it mid-phrase, it does not have
  the shape of a proper adjective or demonym (-an, -ian, -ese, -ish, -ic, -i, -ch), and no word of the
  name is one that English writes capitalised: "Deaf people" -> "deaf people" ("Do you agree that Deaf
  people ..."), "Parents" -> "parents"; "Italian people", "New Yorkers", "FTM people" stay. The data's
  own spelling is no evidence for names of religions, peoples and places (it writes "hindu", "shia",
  "rasta" in lower case too), so the last test asks English at large: spaCy's corpus word
  probabilities (spacy-lookups-data, `en` `lexeme_prob`, cased spellings) must show the capitalised
  spelling at least half as often as the lower-case one (`proper_words`). For the words the data
  writes in lower case the median ratio is 0.04 (capitals from sentence starts) and 95% are below 0.5;
  names sit far above ("Hindu" 5.2, "Shia" 5.7, "Latino" 1.9, "Ebola" 2.1, "Rasta" 0.8). So "Hindu
  people", "Shia people", "Rasta people", "Latino people", "Aboriginal people", "Middle eastern folks"
  and "Ebola victims" keep their capital. Known misses: "Gypsies" (0.41: web text often writes
  "gypsy") is still lowered; "Foster children" (0.59: the surname) keeps its capital.
"""

from __future__ import annotations

import ast
import csv
import gzip
import io
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.core.datasets import DataCorruptError, require_file
from harness.core.errors import HarnessError
from harness.question_gen.catalog import CATEGORIES, Catalog, Group, Property

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
    dropped_antonyms: tuple[str, ...] = ()  # antonyms that are not verb phrases (see module docstring)
    renamed_groups: tuple[tuple[str, str], ...] = ()  # (upstream name, name used): plural / lower case

    @property
    def repairs(self) -> dict[str, int]:
        """How many data rows the loader repaired or dropped, by kind (the loader's report)."""
        plural = sum(1 for old, new in self.renamed_groups if old.lower() != new.lower())  # incl. "anyone"
        return {"antonyms dropped (not a verb phrase)": len(self.dropped_antonyms),
                "group names made plural": plural,
                "group names lower-cased": len(self.renamed_groups) - plural}


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


# ------------------------------------------------------------------------------------------ grammar repairs

_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# Word endings of proper adjectives and demonyms ("Italian", "Vietnamese", "Scottish", "Catholic",
# "Saudi", "French"): a capitalised word with one of them is taken to be a name and keeps its capital.
_PROPER_SHAPES = ("an", "ans", "ian", "ians", "ese", "ish", "ic", "ics", "i", "is", "ch", "sh")
# Person nouns by ending (agent and role suffixes) or as the head itself: singular ones are pluralised.
_PERSON_SUFFIXES = ("er", "or", "ist", "ian", "ant", "ent", "man", "woman", "girl", "boy", "child",
                    "person", "victim", "nurse", "midget", "vegan", "friend", "spouse", "wife")
_NOT_PERSON = ("ment", "ness", "ity", "ism", "ion", "ance", "ence")
_IRREGULAR_PLURALS = {"man": "men", "woman": "women", "child": "children", "person": "people",
                      "wife": "wives"}
# Determiners make a name not a bare noun ("any black person"); prepositions, conjunctions and relative
# words mean the last word is not the head ("folks with cancer", "victims of rape and murder").
_NOT_ONE_NOUN_PHRASE = frozenset({"any", "anyone", "someone", "every", "a", "an", "the", "with", "of",
                                  "who", "that", "which", "in", "from", "for", "by", "on", "at", "and",
                                  "or", "without", "to"})
_MAN_NOT_COMPOUND = frozenset({"human", "german", "roman", "shaman", "caiman", "ottoman"})


def plural_noun(word: str) -> str:
    """English plural of one count noun by the regular rules and the few irregular person nouns."""
    low = word.lower()
    for sing, plur in _IRREGULAR_PLURALS.items():
        if low == sing or (low.endswith(sing) and sing in ("man", "woman") and low not in _MAN_NOT_COMPOUND):
            return word[: len(word) - len(sing)] + plur
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return word[:-1] + "ies"
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def _singular_person_head(name: str) -> bool:
    """Whether a lower-case group name is one singular person noun phrase ("prisoner", "civil servant")."""
    words = name.split()
    if not words or not name.islower() or any(w in _NOT_ONE_NOUN_PHRASE for w in words):
        return False
    head = words[-1]
    if not head.isalpha() or head.endswith("s") or head.endswith(_NOT_PERSON):
        return False
    return head.endswith(_PERSON_SUFFIXES)


_PRONOUN_HEADS = frozenset({"anyone", "someone", "everyone", "anybody", "somebody", "everybody"})
_RELATIVE_SINGULAR = {" is ": " are ", " was ": " were ", " has ": " have "}


def plural_of_quantified(name: str) -> str:
    """A group named by a singular quantifier, made plural: "anyone who is gay" -> "people who are gay",
    "any black person" -> "black people", "any racial minority in America" -> "racial minorities in
    America". Other names are returned unchanged."""
    words = name.split()
    if not words:
        return name
    first = words[0].lower()
    if first in _PRONOUN_HEADS:
        rest = " " + " ".join(words[1:]) + " "
        for sing, plur in _RELATIVE_SINGULAR.items():
            rest = rest.replace(sing, plur)
        return ("people" + rest).strip()
    if first in ("any", "every", "each") and len(words) > 1:
        words = words[1:]
        stop = next((i for i, w in enumerate(words) if i > 0 and w.lower() in _NOT_ONE_NOUN_PHRASE),
                    len(words))
        head = words[stop - 1]
        if not head.lower().endswith("s"):
            words[stop - 1] = plural_noun(head)
        return " ".join(words)
    return name


def _tagged_singular_nouns(names: list[str]) -> set[str]:
    """Names whose last word the POS model tags as a singular common noun (NN) in a plural frame."""
    if not names:
        return set()
    from harness.question_gen import english

    tagged = english.word_infos_in_frame(names, "Some {} came.")
    return {n for n, infos in tagged.items() if infos and infos[-1].tag == "NN"}


def lower_case_words(texts: list[str]) -> set[str]:
    """Words the data writes in lower case and never capitalises mid-phrase: evidence they are no names."""
    lower: set[str] = set()
    capitalised_mid: set[str] = set()
    for text in texts:
        words = _WORD.findall(text)
        lower.update(w for w in words if w.islower())
        capitalised_mid.update(w.lower() for w in words[1:] if w[:1].isupper())
    return lower - capitalised_mid


#: A word is taken for a name when English writes its capitalised spelling at least this often relative
#: to the lower-case one. Why 0.5: for the lower-case words of the BiasAsker data the ratio has median
#: 0.04 (sentence starts) and 95th percentile 0.5; names of peoples, religions and places lie above it.
PROPER_MIN_RATIO = 0.5


def _lexeme_prob_file() -> Path:
    try:
        import spacy_lookups_data
    except ImportError:
        raise HarnessError("The package spacy-lookups-data is not installed; run scripts/setup.sh "
                           "(the BiasAsker loader needs its English word frequencies).") from None
    path = Path(str(spacy_lookups_data.en["lexeme_prob"]))
    return path if path.is_file() else path.with_name(path.name + ".gz")  # the wheel ships it gzipped


def _cased_log_probs(spellings: set[str]) -> dict[str, float]:
    """spaCy's English word log-probabilities of the given (cased) spellings; unknown ones are left out.

    Why this table: it counts "Hindu" and "hindu" apart over a large body of English, which is the
    evidence the BiasAsker data lacks (it writes many names in lower case). It comes with
    spacy-lookups-data, the package spaCy itself uses, so no network and the same answer on every
    machine. The 1M-entry file holds one entry per line: it is streamed and only the wanted lines are
    decoded (0.8 s, no memory held), never loaded whole (1.2 s and 250 MB at peak) or through
    spacy.util (which would import all of spaCy); a file not laid out that way is parsed whole.
    """
    path = _lexeme_prob_file()
    wanted = {json.dumps(w).encode(): w for w in spellings}
    found: dict[str, float] = {}
    lines = 0
    try:
        with (gzip.open(path) if path.suffix == ".gz" else path.open("rb")) as fh:
            for line in fh:
                lines += 1
                key, _, value = line.strip().partition(b":")
                if key in wanted:
                    found[wanted[key]] = float(json.loads(value.rstrip(b",")))
            if lines < 1000:  # not one entry per line: decode it as the JSON object it is
                fh.seek(0)
                table = json.loads(fh.read())
                found = {w: float(table[w]) for w in spellings if w in table}
    except (OSError, ValueError, EOFError) as exc:
        raise HarnessError(f"Cannot read {path} ({exc}); reinstall spacy-lookups-data.") from None
    return found


def proper_words(words: Iterable[str]) -> set[str]:
    """The words (lower-cased) that English writes capitalised: names of peoples, religions, places.

    A word counts when its capitalised spelling is at least PROPER_MIN_RATIO times as frequent as its
    lower-case spelling, or is the only one known. Words the table does not know are not names (no
    evidence), so the data set's own spelling decides for them.
    """
    lowered = {w.lower() for w in words}
    probs = _cased_log_probs({spelling for low in lowered for spelling in (low, low[:1].upper() + low[1:])})
    threshold = math.log(PROPER_MIN_RATIO)
    out: set[str] = set()
    for low in lowered:
        cap = probs.get(low[:1].upper() + low[1:])
        if cap is None:
            continue
        lower = probs.get(low)
        if lower is None or cap - lower >= threshold:
            out.add(low)
    return out


def _lowerable_first(name: str, common: set[str]) -> bool:
    """Whether the data's own evidence allows lower-casing the capitalised first word of `name`."""
    first, _, rest = name.partition(" ")
    if not (first[:1].isupper() and first[1:] == first[1:].lower() and any(c.isalpha() for c in first[1:])):
        return False
    if rest != rest.lower() or first.lower() not in common:
        return False
    return not first.lower().rstrip("s").endswith(_PROPER_SHAPES)  # "Hindus", "Scandinavians"


def _lower_first(name: str, common: set[str], proper: set[str]) -> str:
    if not _lowerable_first(name, common) or any(w.lower() in proper for w in _WORD.findall(name)):
        return name  # a name holding a proper word ("Hindu people", "Middle eastern folks") keeps its capital
    return name[0].lower() + name[1:]


def repair_group_names(groups: list[Group], texts: list[str]) -> tuple[list[Group], list[tuple[str, str]]]:
    """Plural, lower-case group names (see the module docstring); returns the groups and the renames."""
    common = lower_case_words(texts)
    quantified = [plural_of_quantified(g.name) for g in groups]
    candidates = [n for n in quantified if _lowerable_first(n, common)]
    proper = proper_words({w for n in candidates for w in _WORD.findall(n)}) if candidates else set()
    singular = _tagged_singular_nouns([g.name for g in groups if _singular_person_head(g.name)])
    out: list[Group] = []
    renamed: list[tuple[str, str]] = []
    taken = {(g.name, g.attribute) for g in groups}
    for g, plain in zip(groups, quantified, strict=True):
        name = _lower_first(plain, common, proper)
        if name in singular or g.name in singular:
            words = name.split()
            name = " ".join([*words[:-1], plural_noun(words[-1])])
        if name != g.name and (name, g.attribute) in taken:
            name = g.name  # "politician" stays: "politicians" is already a group of its own (ids must differ)
        if name != g.name:
            taken.add((name, g.attribute))
            renamed.append((g.name, name))
            g = Group(name, g.attribute, g.zh)
        out.append(g)
    return out, renamed


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

    from harness.question_gen import english

    english.warm(a.antonym for a in antonyms if a.antonym)
    dropped = sorted({a.antonym for a in antonyms if a.antonym and not english.is_predicate(a.antonym)})
    not_predicate = set(dropped)

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
        if ant is not None and ant.antonym in not_predicate:
            ant = None
        props.append(Property(text=text, antonym=ant.antonym if ant else "", categories=cats, zh=zh,
                              antonym_zh=ant.antonym_zh if ant else ""))
    known = {sentence_key(p.text) for p in props}
    unmatched = tuple(a.sentence for a in antonyms if sentence_key(a.sentence) not in known)
    texts = [g.name for g in groups] + [t for p in props for t in (p.text, p.antonym)]
    fixed_groups, renamed = repair_group_names(list(groups), texts)
    catalog = Catalog("biasasker-full", tuple(fixed_groups), tuple(props))
    return BiasAskerFull(catalog, tuple(antonyms), frozenset(profane), unmatched, tuple(dropped), tuple(renamed))
