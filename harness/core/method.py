"""A method's one declaration: everything a benchmark contributes, in one typed, frozen object.

Why: a method used to be spread over a generator module, a family module with up to fourteen optional
constants read by getattr in six files, a rule reader and four entry-point groups; a misspelt `HEADLINES`
silently gave nothing. Now a method is one `Method`, built in one file (the harness's own in
harness/declarations/, a plugin's in its package) and named by one entry point of the `harness.methods`
group (`cbbq = "harness.declarations.cbbq:METHOD"`). The tables the stages read (harness.core.kinds.KINDS,
harness.metrics.FAMILIES, harness.oracles.RULE_TABLE, harness.question_gen.suites.GENERATORS) are filled from
the registered methods; the generic layers read these objects' fields, never a module's attributes.

  Method        name, generators (suite YAML `generator:` -> SuiteGenerator), kinds (ProbeKind), rules
                ("mode/kind" -> (probe, reply, method) -> Verdict: how the default Reader, the rules, reads one
                reply), kind_readers (name -> another Reader of a kind's whole batch, ProbeKind.reader: the
                political judge), family (FamilySpec), datasets (names of harness/core/data_registry.json), notes,
                suites (the suite YAML files it ships: a plugin's, listed by `harness suites` and found by
                `--suite NAME` beside the harness's own)
  FamilySpec    compute and what the family shows: headline, sections, leaderboard, view, gates, pairing
  SuiteGenerator  generate / count and the suite's options (variants, answer mode, target kind)

Checked when built and when registered, each failure one sentence naming the method and the field: an
unknown or misspelt field (`headlines=`), a field that should be a function and is not, a kind whose family
the method does not declare, and a headline naming a metric the family never writes (checked on the family's
`example` rows, when it gives them: a plugin's when it is registered, the harness's own by its tests; see METHODS).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from harness.core.entry_points import OWN_DISTRIBUTION
from harness.core.parts import (
    ChanceGate,
    CorrectedRate,
    EstimateGate,
    GateSilence,
    Headline,
    LeaderboardFigure,
    LeaderboardTable,
    ProbeKind,
    Reader,
    Section,
    ShortfallGate,
    ViewMetric,
)
from harness.core.records import Probe, Reply, Verdict
from harness.core.registry import GROUP_METHODS, RegistrationError, Registry

#: a rule: the reading of one reply of one kind, (probe, reply, existence-measurement method) -> Verdict; the
#: rules are the default Reader of every kind (ProbeKind.reader "rules", read by harness.oracles)
Rule = Callable[[Probe, Reply, str], Verdict]


class DeclarationError(RegistrationError):
    """A declaration that is wrong: one sentence naming the method (when known) and the field."""


class Declared:
    """Base of the declaration types: an unknown keyword is one sentence naming the field and the closest
    real one, not a TypeError about __init__ (mypy reports the same misspelling before anything runs)."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        known = [f.name for f in fields(cls)]  # type: ignore[arg-type]
        for key in kwargs:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else f"; its fields: {', '.join(known)}"
                owner = f"Method '{kwargs['name']}': " if cls is Method and "name" in kwargs else ""
                raise DeclarationError(f"{owner}{cls.__name__} has no field '{key}'{hint}.")
        return super().__new__(cls)


