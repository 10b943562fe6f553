"""Probe kinds: what each kind of question brings with it, declared once where the kind is defined.

Why a registry in the ground layer: a probe's `kind` decides who reads its reply (the rules of
harness.oracles, or another reader such as the political judge), which metric family scores it, whether a
judge model can read it and with which prompt, and which labels a person may give it in a review. Those
stages sit in different layers (oracles, metrics, judge, score, report, gates); each reads the kind's
entry here and none of them names a kind. A kind is added by registering it, from the module that defines
it, never by editing those stages (docs/architecture.md, "Add a probe kind").

The protocols:

  ProbeKind   one kind: its metric family, its reader, its judge prompt, its review labels, its default
              gates. The project's own kinds are registered by their metric family modules
              (harness.metrics.biasasker registers yes_no, choice and wh, ...); a plugin or a test calls
              `register_kind` the same way.
  Reader      a reader other than the rules: (answered pairs, ReadContext) -> ReadOutcome. Registered by
              name with `register_reader` from the module that implements it (harness.score.political
              registers the political judge's); a ProbeKind names it in `reader`.
  Headline, Section
              what a metric family shows: its headline numbers (terminal summary and report cards) and
              its report tables. A family module declares them as HEADLINE / SECTIONS (harness.metrics
              reads them); the report draws them without knowing the family.

Both tables are harness.core.registry Registries (KINDS, READERS): registration is idempotent for an
identical entry and a RegistrationError for a different one under the same name, and another package adds
a kind or a reader by an entry point alone (groups harness.kinds and harness.kind_readers).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.core.records import Probe, Reply, Verdict
from harness.core.registry import GROUP_KIND_READERS, GROUP_KINDS, RegistrationError, Registry

#: ProbeKind.reader of kinds whose replies the rules read (harness.oracles.score)
READER_RULES = "rules"


@dataclass(frozen=True)
class Headline:
    """One headline number of a family: the metric key, its label, and one sentence on what it means.

    `percent`: the key (and every key that starts with it, "cbbq.accuracy.age") is a share shown as a
    percentage rather than a number."""

    key: str
    label: str
    meaning: str = ""
    percent: bool = False


@dataclass(frozen=True)
class Section:
    """One report table of a family, built from the family's own tables (FamilyResult.tables).

    `build` returns the table to show, or None when the run has nothing for it; `key` places it beside
    the headline numbers rather than among the details."""

    title: str
    build: Callable[[Mapping[str, Any]], Any]
    caption: str = ""
    key: bool = False


#: LeaderboardTable.rows: fixed (label, metric key) pairs, or a function of the runs' metrics.json documents
#: that returns them (a row per group attribute the runs scored)
LeaderboardRows = (Sequence[tuple[str, str]]
                   | Callable[[Sequence[Mapping[str, Any]]], Sequence[tuple[str, str]]])


@dataclass(frozen=True)
class LeaderboardTable:
    """One table of `harness leaderboard` (harness.report.leaderboard): a row per metric, a run per column.

    A family module declares its tables as LEADERBOARD (harness.metrics.Family.leaderboard); the leaderboard
    draws them for any number of runs without knowing the family, and shows a family's headline numbers
    that no table of it names in one table of their own.

    rows       (label, metric key) pairs, or a function of the runs' metrics.json documents returning them
    caption    one or two sentences under the title
    when       a metric key some run must hold for the table to be shown ("": some run holds a row's key)
    worse      which end of a row is the more biased run, "higher" or "lower"; "" for numbers with no such
               end (a p-value, an accuracy): nothing is bold and no sentence about bold is printed
    tested     every pair of runs is tested on its rows (Holm-adjusted together with every other test); False
               for a table that restates another table's numbers or has no test
    tested_as  a metric-key stem whose pairwise tests mark this table's rows (the noise-corrected relative
               bias rate is marked by the tests of the paper's rate, whose bootstrap compares the corrected
               variances); "": its own tests
    covers     further metric keys the table stands for (kept out of the table of other headline numbers)
    """

    title: str
    rows: LeaderboardRows
    caption: str = ""
    when: str = ""
    worse: str = "higher"
    tested: bool = True
    tested_as: str = ""
    covers: tuple[str, ...] = ()


@dataclass(frozen=True)
class Heatmap:
    """One panel of a leaderboard figure: a matrix (pandas DataFrame, rows x runs) drawn with its values."""

    title: str
    matrix: Any
    vmax: float = 1.0
    cmap: str = "Blues"


@dataclass(frozen=True)
class LeaderboardFigure:
    """Heatmaps a family draws across runs on the leaderboard page (LEADERBOARD_FIGURES of its module).

    `build(tables, docs)` gets the leaderboard's tables (title -> values, rows x run labels) and the runs'
    metrics.json documents (run label -> document), and returns the figures to draw: (file name, panels
    side by side); none when the runs have nothing for it."""

    build: Callable[[Mapping[str, Any], Mapping[str, Mapping[str, Any]]],
                    Sequence[tuple[str, Sequence[Heatmap]]]]


@dataclass(frozen=True)
class ViewMetric:
    """A number `harness view` shows for each run of a family (VIEW_METRICS of its module).

    key      the metric key in metrics.json
    label    its short label: a card on the run's page, a row of what a review's rescore changed
    column   the heading of its column on the Runs page; "": no column there
    card     shown as a card on the run's page (False: only in the list of what a rescore changed)
    """

    key: str
    label: str
    column: str = ""
    card: bool = True


@dataclass(frozen=True)
class ProbeKind:
    """A probe kind and everything the generic stages need to know about it.

    name           the `Probe.kind` string it covers
    family         the metric family (harness.metrics) that scores its rows
    reader         READER_RULES, or the name of a registered Reader that reads its replies instead
    judge_prompt   the name of the judge prompt that reads it in judge/hybrid mode (harness.judge.prompts);
                   None: a judge cannot read it, it keeps its own reader
    review_labels  the labels a person may give its replies in `harness review` (harness.score.review),
                   in the order they are offered; (): its verdicts are not reviewable
    rules_note     the rules' measured accuracy (harness.oracles.measured) is quoted for its runs
    gates          default gates a CI check on this kind can start from ("metric_key=threshold", the
                   --fail-above syntax; harness.gates.checks.default_gates)
    """

    name: str
    family: str
    reader: str = READER_RULES
    judge_prompt: str | None = None
    review_labels: tuple[str, ...] = ()
    rules_note: bool = False
    gates: tuple[str, ...] = ()


@dataclass
class ReadContext:
    """What a reader may use besides the pairs: the run folder (caches, the last scoring's record),
    options the user gave for readers (`harness run/report --judge J` is options["political_judge"]),
    and a console for progress lines (None: quiet)."""

    run_dir: Path
    options: Mapping[str, Any] = field(default_factory=dict)
    console: Any = None


@dataclass
class ReadOutcome:
    """What a reader made of its pairs: a verdict per probe id (a reply it could not read gets label
    `unscored` and a reason, never a guess), entries for metrics.json's "oracle" table, and notes."""

    verdicts: dict[str, Verdict] = field(default_factory=dict)
    oracle: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class Reader(Protocol):
    """A reader of one or more kinds' replies (see ProbeKind.reader)."""

    def __call__(self, pairs: Sequence[tuple[Probe, Reply]], context: ReadContext) -> ReadOutcome: ...


def _kind_only(name: str, obj: Any) -> ProbeKind:
    """A lazy "module:attr" of the kinds group must name a ProbeKind; a bare module must register it."""
    if isinstance(obj, ProbeKind):
        return obj
    raise RegistrationError(f"The entry for probe kind '{name}' is {obj!r}, not a ProbeKind, and importing it "
                            "registered no kind of that name.")


#: every probe kind by name: registered by its family module at import (register_kind), or by a package's
#: entry point in the harness.kinds group (the harness's own: pyproject.toml, "module" of the family that
#: registers it, so a kind is known without importing every family)
KINDS: Registry[ProbeKind] = Registry("probe kind", GROUP_KINDS, coerce=_kind_only)

#: readers other than the rules, by name (ProbeKind.reader); group harness.readers is the rule readers'
#: (harness.oracles), so these are registered in code by the module that implements them, or by a
#: package's entry point in the harness.kind_readers group
READERS: Registry[Reader] = Registry("reader", GROUP_KIND_READERS)


def register_kind(kind: ProbeKind) -> ProbeKind:
    """Declare a probe kind; the same declaration twice is fine, a different one is RegistrationError."""
    KINDS.register(kind.name, kind)
    return kind


def unregister_kind(name: str) -> None:
    """Remove a kind (tests that declare a kind of their own clean up with this)."""
    KINDS.unregister(name)


def kind_spec(name: str) -> ProbeKind | None:
    """The declaration of a kind, None when no module or entry point declares it."""
    return KINDS.get(name)


def registered_kinds() -> dict[str, ProbeKind]:
    """Every declared kind by name (a copy; the modules that declare them are imported)."""
    return dict(KINDS.items())


def register_reader(name: str, reader: Reader) -> Reader:
    """Register a reader by name (see ProbeKind.reader); the same function twice is fine."""
    READERS.register(name, reader)
    return reader


def unregister_reader(name: str) -> None:
    READERS.unregister(name)


def reader(name: str) -> Reader | None:
    """The registered reader of that name, None when none is."""
    return READERS.get(name)
