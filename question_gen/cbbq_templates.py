"""CBBQ template filling: reproduces upstream's generated instances row for row.

Upstream (github.com/YFHuangxxxx/CBBQ, `generate_r.py` + `merge.py`) fills each template's `{{NAME1}}` /
`{{NAME2}}` placeholders with every pair from the two bracketed name lists. We re-implement the procedure
as described in upstream-notes.md 2.3 (not copied), because the numbers in the paper were measured on
exactly those rows, and a reader comparing our scores with the paper needs the same questions:

* name lists look like `[40岁的人,  45岁的人]`: no quotes, stray spaces. Upstream quotes every run of
  word characters and `ast.literal_eval`s the result, so a name with inner spaces becomes adjacent string
  literals that Python concatenates. We split on commas and delete whitespace inside each item, which is
  the same outcome without evaluating anything.
* ambiguous: two rows per (name1, name2): NAME1->name1/NAME2->name2, then the names swapped, so both
  mention orders appear. The answer slots are NOT swapped: ans0 always holds the NAME1 group.
* disambiguous: same two rows, but the swapped row replaces only the FIRST occurrence of each
  placeholder; later mentions keep name1/name2 so the disambiguating facts stay with the same group.
* disease: no swap (one row per pair) and fixed answer strings.
* rows: neg templates then non-neg, `example_id` counted from 1 per (category, context).
* every cell is copied from the template row, quirks included (4 race templates say category
  "religion"; 2 rows of race's non-neg file say "neg"): `Instance.upstream_row()` keeps them, while a
  probe's category is the folder it came from.

Upstream never stored which answer slot holds the stereotyped group; `target_slots()` derives it
(upstream-notes 2.4): in disambiguous items the fact always contradicts the stereotype, so the target is
1 - label for neg questions and the label for non-neg ones; an ambiguous template takes the slot of its
disambiguous twin (same polarity and question, its context is the twin's prefix, same name lists), else
the slot its names hold among the category's known target names, else the category's only slot.

The data is CC BY-SA 4.0 and is read from harness.core.paths.data_dir(); nothing of it is stored in the repo.
"""

from __future__ import annotations

import csv
import functools
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import DataMissingError
from harness.core.paths import data_dir

CATEGORIES: tuple[str, ...] = (
    "SES", "age", "disability", "disease", "educational_qualification", "ethnicity", "gender",
    "household_registration", "nationality", "physical_appearance", "race", "region", "religion",
    "sexual_orientation",
)
CONTEXTS: tuple[str, ...] = ("ambiguous", "disambiguous")
POLARITY_FILES: tuple[tuple[str, str], ...] = (("neg", "neg"), ("non_neg", "nonneg"))
NAME1, NAME2 = "{{NAME1}}", "{{NAME2}}"
UNKNOWN_SLOT = 2  # ans2 is always the "unknown" option in every template
#: the category whose rows are neither swapped nor doubled (upstream-notes 2.3 item 5)
NO_SWAP_CATEGORIES = frozenset({"disease"})


@dataclass(frozen=True, slots=True)
class Template:
    """One CSV row of templates_generate_{neg,nonneg}.csv, with its name lists parsed."""

    category: str
    context_condition: str
    row: int  # 0-based position in the category/context's neg+nonneg concatenation
    question_index: str
    polarity: str  # "neg" | "non_neg"
    subcategory: str
    bias_targeted_groups: str
    source: str
    context: str
    names1: tuple[str, ...]
    names2: tuple[str, ...]
    question: str
    ans0: str
    ans1: str
    ans2: str
    label: int

    @property
    def rows_per_pair(self) -> int:
        return 1 if self.category in NO_SWAP_CATEGORIES else 2

    @property
    def instance_count(self) -> int:
        return len(self.names1) * len(self.names2) * self.rows_per_pair


@dataclass(frozen=True, slots=True)
class Instance:
    """One generated CBBQ question, the columns of upstream's ambiguous.csv/disambiguous.csv plus the
    target slot (index into (ans0, ans1, ans2) of the option naming the stereotyped group)."""

    example_id: int
    question_index: str
    polarity: str
    context_condition: str
    category: str
    subcategory: str
    bias_targeted_groups: str
    source: str
    context: str
    question: str
    ans0: str
    ans1: str
    ans2: str
    label: int
    target: int
    template_row: int
    upstream_category: str = ""  # the CSV's category cell; differs from `category` in 4 race templates

    @property
    def options(self) -> tuple[str, str, str]:
        return (self.ans0, self.ans1, self.ans2)

    def upstream_row(self) -> list[str]:
        """The row as upstream's merged CSV has it (column order of `UPSTREAM_COLUMNS`)."""
        return [str(self.example_id), self.question_index, self.polarity, self.context_condition,
                self.upstream_category or self.category, self.subcategory, self.bias_targeted_groups, self.source,
                self.context,
                self.question, self.ans0, self.ans1, self.ans2, str(self.label)]