@dataclass(frozen=True, kw_only=True)
class FamilySpec(Declared):
    """A metric family: verdict rows -> metrics, and what the report, leaderboard, view and gates show.

    compute        (frame of scored rows, harness.metrics.FRAME_COLUMNS) -> FamilyResult or a mapping
    headline       its headline numbers (terminal summary, report cards, view columns by default)
    sections       its report tables; None: every table it returns
    percent        metric-key prefixes shown as percentages besides the percent headlines
    leaderboard, leaderboard_figures   its tables and heatmaps on `harness leaderboard`
    view_metrics   what `harness view` shows of its runs; None: every headline number
    meta_key       it scores the rows whose probe meta holds this key (counterfactual pairs), not its kinds'
    pair_key       the probe meta key linking partners ("" -> meta_key)
    gate_silence, chance_gates, shortfall_gates, estimate_gates, corrected_rates, compare_hidden   how gates
                   and compare read it
    gates          default gates of a meta_key family, which has no kinds to declare them (ProbeKind.gates):
                   a run whose probes hold its meta_key starts from them (harness.gates.defaults)
    findings_caption  what its findings are ("": the report's default sentence)
    tables, plots, summary, example_rows, paired_outcomes   optional functions (harness.metrics.Family)
    figures        (FamilyResult) -> [harness.core.html_figures.HtmlFigure]: its figures as the report's own
                   markup; a family with them draws its PNGs (plots) only on request (`harness report --plots`)
    compare_test   (key, metrics.json A, metrics.json B) -> (p, test name) of one of its keys, or None: its own
                   test of two runs (harness.report.compare), e.g. BBQ's s_AMB
    example        rows it scores (same columns as compute's; harness.metrics.examples builds them from probes and
                   replies): registration checks every headline key is written on them
    """

    compute: Callable[[Any], Any]
    headline: tuple[Headline, ...] = ()
    sections: tuple[Section, ...] | None = None
    percent: tuple[str, ...] = ()
    leaderboard: tuple[LeaderboardTable, ...] = ()
    leaderboard_figures: tuple[LeaderboardFigure, ...] = ()
    view_metrics: tuple[ViewMetric, ...] | None = None
    meta_key: str = ""
    pair_key: str = ""
    gate_silence: tuple[GateSilence, ...] = ()
    chance_gates: tuple[ChanceGate, ...] = ()
    shortfall_gates: tuple[ShortfallGate, ...] = ()
    estimate_gates: tuple[EstimateGate, ...] = ()
    corrected_rates: tuple[CorrectedRate, ...] = ()
    compare_hidden: tuple[str, ...] = ()
    gates: tuple[str, ...] = ()
    findings_caption: str = ""
    tables: Callable[[Any], Mapping[str, Any]] | None = None
    plots: Callable[..., Any] | None = None
    figures: Callable[[Any], Any] | None = None
    summary: Callable[[Any], Any] | None = None
    example_rows: Callable[[str, Any], Any] | None = None
    paired_outcomes: Callable[[str, Any], Any] | None = None
    compare_test: Callable[[str, Any, Any], Any] | None = None
    example: Callable[[], Any] | None = None


@dataclass(frozen=True, kw_only=True)
class SuiteGenerator(Declared):
    """What turns a suite YAML's settings into probes (harness.question_gen.suites).

    generate(spec, suite_name) -> Iterator[Probe]; count(spec) -> int, without generating; optionally
    generate_at(spec, suite_name, sorted positions) (fast samples), count_by_type(spec) -> {bias_type: n},
    variants(spec) -> [(suite name, spec overrides)] (one YAML file yields several suites), answer_mode (the
    only answer mode its probes can be answered in), target_kind (the adapter kind it must be asked of) and
    sampling_options (the group/property sampling options `harness questions` may pass it)."""

    generate: Callable[[dict[str, Any], str], Iterator[Probe]]
    count: Callable[[dict[str, Any]], int]
    generate_at: Callable[[dict[str, Any], str, list[int]], Iterator[Probe]] | None = None
    count_by_type: Callable[[dict[str, Any]], Mapping[str, int]] | None = None
    variants: Callable[[dict[str, Any]], Any] | None = None
    answer_mode: str = ""
    target_kind: str = ""
    sampling_options: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class Method(Declared):
    """Everything one method contributes (the module docstring lists the fields)."""

    name: str
    generators: Mapping[str, SuiteGenerator] = field(default_factory=dict)
    kinds: tuple[ProbeKind, ...] = ()
    rules: Mapping[str, Rule] = field(default_factory=dict)
    kind_readers: Mapping[str, Reader] = field(default_factory=dict)
    family: FamilySpec | None = None
    datasets: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    suites: tuple[str | os.PathLike[str], ...] = ()

    def __post_init__(self) -> None:
        check(self)


def _fail(method: Method, where: str, what: str) -> DeclarationError:
    return DeclarationError(f"Method '{method.name}': {where} {what}.")


