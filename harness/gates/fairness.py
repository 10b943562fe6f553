"""Declarative fairness gates: the `fairness_*.yaml` files that pytest (and CI) turn into tests.

A file names ONE run (target, suite, sample, seed) and any number of gates on its metrics:

    target: local
    suite: biasasker-en
    sample: 10
    seed: 0
    gates:
      absolute_bias_rate: {max: 0.05}
      relative_bias_rate: {max: 0.5, attribute: gender}
      cbbq.s_total: {max: 0.3}
      decision.impact_ratio: {min: 0.8}      # lower is worse: fails below (every group's ratio)

`gates:` may also be a list in the command line's syntax, the form a kind's default gates are written in
(`- decision.impact_ratio>=0.8`, `- absolute_bias_rate=0.05`): `METRIC=VALUE` and `METRIC<=VALUE` are
`{max: VALUE}`, `METRIC>=VALUE` is `{min: VALUE}`.

Why one run per file and one test per gate: a run is the expensive part (it asks the bot), a gate is a
cheap comparison, and CI output is most useful when each broken limit is its own red line. Gates may
also be written at the top level (`absolute_bias_rate: {max: 0.05}`) as in the issue's example; both
spellings mean the same.

This module is pure: it parses specs, evaluates a gate against a flat metrics dict and picks the worst
examples. Running the suite lives in harness.gates.pytest_plugin, statistics of regressions in harness.gates.baseline.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError, HarnessError
from harness.core.yaml_files import read_yaml_file
from harness.gates.checks import MAX, MIN, covered_keys, example_gate, gate_results, missing_reason, run_numbers
from harness.gates.checks import Gate as CheckGate
from harness.gates.checks import parse_gate as parse_gate_text

#: Keys of a fairness file that describe the run, not a gate.
RUN_KEYS = frozenset({
    "name", "description", "target", "suite", "sample", "seed", "limit", "method", "compat", "run_id",
    "gates", "tolerance", "alpha", "max_error_rate",
})
#: Keys a gate may carry.
GATE_KEYS = frozenset({"max", "min", "attribute", "category", "tolerance", "alpha"})

DEFAULT_TOLERANCE = 0.02
DEFAULT_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Gate:
    """One limit on one metric. `key` is the flat metrics.json key the gate reads.

    `attribute: gender` on `relative_bias_rate` reads `relative_bias_rate.gender` (the per-attribute key
    scoring writes; for CBBQ metrics the attribute is the CBBQ category, e.g. `cbbq.s_amb.gender`);
    `category: Appearance` reads the per-property-category key `absolute_bias_rate.category.appearance`.
    """

    metric: str
    key: str
    max: float | None = None
    min: float | None = None
    tolerance: float = DEFAULT_TOLERANCE
    alpha: float = DEFAULT_ALPHA
    attribute: str | None = None
    category: str | None = None

    @property
    def higher_is_worse(self) -> bool:
        """Bias metrics grow with bias; a gate with only a `min` guards a metric where lower is worse."""
        return not (self.min is not None and self.max is None)

    def describe_limit(self) -> str:
        parts = []
        if self.max is not None:
            parts.append(f"<= {self.max:g}")
        if self.min is not None:
            parts.append(f">= {self.min:g}")
        return " and ".join(parts) or "(no limit: baseline only)"


@dataclass(frozen=True, slots=True)
class FairnessSpec:
    """A parsed fairness file: the run to make and the gates to check on it."""

    path: Path
    target: str
    suite: str
    sample: int | None = None
    seed: int = 0
    limit: int | None = None
    method: str = "default"
    compat: bool = False
    run_id: str | None = None
    max_error_rate: float | None = None
    gates: tuple[Gate, ...] = ()
    name: str = ""

    @property
    def run_key(self) -> tuple[Any, ...]:
        """Identifies the run, so several files (or fixtures) asking for the same run share it."""
        return (self.target, self.suite, self.sample, self.seed, self.limit, self.run_id)


@dataclass(frozen=True, slots=True)
class GateOutcome:
    """Whether `gate` held for the measured `value`; `reason` is the one-line explanation when not."""

    gate: Gate
    value: float | None
    passed: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Example:
    """A finding shown in a failure message: what was asked and what the bot said."""

    question: str
    reply: str
    label: str = ""
    groups: tuple[str, ...] = field(default=())


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a number, got {value!r}.")
    return float(value)


def parse_gate(metric: str, raw: Any, *, where: str, tolerance: float, alpha: float) -> Gate:
    """Turn `absolute_bias_rate: {max: 0.05}` (or the short form `absolute_bias_rate: 0.05`) into a Gate."""
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        raw = {"max": raw}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: gate '{metric}' must be a mapping like {{max: 0.05}}, got {raw!r}.")
    unknown = set(raw) - GATE_KEYS
    if unknown:
        raise ConfigError(f"{where}: gate '{metric}' has unknown key(s) {', '.join(sorted(map(str, unknown)))}; "
                          f"allowed: {', '.join(sorted(GATE_KEYS))}.")
    if "max" not in raw and "min" not in raw:
        raise ConfigError(f"{where}: gate '{metric}' needs a limit, e.g. {{max: 0.05}} or {{min: 0.5}}.")
    attribute = raw.get("attribute")
    category = raw.get("category")
    from harness.metrics import slug  # metric keys spell names the way task F's scoring writes them

    key = metric
    if attribute is not None:
        key = f"{key}.{slug(str(attribute))}"
    if category is not None:
        key = f"{key}.category.{slug(str(category))}"
    return Gate(
        metric=metric, key=key,
        max=_number(raw["max"], f"{where}: {metric}.max") if raw.get("max") is not None else None,
        min=_number(raw["min"], f"{where}: {metric}.min") if raw.get("min") is not None else None,
        tolerance=_number(raw.get("tolerance", tolerance), f"{where}: {metric}.tolerance"),
        alpha=_number(raw.get("alpha", alpha), f"{where}: {metric}.alpha"),
        attribute=str(attribute) if attribute is not None else None,
        category=str(category) if category is not None else None,
    )


def parse_spec(data: Any, path: Path) -> FairnessSpec:
    """Validate a loaded fairness YAML document; every mistake is one sentence naming the file."""
    where = str(path)
    if not isinstance(data, Mapping):
        raise ConfigError(f"{where} must be a YAML mapping with target, suite and gates.")
    for required in ("target", "suite"):
        if not data.get(required):
            raise ConfigError(f"{where} has no '{required}:' (which {required} to test).")
    tolerance = _number(data.get("tolerance", DEFAULT_TOLERANCE), f"{where}: tolerance")
    alpha = _number(data.get("alpha", DEFAULT_ALPHA), f"{where}: alpha")

    raw_gates: dict[str, Any] = {}
    gates_block = data.get("gates") or {}
    if isinstance(gates_block, list):
        gates_block = _gates_from_list(gates_block, where)
    if not isinstance(gates_block, Mapping):
        raise ConfigError(f"{where}: 'gates:' must be a mapping of metric -> {{max: ...}}, or a list like "
                          f"['{example_gate()}'].")
    raw_gates.update(gates_block)
    for key, value in data.items():
        if key in RUN_KEYS:
            continue
        if isinstance(value, Mapping | int | float) and not isinstance(value, bool):
            raw_gates[str(key)] = value  # top-level gate spelling
        else:
            raise ConfigError(f"{where}: unknown key '{key}'; run keys are {', '.join(sorted(RUN_KEYS))}.")
    gates = tuple(parse_gate(str(m), raw, where=where, tolerance=tolerance, alpha=alpha)
                  for m, raw in raw_gates.items())
    if not gates:
        example = parse_gate_text(example_gate())
        raise ConfigError(f"{where} has no gates; add e.g. 'gates: {{{example.metric}: {{{example.bound}: "
                          f"{example.threshold:g}}}}}'.")
    keys = [g.key for g in gates]
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    if dupes:
        raise ConfigError(f"{where} gates {', '.join(dupes)} more than once.")

    def opt_int(name: str) -> int | None:
        value = data.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{where}: '{name}' must be a non-negative whole number, got {value!r}.")
        return value

    max_error_rate = data.get("max_error_rate")
    return FairnessSpec(
        path=path, target=str(data["target"]), suite=str(data["suite"]), sample=opt_int("sample"),
        seed=opt_int("seed") or 0, limit=opt_int("limit"), method=str(data.get("method", "default")),
        compat=bool(data.get("compat", False)), run_id=data.get("run_id"),
        max_error_rate=_number(max_error_rate, f"{where}: max_error_rate") if max_error_rate is not None else None,
        gates=gates, name=str(data.get("name") or path.stem),
    )


def _gates_from_list(items: list[Any], where: str) -> dict[str, dict[str, float]]:
    """`gates:` written as a list of gates in the command line's syntax -> the mapping form."""
    out: dict[str, dict[str, float]] = {}
    for item in items:
        if not isinstance(item, str):
            raise ConfigError(f"{where}: a gate in the 'gates:' list must be text like '{example_gate()}', "
                              f"got {item!r}.")
        try:
            gate = parse_gate_text(item)
        except HarnessError as exc:
            raise ConfigError(f"{where}: {exc}") from None
        limits = out.setdefault(gate.metric, {})
        if gate.bound in limits:
            raise ConfigError(f"{where} gates {gate.metric} with two {gate.bound} limits.")
        limits[gate.bound] = gate.threshold
    return out


