"""Bias metrics, one *family* per kind of test, behind a small registry.

Why a registry: a run may hold BiasAsker probes, CBBQ probes, or both, and each family has its own paper
and its own numbers. Scoring (harness.score.scoring) builds one pandas frame of scored probes, hands each
family the rows of the probe kinds it understands, and merges what comes back. The report shows every
family that is present, with the headline numbers and tables the family declares. Adding a family never
touches scoring or reporting code.

How a family plugs in
---------------------
A module (or an object with the same attributes) registered as `Family(name, module)` in FAMILIES, a
harness.core.registry Registry: the project's own by their entry points in pyproject.toml
(`[project.entry-points."harness.families"]`, name = "harness.metrics.<module>"), another package's by
its own entry points the same way; a test or a plugin's code calls `register_family`. A family module
with a META_KEY attribute scores the rows whose probe meta holds that key (Family.meta_key). The module
declares the probe kinds it scores by registering them
(`harness.core.kinds.register_kind(ProbeKind(name, family=...))`, usually at import) and provides

    compute(df: pandas.DataFrame) -> FamilyResult | Mapping[str, Any]

and may provide

    HEADLINE: tuple[harness.core.kinds.Headline, ...]   (its headline numbers: summary, report cards)
    SECTIONS: tuple[harness.core.kinds.Section, ...]    (its report tables; without it, every table it returns)
    PERCENT: tuple[str, ...]        (key prefixes shown as percentages besides the percent headlines)
    LEADERBOARD: tuple[harness.core.kinds.LeaderboardTable, ...]   (its tables on `harness leaderboard`)
    LEADERBOARD_FIGURES: tuple[harness.core.kinds.LeaderboardFigure, ...]   (its heatmaps across runs)
    VIEW_METRICS: tuple[harness.core.kinds.ViewMetric, ...]   (what `harness view` shows; default: HEADLINE)
    PAIR_KEY: str                   (the probe meta key linking partners; default: the family's meta_key)
    tables(df) -> Mapping[str, pandas.DataFrame]        (extra report tables, merged into the result)
    plots(df, out_dir: pathlib.Path[, result=FamilyResult]) -> list[pathlib.Path]   (PNG files it wrote)
    summary(result: FamilyResult) -> rich.table.Table | None   (a table for the terminal summary)
    example_rows(key: str, rows: DataFrame) -> DataFrame | None   (the rows behind a metric key it owns,
                                     for harness.gates.fairness; None: not its key)
    paired_outcomes(key: str, verdicts: DataFrame) -> Series | None   (per probe, whether it counts towards a
                                     rate key it owns: the paired test of two runs; None: not its key)

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

import importlib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from harness.core.kinds import (
    ChanceGate,
    CorrectedRate,
    GateSilence,
    Headline,
    LeaderboardFigure,
    LeaderboardTable,
    RegistrationError,
    Section,
    ShortfallGate,
    ViewMetric,
    kind_spec,
    registered_kinds,
)
from harness.core.registry import GROUP_FAMILIES, Registry

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
    """A metric family: a module (or any object with compute() and the optional attributes above), and the
    probe kinds it scores, which declare it as their family (harness.core.kinds.ProbeKind.family); or
    (meta_key) the rows whose probe meta holds that key, whatever their kind: the counterfactual pairs of
    `-p perturb=AXIS` are BiasAsker or CBBQ probes, read by their own family as originals and by the
    counterfactual family as pairs (see family_rows).

    `module` is a dotted name of this package (imported when first needed) or the module object itself
    (a plugin's or a test's). `extra_kinds` are kinds declared elsewhere that it scores too (normally none)."""

    name: str
    module: str | ModuleType
    extra_kinds: frozenset[str] = frozenset()
    meta_key: str = ""

    def load(self) -> ModuleType:
        """The family's module (imported once; an import error is a bug of the harness and propagates)."""
        if isinstance(self.module, str):
            return importlib.import_module(self.module)
        return self.module

    @property
    def kinds(self) -> frozenset[str]:
        """The probe kinds whose rows this family scores: those that name it, and its extra kinds."""
        self.load()  # its module declares its kinds
        return frozenset(k.name for k in registered_kinds().values() if k.family == self.name) | self.extra_kinds

    @property
    def headline(self) -> tuple[Headline, ...]:
        return tuple(getattr(self.load(), "HEADLINE", ()))

    @property
    def sections(self) -> tuple[Section, ...] | None:
        """The family's report tables; None when it declares none (the report then shows all its tables)."""
        found = getattr(self.load(), "SECTIONS", None)
        return None if found is None else tuple(found)

    @property
    def percent(self) -> tuple[str, ...]:
        """Metric-key prefixes the family's numbers are shares of (shown as percentages)."""
        return tuple(h.key for h in self.headline if h.percent) + tuple(getattr(self.load(), "PERCENT", ()))

    @property
    def leaderboard(self) -> tuple[LeaderboardTable, ...]:
        """The family's tables on `harness leaderboard` (LEADERBOARD); without them, its headline numbers are
        shown in the table of other headline numbers."""
        return tuple(getattr(self.load(), "LEADERBOARD", ()))

    @property
    def leaderboard_figures(self) -> tuple[LeaderboardFigure, ...]:
        """The heatmaps the family draws across runs on the leaderboard page (LEADERBOARD_FIGURES)."""
        return tuple(getattr(self.load(), "LEADERBOARD_FIGURES", ()))

    @property
    def view_metrics(self) -> tuple[ViewMetric, ...]:
        """What `harness view` shows of its runs (VIEW_METRICS); without it, every headline number as a card
        and a column of the Runs page."""
        found = getattr(self.load(), "VIEW_METRICS", None)
        if found is not None:
            return tuple(found)
        return tuple(ViewMetric(h.key, h.label, column=h.label) for h in self.headline)

    @property
    def gate_silence(self) -> tuple[GateSilence, ...]:
        """Why a gate on one of its metrics can have nothing to test in a run (GATE_SILENCE)."""
        return tuple(getattr(self.load(), "GATE_SILENCE", ()))

    @property
    def chance_gates(self) -> tuple[ChanceGate, ...]:
        """Its metrics whose gate reads a noise-corrected value and a permutation p (CHANCE_GATES)."""
        return tuple(getattr(self.load(), "CHANCE_GATES", ()))

    @property
    def shortfall_gates(self) -> tuple[ShortfallGate, ...]:
        """Its per-group metrics where lower is worse, whose lower-bound gate reads a shortfall p
        (SHORTFALL_GATES)."""
        return tuple(getattr(self.load(), "SHORTFALL_GATES", ()))

    @property
    def compare_hidden(self) -> tuple[str, ...]:
        """Metric-key prefixes of its finer numbers (one per group pair, ...) that `harness compare` shows only
        with --all or --metric (COMPARE_HIDDEN)."""
        return tuple(getattr(self.load(), "COMPARE_HIDDEN", ()))

    @property
    def corrected_rates(self) -> tuple[CorrectedRate, ...]:
        """Shares of some of its reviewable replies that a person's review corrects (CORRECTED_RATES)."""
        return tuple(getattr(self.load(), "CORRECTED_RATES", ()))

    def example_rows(self, key: str, frame: pd.DataFrame) -> pd.DataFrame | None:
        """The rows behind one of its metric keys (its example_rows(key, frame)); None: not its key, or it
        declares no such function."""
        fn = getattr(self.load(), "example_rows", None)
        return fn(key, frame) if callable(fn) else None

    def paired_outcomes(self, key: str, verdicts: pd.DataFrame) -> pd.Series | None:
        """The per-probe outcomes behind one of its rate keys (its paired_outcomes(key, verdicts): True where
        the probe counts towards the rate, indexed by probe id), so two runs that asked the same probes are
        compared probe by probe (McNemar, harness.report.compare); None: not such a key, or it declares none."""
        fn = getattr(self.load(), "paired_outcomes", None)
        return fn(key, verdicts) if callable(fn) else None

    @property
    def pair_key(self) -> str:
        """The probe meta key linking a probe to its partners (meta[key] = {"pair": id, "role": ...}; `harness
        view` opens a finding with them): PAIR_KEY, else the family's meta_key; "" when it pairs nothing."""
        return str(getattr(self.load(), "PAIR_KEY", self.meta_key) or "")