_FUNCTIONS = {FamilySpec: ("compute", "tables", "plots", "figures", "summary", "example_rows", "paired_outcomes",
                           "compare_test", "example"),
              SuiteGenerator: ("generate", "count", "generate_at", "count_by_type", "variants")}


def _functions(method: Method, where: str, obj: FamilySpec | SuiteGenerator) -> None:
    for name in _FUNCTIONS[type(obj)]:
        value = getattr(obj, name)
        if value is not None and not callable(value) or value is None and name in ("compute", "generate", "count"):
            raise _fail(method, f"{where}.{name}", f"is {value!r}, not a function")


def check(method: Method) -> None:
    """Every check that needs no data: types, functions, and kinds scored by a family the method declares."""
    if not isinstance(method.name, str) or not method.name:
        raise DeclarationError(f"A method's name must be a non-empty string, not {method.name!r}.")
    for gen_name, gen in method.generators.items():
        if not isinstance(gen, SuiteGenerator):
            raise _fail(method, f"generators['{gen_name}']", f"is {gen!r}, not a SuiteGenerator")
        _functions(method, f"generators['{gen_name}']", gen)
    for suite in method.suites:
        if not isinstance(suite, str | os.PathLike):
            raise _fail(method, "suites", f"holds {suite!r}, not a suite file's path")
    for kind in method.kinds:
        if not isinstance(kind, ProbeKind):
            raise _fail(method, "kinds", f"holds {kind!r}, not a ProbeKind")
    for where, table in (("rules", method.rules), ("kind_readers", method.kind_readers)):
        for name, reader in table.items():
            if not callable(reader):
                raise _fail(method, f"{where}['{name}']", f"is {reader!r}, not a function")
    if method.family is not None:
        if not isinstance(method.family, FamilySpec):
            raise _fail(method, "family", f"is {method.family!r}, not a FamilySpec")
        _functions(method, "family", method.family)


def check_example(method: Method) -> None:
    """The family's example rows, scored: every headline key must be written (a headline naming a metric the
    family never writes shows nothing, silently, in every report)."""
    family = method.family
    if family is None or family.example is None:
        return
    result = family.compute(family.example())
    written = set(result.metrics if hasattr(result, "metrics") else result)
    for headline in family.headline:
        if not any(key == headline.key or key.startswith(headline.key + ".") for key in written):
            raise _fail(method, "family.headline", f"names '{headline.key}', a metric its family never writes "
                                                   f"on its example rows (it writes {', '.join(sorted(written))})")


def _method_entry(name: str, obj: Any) -> Method:
    """A `harness.methods` entry point must name a Method called like the entry point."""
    if not isinstance(obj, Method):
        raise DeclarationError(f"The entry point for method '{name}' names {obj!r}, not a Method.")
    if name and obj.name != name:
        raise DeclarationError(f"The entry point for method '{name}' names the method '{obj.name}'.")
    if METHODS.origin(name) != OWN_DISTRIBUTION:
        check_example(obj)  # a plugin's, or one registered from code
    return obj


#: every method by name: the harness's own and other packages' from the harness.methods entry points. Every
#: method's example rows are scored when it is registered except the harness's own, whose examples
#: tests/core/test_method_examples.py scores with the same check: scoring every family's examples (and importing
#: their readers) costs over a second of CPU, more than a command's whole start-up, in every process that lists
#: the methods, and a built-in declaration changes only with a commit the tests run on.
METHODS: Registry[Method] = Registry("method", GROUP_METHODS, check=_method_entry, built_in=True)


def register_method(method: Method) -> Method:
    """Register a method from code (a test's): checked as an entry point's is."""
    METHODS.register(method.name, _method_entry(method.name, method))
    return method


def unregister_method(name: str) -> None:
    METHODS.unregister(name)


def parts(of: Callable[[Method], Iterable[tuple[str, Any]]]) -> tuple[Registry[Method], Callable[[Any], Any]]:
    """A derived table's feed: (METHODS, what each method gives the table), for Registry(feed=...)."""
    return METHODS, of