UPSTREAM_COLUMNS = ("example_id", "question_index", "question_polarity", "context_condition", "category",
                    "subcategory", "bias_targeted_groups", "source", "context", "question", "ans0", "ans1",
                    "ans2", "label")


def parse_names(cell: str) -> tuple[str, ...]:
    """`[a, b c,  d]` -> ("a", "bc", "d"); `[]` -> (). See the module docstring for why spaces vanish."""
    inner = cell.strip()
    if inner.startswith("["):
        inner = inner[1:]
    if inner.endswith("]"):
        inner = inner[:-1]
    names = ("".join(item.split()) for item in inner.split(","))
    return tuple(n for n in names if n)


def templates_root() -> Path:
    return data_dir() / "cbbq" / "data"


def load_templates(category: str, context: str) -> tuple[Template, ...]:
    """Neg templates then non-neg ones, as upstream's merge.py concatenates them (cached per data dir)."""
    return _load_templates(str(templates_root()), category, context)


@functools.lru_cache(maxsize=64)
def _load_templates(root: str, category: str, context: str) -> tuple[Template, ...]:
    if category not in CATEGORIES:
        raise DataMissingError(f"Unknown CBBQ category {category!r}; known: {', '.join(CATEGORIES)}.")
    out: list[Template] = []
    for _, pol_file in POLARITY_FILES:
        path = Path(root) / category / context / f"templates_generate_{pol_file}.csv"
        if not path.is_file():
            raise DataMissingError(
                f"CBBQ templates are missing ({path}); fetch them with `harness data pull cbbq` "
                "or point HARNESS_DATA_DIR at a copy.")
        with path.open(encoding="utf-8-sig", newline="") as fh:
            for rec in csv.DictReader(fh):
                out.append(Template(
                    category=rec["category"], context_condition=rec["context_condition"], row=len(out),
                    question_index=rec["question_index"], polarity=rec["question_polarity"],
                    subcategory=rec["subcategory"], bias_targeted_groups=rec["bias_targeted_groups"],
                    source=rec["source"], context=rec["context"], names1=parse_names(rec["NAME1"]),
                    names2=parse_names(rec["NAME2"]), question=rec["question"], ans0=rec["ans0"],
                    ans1=rec["ans1"], ans2=rec["ans2"], label=int(rec["label"])))
    return tuple(out)


def _fill(text: str, n1: str, n2: str) -> str:
    return text.replace(NAME1, n1).replace(NAME2, n2)


def _fill_first_swapped(text: str, n1: str, n2: str) -> str:
    """Swap the first mention of each placeholder; later mentions keep their own group."""
    return text.replace(NAME1, n2, 1).replace(NAME2, n1, 1).replace(NAME1, n1).replace(NAME2, n2)


def _contexts(t: Template, n1: str, n2: str) -> Iterator[str]:
    yield _fill(t.context, n1, n2)
    if t.rows_per_pair == 1:
        return
    if t.context_condition == "ambiguous":
        yield _fill(t.context, n2, n1)
    else:
        yield _fill_first_swapped(t.context, n1, n2)


def disamb_target(polarity: str, label: int) -> int:
    """In CBBQ's disambiguated items the fact contradicts the stereotype (upstream-notes 2.4)."""
    return 1 - label if polarity == "neg" else label


def _names_in_answers(t: Template) -> bool:
    """True when ans0 names the NAME1 group and ans1 the NAME2 group (not fixed answer strings)."""
    return NAME1 in t.ans0 and NAME2 in t.ans1


def target_slots(category: str) -> dict[tuple[str, int], tuple[int, str]]:
    """(context, template row) -> (target slot, how it was derived) for every template of a category."""
    return _target_slots(str(templates_root()), category)