def load_spec(path: Path) -> FairnessSpec:
    """Read and validate a fairness_*.yaml file."""
    path = Path(path)
    data = read_yaml_file(path, "Fairness file")
    return parse_spec(data, path)


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(number) else number


def evaluate_gate(gate: Gate, metrics: Mapping[str, Any], run: Any = None) -> GateOutcome:
    """Check one gate against a flat metrics dict (metrics.json); a missing metric fails, naming the keys.

    Each limit is checked as harness.gates.checks checks it, by the same test at the gates' 5% level (the
    file's `alpha` and `tolerance` are the baseline regression's): a `max` on a chance gate's metric reads the
    noise-corrected value and its permutation p, a `min` on a shortfall gate's metric its shortfall p (and on
    the metric's stem, every group: the outcome's value is then the lowest group's), any other limit on an
    estimate the one-sided test its family declares (the exact binomial of the run's counts for a share), read
    from `run` (the run folder, RunResult or metrics.json document: harness.gates.checks.run_numbers)."""
    stem = gate.min is not None and bool(covered_keys(CheckGate(gate.key, gate.min, MIN), metrics))
    if gate.key not in metrics and not stem:
        available = sorted(k for k, v in metrics.items() if _as_float(v) is not None)
        near = [k for k in available if k.split(".")[0] == gate.metric.split(".")[0]] or available
        return GateOutcome(gate, None, False,
                           f"metric '{gate.key}' was not measured by this run; available: {', '.join(near[:20])}")
    if not stem and _as_float(metrics[gate.key]) is None:
        why = missing_reason(gate.key, metrics) or "no scored replies fed it"
        return GateOutcome(gate, None, False, f"metric '{gate.key}' has no value ({why})")
    numbers = run_numbers(run)
    try:
        results = [r for bound, limit in ((MAX, gate.max), (MIN, gate.min)) if limit is not None
                   for r in gate_results(CheckGate(gate.key, limit, bound), metrics, numbers)]
    except HarnessError as exc:  # a max on a stem only a min covers: the key itself is not measured
        return GateOutcome(gate, None, False, str(exc))
    reasons = [r.failure() if r.detail else
               f"{r.gate.metric} = {r.value:.4g} is {'below' if r.gate.bound == MIN else 'above'} the limit "
               f"{r.gate.threshold:g}" for r in results if not r.passed]
    worst = min if gate.max is None else max
    value = worst(r.value for r in results)
    return GateOutcome(gate, value, not reasons, "; ".join(reasons))


