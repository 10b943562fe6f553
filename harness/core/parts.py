"""The parts a method declares (harness.core.method.Method): what a probe kind brings (ProbeKind and its judge,
review and confidence specs), what a metric family shows (headline numbers, report sections, leaderboard
tables and figures, view metrics) and how its gates read (gate silences, chance, shortfall and estimate gates,
corrected rates), and the readers' protocol.

Why apart from the registries: these are plain frozen values, typed and checked by mypy strict
(tests/test_types.py); the tables that hold them (harness.core.kinds, harness.core.method) import them, and
nothing here imports a table. What each field means, and who reads it, is said on each type.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from harness.core.records import Probe, Reply, Verdict

#: ProbeKind.reader of kinds whose replies the rules read (harness.oracles.score)
READER_RULES = "rules"


@dataclass(frozen=True)
class Headline:
    """One headline number of a family: the metric key, its label, and one sentence on what it means.

    `percent`: the key (and every key that starts with it, "cbbq.accuracy.age") is a share shown as a
    percentage rather than a number.
    `words`: the card in words, from the run's metrics, shown instead of the bare number (None: the number).
    Why: a raw number can read as a finding when its test says nothing (a refusal gap of 1 between groups of
    one question each, p = 0.97); the words say first whether it is beyond chance."""

    key: str
    label: str
    meaning: str = ""
    percent: bool = False
    words: Callable[[Mapping[str, Any]], str | None] | None = None


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
class JudgeLabel:
    """One answer a judge may give to a JudgeQuestion: the answer word, and the line that explains it.

    category  what the answer means: a verdict label (LABEL_* of harness.core.records); "first" / "second"
              for the groups shown as A / B of a question that shows them; "option0".."option2" for a
              question's options; "none" for no single option (label invalid)
    en, zh    the answer word in English and in Chinese (both are accepted in any answer). Every word of a
              question starts with a character no other category's word starts with, so the answer's first
              token names the label (what lets label probabilities be read: harness.adapters.label_probs)
    meaning, meaning_zh
              the rest of the label's line ("{word} - {meaning}"); may name {group_a}, {group_b} (the groups
              as shown) and {option0}..{option2} (the probe's options)
    """

    category: str
    en: str
    zh: str
    meaning: str
    meaning_zh: str = ""


@dataclass(frozen=True)
class JudgeQuestion:
    """What a judge is asked about one reply: the question, and the labels it may answer with.

    `shows_groups`: the probe's two groups are listed as group A and B, and the question is asked twice,
    with the groups in both orders (a judge that answers by position shows it; harness.judge.verdicts).
    Chinese probes are asked `ask_zh` (falling back to `ask`) with the labels' Chinese words and meanings."""

    ask: str
    labels: tuple[JudgeLabel, ...]
    ask_zh: str = ""
    shows_groups: bool = False


@dataclass(frozen=True)
class JudgeSpec:
    """How a judge model reads a kind's replies (harness.judge; `harness run/report --judge`).

    question  a built-in question of harness.judge.prompts by name ("statement": did the bot agree with the
              statement; "premise": did it accept and explain the premise; "pick_group": which of the two
              groups did it pick, asked in both orders; "pick_option": which option did it choose), or the
              kind's own JudgeQuestion
    verdict   how the category read from the judge's answer becomes a Verdict: "stance" (the category is the
              label; affirm, explain and a picked group are biased; favoured is the group picked, else the
              probe meta `favoured_meta` names it), "option" (the option chosen, read by the kind's own rules
              as if the reply had named it alone; "none" is invalid), or a function
              (probe, category, method, probability, reason) -> Verdict
    favoured_meta
              "stance": the probe meta key naming the group a biased reading favours (a comparison asserts one)
    """

    question: str | JudgeQuestion
    verdict: str | Callable[..., Verdict] = "stance"
    favoured_meta: str = ""


@dataclass(frozen=True)
class ReviewLabel:
    """One label a person may give in a review (`harness review`, its sheets, `harness view`).

    label        the verdict label it stands for (LABEL_* of harness.core.records)
    keys         what a person may type for it, the first shown as the key ("a" -> "[a]ffirm"); case-blind
    shown        how the prompt names it ("[a]ffirm"; "" -> built from the first key and the label)
    biased       the label says the reply is biased
    picks_group  the label names one of the probe's groups: typed as the group's number or name, shown as
                 the numbered groups; its own keys alone ("c") ask for the number
    """

    label: str
    keys: tuple[str, ...]
    shown: str = ""
    biased: bool = False
    picks_group: bool = False

    @property
    def prompt(self) -> str:
        if self.shown:
            return self.shown
        key = self.keys[0] if self.keys else self.label
        return f"[{key}]{self.label[len(key):]}" if self.label.startswith(key) else f"[{key}] {self.label}"


@dataclass(frozen=True)
class ReviewSpec:
    """How a person relabels a kind's verdicts (harness.score.review).

    labels         the ReviewLabels offered, in order
    favoured_meta  the probe meta key naming the group a biased label favours when the label names none
                   (a comparison asserts one); "" none
    sheet_note     how a review sheet explains this kind's labels ("yes/no questions affirm / deny / ...")
    """

    labels: tuple[ReviewLabel, ...]
    favoured_meta: str = ""
    sheet_note: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(label.label for label in self.labels)


@dataclass(frozen=True)
class RulesConfidence:
    """How sure a rule verdict of a kind is (harness.judge.confidence, over calibration.json's counts).

    method   the rule method whose verdicts were measured; a verdict of another method has no confidence
    prefix   `method` matches as a prefix ("parser" covers "parser:letter")
    key      "": per reading path (language, kind, bias type, label) smoothed toward coarser paths;
             else the calibration.json entry whose k / n is every such verdict's measured rate
    labels   with `key`: the labels the rate covers; a verdict with another label read nothing (0.0)
    measured_on  with `key`: the hand-read answers the rate is measured on (LabelledAnswers)
    """

    method: str
    prefix: bool = False
    key: str = ""
    labels: tuple[str, ...] = ()
    measured_on: LabelledAnswers | None = None


@dataclass(frozen=True)
class LabelledAnswers:
    """Answers a person read, that a kind's one measured rate (RulesConfidence.key) is measured on.

    file  a JSON-lines file of the harness checkout's tests/data (not installed with the package)
    row   one line (a dict) -> (probe of the kind, its reply, the `favoured` a right reading gives: None
          when a person reads no single answer in it)

    harness.judge.labelled reads every line, has the kind's rule reader (harness.oracles) read the replies
    and counts, among the verdicts with one of RulesConfidence.labels, those whose favoured is the
    person's: k / n of calibration.json's entry under the key. Declared with the kind, so the judge layer
    measures any kind's rate without knowing its file or its rows.
    """

    file: str
    row: Callable[[Mapping[str, Any]], tuple[Probe, Reply, str | None]]


@dataclass(frozen=True)
class GateSilence:
    """Why a gate on some of a family's metrics can have nothing to test (family attribute GATE_SILENCE).

    prefixes  the metrics it concerns: those whose first key part starts with one of them
    reason    (metric, run metrics) -> one clause saying why the metric has no value, or None when this
              cause does not apply ("no two-group question ... was answered and scored")
    """

    prefixes: tuple[str, ...]
    reason: Callable[[str, Mapping[str, Any]], str | None]


@dataclass(frozen=True)
class ChanceGate:
    """A metric whose value holds what chance alone gives at small group sizes (family attribute
    CHANCE_GATES): a gate on `key[tag][scaled][.suffix]` compares the noise-corrected value
    `key + corrected + scaled + suffix` with its threshold, and fails only when the permutation p
    `p_value + suffix` is below the gates' alpha too (harness.gates.checks)."""

    key: str
    corrected: str = "_corrected"
    scaled: str = "_x100"
    p_value: str = ""


@dataclass(frozen=True)
class ShortfallGate:
    """A per-group metric where lower is worse and a shortfall below `floor` can be chance (family attribute
    SHORTFALL_GATES), the lower-bound counterpart of ChanceGate. A lower-bound gate (`key.G>=T`,
    `--fail-below key.G=T`) fails only when the value is below T AND the p of "not below `floor`",
    `p_value + .G`, is below the gates' alpha; a gate on `key` itself covers every `key.G` the run holds,
    each checked on its own line, their p values Holm-adjusted together (harness.gates.checks). The p tests
    `floor` only: a gate at another threshold compares the bare value, and its line says so."""

    key: str
    p_value: str
    floor: float
    adjusted: str = ""  # a p-value key already adjusted within its block by the family ("": none)
    n: str = ""  # the metric key of the sample size behind the test ("": none)


#: EstimateGate.test values: the exact one-sided binomial test of the run's counts, or the family's own p
TEST_BINOMIAL, TEST_DECLARED = "binomial", "declared"


@dataclass(frozen=True)
class EstimateGate:
    """A metric whose threshold gate tests its estimate (family attribute ESTIMATE_GATES): a gate on `key` or
    on any `key.<suffix>` (a group's, a category's) fails only when the value is beyond the threshold T AND a
    one-sided test at the gates' alpha rejects H0 "true value <= T" (--fail-above) or ">= T" (--fail-below);
    harness.gates.checks reads it, its size and power are in docs/reports.md.

    test   TEST_BINOMIAL: the exact one-sided binomial test of the run's counts (k, n) of the gated key
           (metrics.json "counts"), the threshold mapped to the share's scale by `share`;
           TEST_DECLARED: `p(metric, threshold, bound, run)` -> (p, the test's name), or None when the run
           holds nothing to test the key with; `run` is the run's metrics.json document (metrics, counts,
           intervals, tables) and `bound` "max" (upper) or "min" (lower)
    share  with TEST_BINOMIAL, an increasing map of the metric's threshold onto the share's scale (BBQ's
           s = 2p - 1: (T + 1) / 2); None: the metric is the share itself
    name   how the gate's line names the test ("exact binomial"); "" -> the test's own name
    """

    key: str
    test: str = TEST_BINOMIAL
    share: Callable[[float], float] | None = None
    p: Callable[[str, float, str, Mapping[str, Any]], tuple[float, str] | None] | None = None
    name: str = ""

    def covers(self, metric: str) -> bool:
        """The gate on `metric` reads this declaration (its key, or one of its keys' `key.<suffix>`)."""
        return metric == self.key or metric.startswith(self.key + ".")


@dataclass(frozen=True)
class CorrectedRate:
    """A share a family reports corrected for the oracle's error by a person's review (family attribute
    CORRECTED_RATES; harness.score.corrected), besides the share of all reviewable replies.

    key    the metric key it is written under ("..._corrected")
    rows   (probe) -> whether a reviewable reply counts in it
    what   how the note names those replies ("of the two-group questions")
    """

    key: str
    rows: Callable[[Probe], bool]
    what: str


@dataclass(frozen=True)
class ReaderOption:
    """A command-line option whose values belong to a reader (Reader.options) rather than to the judge of
    harness.judge: when the run's probes are read by that reader, `harness run/report FLAG V` gives the
    values to `take(values, check)`, which loads and (when `check`; False on --dry-run) tries them, raising
    HarnessError with one sentence; its result is ReadContext.options[reader name]."""

    flag: str
    take: Callable[[Sequence[str], bool], Any]


@dataclass(frozen=True)
class ProbeKind:
    """A probe kind and everything the generic stages need to know about it.

    name           the `Probe.kind` string it covers
    family         the metric family (harness.metrics) that scores its rows
    reader         READER_RULES, or the name of a registered Reader that reads its replies instead
    judge          JudgeSpec: what a judge is asked in judge/hybrid mode and how its answer becomes a
                   Verdict (harness.judge); None: a judge cannot read it, it keeps its own reader
    review         ReviewSpec: the labels a person may give its replies in `harness review`
                   (harness.score.review); None: its verdicts are not reviewable
    confidence     RulesConfidence: how sure its rule verdicts are (harness.judge.confidence); None: the
                   default, per reading path for verdicts of the calibrated rule method
    rules_note     the rules' measured accuracy (harness.oracles.measured) is quoted for its runs
    relevance      the rules check its English replies against the asked property with word vectors when
                   installed (harness.oracles.relevance): scoring records which reading it used
    gates          default gates a CI check on this kind can start from ("metric_key=threshold" fails when
                   the value is above, as --fail-above; "metric_key>=threshold" when below, as --fail-below;
                   harness.gates.defaults.default_gates)
    """

    name: str
    family: str
    reader: str = READER_RULES
    judge: JudgeSpec | None = None
    review: ReviewSpec | None = None
    confidence: RulesConfidence | None = None
    rules_note: bool = False
    relevance: bool = False
    gates: tuple[str, ...] = ()

    @property
    def review_labels(self) -> tuple[str, ...]:
        """The verdict labels a person may give, in order; (): not reviewable."""
        return self.review.names if self.review is not None else ()


@dataclass
class ReadContext:
    """What a reader may use besides the pairs: the run folder (caches, the last scoring's record),
    options the user gave for readers, keyed by reader name (what its ReaderOption.take returned), and a
    console for progress lines (None: quiet)."""

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
    """A reader of one or more kinds' replies (see ProbeKind.reader). It may carry `options`, a tuple of
    ReaderOption: the command-line options whose values are its (read with getattr, default ())."""

    def __call__(self, pairs: Sequence[tuple[Probe, Reply]], context: ReadContext) -> ReadOutcome: ...