def _family_entry(name: str, obj: Any) -> Family:
    """What an entry point of the families group names: a family module (its META_KEY, when it has one,
    makes it a meta_key family) or a Family."""
    if isinstance(obj, Family):
        return obj
    if isinstance(obj, ModuleType):
        return Family(name, obj, meta_key=str(getattr(obj, "META_KEY", "") or ""))
    raise RegistrationError(f"The entry for metric family '{name}' is {obj!r}, neither a module nor a Family.")


def _same_family(a: Family, b: Family) -> bool:
    """One family whether its module is given by name or as the module object."""
    def key(f: Family) -> tuple[str, str, frozenset[str], str]:
        module = f.module if isinstance(f.module, str) else f.module.__name__
        return f.name, module, f.extra_kinds, f.meta_key
    return key(a) == key(b)


#: every metric family by name. The harness's own come from the harness.families entry points of its
#: pyproject.toml (name = "harness.metrics.<module>", like any plugin's); a test or a plugin's module may
#: call register_family. The kinds each scores are declared by its module (ProbeKind.family).
FAMILIES: Registry[Family] = Registry("metric family", GROUP_FAMILIES, coerce=_family_entry, same=_same_family,
                                      built_in=True)

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
    found = [fam for fam in FAMILIES.values()]
    for fam in found:
        fam.load()
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


def call_plots(module: ModuleType, df: pd.DataFrame, out_dir: Path, result: FamilyResult) -> list[Path]:
    """Call module.plots(df, out_dir[, result=...]) if the family has plots (the caller guards failures)."""
    fn = getattr(module, "plots", None)
    if fn is None:
        return []
    kwargs: dict[str, Any] = {}
    if "result" in inspect.signature(fn).parameters:
        kwargs["result"] = result
    return [Path(p) for p in (fn(df, out_dir, **kwargs) or [])]
