"""Bias metrics, one *family* per kind of test, behind a small registry.

Why a registry: a run may hold BiasAsker probes, CBBQ probes, or both, and each family has its own paper
and its own numbers. Scoring (harness.score.scoring) builds one pandas frame of scored probes, hands each
family the rows of the probe kinds it understands, and merges what comes back. The report shows every
family that is present, with the headline numbers and tables the family declares. Adding a family never
touches scoring or reporting code.

How a family plugs in
---------------------
A family is the `family` of a method's declaration (harness.core.method.Method, a FamilySpec: `compute`
and what the family shows, docs/architecture.md "A method"), registered in FAMILIES under the method's name
when the method is (its entry point of the harness.methods group); a test calls `register_family(Family(name,
FamilySpec(...)))`. `Family` reads only the declaration's fields, never a module's attributes:

    compute(df: pandas.DataFrame) -> FamilyResult | Mapping[str, Any]

and optionally headline, sections, percent, leaderboard, leaderboard_figures, view_metrics, meta_key, pair_key,
the gate declarations, findings_caption, and the functions tables(df), plots(df, out_dir[, result=]),
summary(result), example_rows(key, rows), paired_outcomes(key, verdicts).

`df` has one row per scored probe (only replies with status "ok"; errors are never findings), columns
FRAME_COLUMNS: probe fields (probe_id, suite, lang, kind, bias_type, text, groups, attribute, property,
categories, options, meta), the reply (target, reply) and the verdict (label, biased, favoured, score,
method, evidence), plus the original `probe` (Probe) and `verdict` (Verdict) objects for families that
prefer to build their own table, and the reply's `usage` dict (what a scoring answer mode measured: the
CHBias perplexities). Tuples stay tuples, `meta` and `usage` stay dicts.

A plain mapping returned by compute() is accepted and normalised by `as_result()`: numeric values become
flat metrics (their keys must already carry the family prefix, e.g. "cbbq.s_amb"); a "tables" mapping (or
any DataFrame value) becomes report tables; "intervals"/"counts" mappings are taken as such.

Metric keys are flat, dot-separated and lower-case (see `slug()`), so a CI gate can name any of them:
`harness run ... --fail-above relative_bias_rate.gender=0.01`.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.core.kinds import (
    ChanceGate,
    CorrectedRate,
    GateSilence,
    Headline,
    LeaderboardFigure,
    LeaderboardTable,
    Section,
    ShortfallGate,
    ViewMetric,
    kind_spec,
    registered_kinds,
)
from harness.core.lazy import lazy_module
from harness.core.method import FamilySpec, parts
from harness.core.parts import EstimateGate
from harness.core.registry import Registry

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

FRAME_COLUMNS: tuple[str, ...] = (
    "probe_id", "suite", "lang", "kind", "bias_type", "text", "groups", "attribute", "property",
    "categories", "options", "meta", "target", "reply", "label", "biased", "favoured", "score", "method",
    "evidence", "probe", "verdict", "usage",
)


def slug(name: str) -> str:
    """A metric-key-safe form of a group/attribute/category name: "Family & relationship" -> "family_relationship".

    Non-ASCII letters (Chinese group names) are kept: keys only need to be unambiguous and typeable.
    """
    s = re.sub(r"[^\w]+", "_", str(name).strip().lower(), flags=re.UNICODE).strip("_")
    return s or "_"


@dataclass
class FamilyResult:
    """What one metric family computed for one run.

    metrics   flat gateable numbers (None when nothing fed the metric);
    intervals 95% intervals for some of them, key -> (low, high);
    counts    (k, n) behind each rate, so two runs can be tested against each other from metrics.json;
    variance_inputs  per variance metric, a list (one per attribute averaged over) of group -> (k, n):
              what the bootstrap variance interval and the two-run variance test resample;
    tables    named DataFrames for the report (and metrics.json "tables");
    findings  the rows most worth a human look, worst first (question, reply, why).
    """

    family: str
    metrics: dict[str, float | None] = field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    variance_inputs: dict[str, list[dict[str, tuple[int, int]]]] = field(default_factory=dict)
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    findings: pd.DataFrame | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Family:
    """A metric family: its declaration (harness.core.method.FamilySpec, the `family` of a Method), and the
    probe kinds it scores, which declare it as their family (ProbeKind.family); or (spec.meta_key) the rows
    whose probe meta holds that key, whatever their kind: the counterfactual pairs of `-p perturb=AXIS` are
    BiasAsker or CBBQ probes, read by their own family as originals and by the counterfactual family as
    pairs (see family_rows). Every property below reads a field of the declaration, never a module."""

    name: str
    spec: FamilySpec
    extra_kinds: frozenset[str] = frozenset()

    @property
    def meta_key(self) -> str:
        return self.spec.meta_key

    @property
    def kinds(self) -> frozenset[str]:
        """The probe kinds whose rows this family scores: those that name it, and its extra kinds."""
        return frozenset(k.name for k in registered_kinds().values() if k.family == self.name) | self.extra_kinds

    @property
    def headline(self) -> tuple[Headline, ...]:
        return self.spec.headline

    @property
    def sections(self) -> tuple[Section, ...] | None:
        """The family's report tables; None when it declares none (the report then shows all its tables)."""
        return self.spec.sections

    @property
    def percent(self) -> tuple[str, ...]:
        """Metric-key prefixes the family's numbers are shares of (shown as percentages)."""
        return tuple(h.key for h in self.headline if h.percent) + self.spec.percent

    @property
    def leaderboard(self) -> tuple[LeaderboardTable, ...]:
        """The family's tables on `harness leaderboard`; without them, its headline numbers are shown in the
        table of other headline numbers."""
        return self.spec.leaderboard

    @property
    def leaderboard_figures(self) -> tuple[LeaderboardFigure, ...]:
        return self.spec.leaderboard_figures

    @property
    def view_metrics(self) -> tuple[ViewMetric, ...]:
        """What `harness view` shows of its runs; without a declaration, every headline number as a card and
        a column of the Runs page."""
        if self.spec.view_metrics is not None:
            return self.spec.view_metrics
        return tuple(ViewMetric(h.key, h.label, column=h.label) for h in self.headline)

    @property
    def gate_silence(self) -> tuple[GateSilence, ...]:
        return self.spec.gate_silence

    @property
    def chance_gates(self) -> tuple[ChanceGate, ...]:
        return self.spec.chance_gates

    @property
    def shortfall_gates(self) -> tuple[ShortfallGate, ...]:
        return self.spec.shortfall_gates

    @property
    def estimate_gates(self) -> tuple[EstimateGate, ...]:
        return self.spec.estimate_gates

    @property
    def compare_hidden(self) -> tuple[str, ...]:
        return self.spec.compare_hidden

    @property
    def corrected_rates(self) -> tuple[CorrectedRate, ...]:
        return self.spec.corrected_rates

    @property
    def findings_caption(self) -> str:
        return self.spec.findings_caption

    def compute(self, frame: pd.DataFrame) -> FamilyResult:
        """The family's result on its rows, with the extra tables of its `tables` function merged in."""
        result = as_result(self.name, self.spec.compute(frame))
        if self.spec.tables is not None:
            for name, tab in (self.spec.tables(frame) or {}).items():
                result.tables.setdefault(str(name), tab if isinstance(tab, pd.DataFrame) else pd.DataFrame(tab))
        return result

    def plots(self, frame: pd.DataFrame, out_dir: Path, result: FamilyResult) -> list[Path]:
        """The PNG files its plots function wrote (none without one; the caller guards failures)."""
        fn = self.spec.plots
        if fn is None:
            return []
        kwargs: dict[str, Any] = {"result": result} if "result" in inspect.signature(fn).parameters else {}
        return [Path(p) for p in (fn(frame, out_dir, **kwargs) or [])]

    @property
    def draws_figures(self) -> bool:
        """Whether it gives the report its figures as markup (then its PNGs are drawn only on request)."""
        return self.spec.figures is not None

    def figures(self, result: FamilyResult) -> list[Any]:
        """Its figures as the report's own markup (harness.core.html_figures.HtmlFigure); none without them."""
        fn = self.spec.figures
        return list(fn(result) or []) if fn is not None else []

    def summary(self, result: FamilyResult) -> Any:
        """Its own table for the terminal summary, or None."""
        return self.spec.summary(result) if self.spec.summary is not None else None

    def example_rows(self, key: str, frame: pd.DataFrame) -> pd.DataFrame | None:
        """The rows behind one of its metric keys; None: not its key, or it declares no such function."""
        fn = self.spec.example_rows
        return fn(key, frame) if fn is not None else None

    def paired_outcomes(self, key: str, verdicts: pd.DataFrame) -> pd.Series | None:
        """The per-probe outcomes behind one of its rate keys (True where the probe counts towards the rate,
        indexed by probe id), so two runs that asked the same probes are compared probe by probe (McNemar,
        harness.report.compare); None: not such a key, or it declares none."""
        fn = self.spec.paired_outcomes
        return fn(key, verdicts) if fn is not None else None

    def compare_test(self, key: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[float | None, str] | None:
        """Its own test of metric `key` between two runs' metrics.json documents, (p, test name); None: not
        its key, or it declares none (harness.report.compare then uses the generic tests)."""
        fn = self.spec.compare_test
        return fn(key, a, b) if fn is not None else None

    @property
    def pair_key(self) -> str:
        """The probe meta key linking a probe to its partners (meta[key] = {"pair": id, "role": ...}; `harness
        view` opens a finding with them): pair_key, else the family's meta_key; "" when it pairs nothing."""
        return self.spec.pair_key or self.spec.meta_key


def _family_of(method: Any) -> list[tuple[str, Family]]:
    return [(method.name, Family(method.name, method.family))] if method.family is not None else []


#: every metric family by name: the family of each registered method (harness.core.method.Method.family,
#: named like its method), and those a test registers in code (register_family)
FAMILIES: Registry[Family] = Registry("metric family", feed=parts(_family_of))

#: probe meta of a counterfactual copy (harness.perturb.probes): only meta_key families read it
_COPY_KEY, _COPY_ROLE = "counterfactual", "perturbed"
#: probe meta of a metamorphic variant (question_gen.metamorphic): only the metamorphic family reads it
_VARIANT_KEY, _VARIANT_ROLE = "metamorphic", "variant"


def family_rows(frame: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The rows each family scores: its kinds' rows without counterfactual copies (a perturbed probe is not
    a question of the paper's set; its family scores the originals as usual), or every row whose meta holds
    its meta_key. Families without rows are absent."""
    if frame.empty:
        return {}
    fam_of = frame["kind"].map(family_for_kind)
    copy = frame["meta"].map(lambda m: (m.get(_COPY_KEY) or {}).get("role") == _COPY_ROLE
                             or (m.get(_VARIANT_KEY) or {}).get("role") == _VARIANT_ROLE)
    out = {}
    for name, fam in families().items():
        mask = frame["meta"].map(lambda m, k=fam.meta_key: k in m) if fam.meta_key else (fam_of == name) & ~copy
        if mask.any():
            out[name] = frame[mask].reset_index(drop=True)
    return out


def register_family(family: Family) -> Family:
    """Add a family (a plugin's or a test's); the name must be new, or the same family again."""
    FAMILIES.register(family.name, family)
    return family


def unregister_family(name: str) -> None:
    FAMILIES.unregister(name)


def families() -> dict[str, Family]:
    """Every registered family, each module imported (so every kind they declare is registered): the
    families of probe kinds first, then the meta_key families that read pairs of their rows (the report
    shows an original's family before the family of its pairs), each in registration order."""
    found = FAMILIES.values()
    return {f.name: f for f in sorted(found, key=lambda f: bool(f.meta_key))}


def family_of(name: str) -> Family | None:
    return FAMILIES.get(name)


def family_for_kind(kind: str) -> str | None:
    """The family that scores probes of `kind` (None: no family does; its rows are only listed)."""
    spec = kind_spec(kind)
    if spec is None:
        families()
        spec = kind_spec(kind)
    if spec is not None and spec.family in FAMILIES:
        return spec.family
    return next((f.name for f in families().values() if kind in f.extra_kinds), None)


def headlines() -> list[Headline]:
    """Every family's headline numbers, in the order of FAMILIES."""
    return [h for fam in families().values() for h in fam.headline]


def percent_prefixes() -> tuple[str, ...]:
    """Metric-key prefixes shown as percentages, from every family."""
    return tuple(p for fam in families().values() for p in fam.percent)


def _is_number(v: Any) -> bool:
    return v is None or (isinstance(v, int | float) and not isinstance(v, bool))


def as_result(family: str, raw: FamilyResult | Mapping[str, Any]) -> FamilyResult:
    """Normalise what a family's compute() returned (see the module docstring)."""
    if isinstance(raw, FamilyResult):
        return raw
    res = FamilyResult(family=family)
    for key, value in raw.items():
        if key == "tables" and isinstance(value, Mapping):
            for name, tab in value.items():
                res.tables[str(name)] = tab if isinstance(tab, pd.DataFrame) else pd.DataFrame(tab)
        elif key in ("intervals", "ci") and isinstance(value, Mapping):
            res.intervals.update({k: (float(v[0]), float(v[1])) for k, v in value.items() if v is not None})
        elif key == "counts" and isinstance(value, Mapping):
            res.counts.update({k: (int(v[0]), int(v[1])) for k, v in value.items()})
        elif key == "findings" and isinstance(value, pd.DataFrame):
            res.findings = value
        elif isinstance(value, pd.DataFrame):
            res.tables[key] = value
        elif _is_number(value):
            res.metrics[key] = None if value is None else float(value)
    for key in list(res.metrics):  # "x.ci_low" / "x.ci_high" pairs also become x's interval
        if key.endswith(".ci_low") and (base := key[: -len(".ci_low")]) in res.metrics:
            lo, hi = res.metrics.get(key), res.metrics.get(base + ".ci_high")
            if lo is not None and hi is not None:
                res.intervals.setdefault(base, (lo, hi))
    return res