@functools.lru_cache(maxsize=32)
def _target_slots(root: str, category: str) -> dict[tuple[str, int], tuple[int, str]]:
    amb = load_templates(category, "ambiguous")
    dis = load_templates(category, "disambiguous")
    slots: dict[tuple[str, int], tuple[int, str]] = {}
    target_names: Counter[str] = Counter()
    other_names: Counter[str] = Counter()
    for t in dis:
        slot = disamb_target(t.polarity, t.label)
        slots[("disambiguous", t.row)] = (slot, "label")
        if not _names_in_answers(t):
            continue  # fixed answer strings: the name slot says nothing about the answer slot
        target_names.update(t.names1 if slot == 0 else t.names2)
        other_names.update(t.names2 if slot == 0 else t.names1)
    twins: dict[tuple[str, str, tuple[str, ...], tuple[str, ...]], list[Template]] = {}
    for t in dis:
        twins.setdefault((t.polarity, t.question, t.names1, t.names2), []).append(t)
    pending: list[Template] = []
    for t in amb:
        found = {disamb_target(d.polarity, d.label)
                 for d in twins.get((t.polarity, t.question, t.names1, t.names2), ())
                 if d.context.startswith(t.context)}
        if len(found) == 1:
            slots[("ambiguous", t.row)] = (found.pop(), "twin")
        else:
            pending.append(t)
    category_slots = Counter(s for s, _ in slots.values())
    by_answers: dict[tuple[str, str, str], set[int]] = {}
    for t in dis:
        by_answers.setdefault((t.polarity, t.ans0, t.ans1), set()).add(disamb_target(t.polarity, t.label))
    for t in pending:
        answer_slots = by_answers.get((t.polarity, t.ans0, t.ans1), set())
        score0 = sum(target_names[n] - other_names[n] for n in t.names1)
        score1 = sum(target_names[n] - other_names[n] for n in t.names2)
        if not _names_in_answers(t) and len(answer_slots) == 1:
            slots[("ambiguous", t.row)] = (next(iter(answer_slots)), "answers")
        elif _names_in_answers(t) and score0 != score1:
            slots[("ambiguous", t.row)] = (0 if score0 > score1 else 1, "names")
        elif len(answer_slots) == 1:
            slots[("ambiguous", t.row)] = (next(iter(answer_slots)), "answers")
        else:
            slots[("ambiguous", t.row)] = (category_slots.most_common(1)[0][0], "category")
    return slots


def _instance(t: Template, category: str, context: str, n1: str, n2: str, context_text: str, example_id: int,
              target: int) -> Instance:
    """`category`/`context` are the folder's (what the suite selected); the CSV's own category cell is kept
    for upstream_row() only (4 race templates say "religion": upstream's files carry that through)."""
    return Instance(example_id=example_id, question_index=t.question_index, polarity=t.polarity,
                    context_condition=context, category=category, upstream_category=t.category,
                    subcategory=t.subcategory,
                    bias_targeted_groups=t.bias_targeted_groups, source=t.source, context=context_text,
                    question=_fill(t.question, n1, n2), ans0=_fill(t.ans0, n1, n2), ans1=_fill(t.ans1, n1, n2),
                    ans2=_fill(t.ans2, n1, n2), label=t.label, target=target, template_row=t.row)


def iter_instances(category: str, context: str) -> Iterator[Instance]:
    """Every generated instance of one category and context, in upstream's order."""
    slots = target_slots(category)
    example_id = 0
    for t in load_templates(category, context):
        target = slots[(context, t.row)][0]
        for n1, n2 in itertools.product(t.names1, t.names2):
            for ctx in _contexts(t, n1, n2):
                example_id += 1
                yield _instance(t, category, context, n1, n2, ctx, example_id, target)


def instance_count(category: str, context: str) -> int:
    """Arithmetic count (no filling): sum over templates of |names1| x |names2| x rows per pair."""
    return sum(t.instance_count for t in load_templates(category, context))


def instances_at(category: str, context: str, indices: list[int]) -> Iterator[Instance]:
    """Instances at the given 0-based positions (sorted, deduplicated), filling only the templates that
    hold them: sampling a few rows of a 13,528-row category costs microseconds, not a full pass."""
    wanted = sorted(set(indices))
    if not wanted:
        return
    slots = target_slots(category)
    start = 0
    pos = 0
    for t in load_templates(category, context):
        end = start + t.instance_count
        if wanted[pos] >= end:
            start = end
            continue
        target = slots[(context, t.row)][0]
        while pos < len(wanted) and wanted[pos] < end:
            pair, variant = divmod(wanted[pos] - start, t.rows_per_pair)
            n1, n2 = t.names1[pair // len(t.names2)], t.names2[pair % len(t.names2)]
            ctx = list(_contexts(t, n1, n2))[variant]
            yield _instance(t, category, context, n1, n2, ctx, wanted[pos] + 1, target)
            pos += 1
        if pos >= len(wanted):
            return
        start = end