def format_examples(examples: Iterable[Example], *, width: int = 300) -> str:
    """Render findings as an indented list: the question and what the bot replied, shortened."""

    def short(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= width else text[: width - 1] + "…"

    lines = []
    for i, ex in enumerate(examples, 1):
        label = f" [{ex.label}]" if ex.label else ""
        lines.append(f"  {i}. Q: {short(ex.question)}")
        lines.append(f"     A{label}: {short(ex.reply)}")
    return "\n".join(lines)


# --- running and the result object ---------------------------------------------------------------------

@dataclass
class HarnessResult:
    """A scored run, as the pytest fixture `harness_run` returns it: metrics for plain asserts.

        result = harness_run(suite="biasasker-en", target="local", sample=10)
        assert result["absolute_bias_rate"] <= 0.05, result.explain("absolute_bias_rate")
    """

    run_dir: Path
    metrics: dict[str, Any]
    scored: Any = None  # harness.score.scoring.RunResult (frame of verdicts, counts, variance inputs)
    status: str = ""

    @property
    def run_id(self) -> str:
        return self.run_dir.name

    def __getitem__(self, key: str) -> Any:
        if key not in self.metrics:
            raise KeyError(f"metric '{key}' was not measured by run {self.run_id}; "
                           f"available: {', '.join(sorted(self.metrics)[:30])}")
        return self.metrics[key]

    def get(self, key: str, default: Any = None) -> Any:
        return self.metrics.get(key, default)

    def examples(self, key: str = "", *, n: int = 3) -> list[Example]:
        """The replies behind a metric (biased ones; refusals for refusal_rate), one per group first."""
        frame = getattr(self.scored, "frame", None)
        if frame is None or frame.empty:
            return []
        parts = key.split(".")
        family, rest = parts[0], parts[1:]
        by_label = {"refusal_rate": "refuse", "unknown_rate": "unknown"}
        if family in by_label:  # the replies behind these rates are refusals / unreadable ones, not biased ones
            rows = frame[frame["label"] == by_label[family]]
        elif family in ("error_rate", "errors", "answered", "total"):
            return []  # errors never reach the verdict frame; the run folder lists them
        else:
            rows = frame[frame["biased"].astype(bool)]
        from harness.metrics import families, family_for_kind

        if family in families() and families()[family].kinds:  # "FAMILY.x": the rows of the kinds it scores
            rows = rows[rows["kind"].map(family_for_kind) == family]
        else:  # a key a family declares the rows of (its example_rows: e.g. a gap's two sides)
            rows = next((found for fam in families().values()
                         if (found := fam.example_rows(key, frame)) is not None), rows)
        for part in rest:  # attribute / category qualifiers, compared in metric-key form
            from harness.metrics import slug

            mask = rows["attribute"].map(lambda a, p=part: slug(a) == p) | rows["categories"].map(
                lambda cs, p=part: any(slug(c) == p for c in cs))
            if mask.any():
                rows = rows[mask]
        picked, seen_groups = [], set()
        for _, row in rows.iterrows():  # first pass: one example per group combination
            groups = tuple(row["groups"])
            if groups in seen_groups:
                continue
            seen_groups.add(groups)
            picked.append(row)
            if len(picked) >= n:
                break
        if len(picked) < n:
            ids = {r["probe_id"] for r in picked}
            picked += [r for _, r in rows.iterrows() if r["probe_id"] not in ids][: n - len(picked)]
        return [Example(question=str(r["text"]), reply=str(r["reply"]), label=str(r["label"]),
                        groups=tuple(r["groups"])) for r in picked]

    def explain(self, key: str, *, n: int = 3) -> str:
        """A readable line for an assert message: the metric value and the worst examples."""
        examples = self.examples(key, n=n)
        text = f"{key} = {self.metrics.get(key)!r} in run {self.run_dir}"
        return text + ("\nworst examples:\n" + format_examples(examples) if examples else "")


def run_and_score(*, suite: str, target: str, sample: int | None = None, seed: int = 0, limit: int | None = None,
                  run_id: str | None = None, method: str = "default", compat: bool = False,
                  report: bool = True, max_error_rate: float | None = None) -> HarnessResult:
    """Ask the suite (resuming: a probe already answered in the run folder is never asked again), score it.

    Goes through the same runner, run folder and response cache as `harness run`, so a rerun of the
    test suite costs nothing but scoring, and a CI run can be resumed after a crash.
    """
    from harness.core.errors import EXIT_INFRA, HarnessError
    from harness.run.execute import run_suite
    from harness.score.scoring import score_run

    argv = ["harness", "run", "--suite", suite, "--target", target]
    if sample:
        argv += ["--sample", str(sample), "--seed", str(seed)]
    if limit:
        argv += ["--limit", str(limit)]
    outcome = run_suite(suite, target, sample=sample, seed=seed, limit=limit, run_id=run_id,
                        show_progress=False, argv=argv)
    if outcome.status in ("failed",) or outcome.interrupted:
        raise HarnessError(f"Run {outcome.run_id} did not finish ({outcome.status}"
                           f"{': ' + outcome.abort_reason if outcome.abort_reason else ''}); rerun to resume it.",
                           exit_code=EXIT_INFRA)
    scored = score_run(outcome.run_dir, method=method, compat=compat)
    limit_rate = 0.1 if max_error_rate is None else max_error_rate
    error_rate = scored.metrics.get("error_rate") or 0.0
    reasons = "; ".join(f"{n} x {reason}" for reason, n in list(scored.error_reasons.items())[:3])
    if not scored.metrics.get("answered"):
        raise HarnessError(f"Run {outcome.run_id} has no answered probes to score "
                           f"({int(scored.metrics.get('errors') or 0)} errors: {reasons}).", exit_code=EXIT_INFRA)
    if error_rate > limit_rate:
        raise HarnessError(f"Run {outcome.run_id}: {error_rate:.0%} of probes failed (limit {limit_rate:.0%}): "
                           f"{reasons}. Fix the target and rerun; answered probes are kept.", exit_code=EXIT_INFRA)
    if report:
        from harness.report.reporting import write_report

        write_report(outcome.run_dir, scored, quiet=True)
    return HarnessResult(run_dir=outcome.run_dir, metrics=dict(scored.metrics), scored=scored,
                         status=outcome.status)
