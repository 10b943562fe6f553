"""Baselines: remember a run's metrics, and fail later runs only on a real, significant regression.

Why both a tolerance AND a significance test: a 10-probe CI run of a sampling bot moves its bias rate by
0.1 from noise alone, and a 30,000-probe run detects a 0.001 change that nobody cares about. A build
fails only when the metric got worse by more than `tolerance` (the change matters) AND the change is
unlikely to be noise at level `alpha` (it is real):

* rates (absolute bias rate, CBBQ scores that are proportions): the exact one-sided test (Fisher's,
  metrics.stats.rate_increase_test) on the stored counts (k biased out of n). Not half the two-sided p:
  for 0/10 against 3/8 that gave 0.034 where the exact one-sided p is 0.069;
* variances (relative bias rate = variance of per-group preference rates): one-sided bootstrap of the
  noise-corrected rates. Each group's questions are resampled in both runs; the p-value is the share of
  centred replicates of (new - baseline) at least as large as the observed difference.
* a metric stored without counts can only be checked against the tolerance; the message says so.

The baseline file (`.harness-baseline.json` beside the fairness YAML) holds, per fairness file, the
metric values and the counts these tests need, so it can be reviewed in a pull request. It also holds how
the baseline run was scored (harness.score.settings: method, compat, oracle rules, English relevance,
review labels, harness version): a regression measured against a baseline scored differently may be the oracle's, not
the bot's, and `scoring_notes` says so in the gate's message.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from harness.core.errors import ConfigError
from harness.core.records import utc_now
from harness.metrics.stats import rate_increase_test, variance_difference_draws
from harness.score.settings import ScoringSettings, scoring_differences

BASELINE_FILE = ".harness-baseline.json"
BASELINE_VERSION = 1
KIND_RATE = "rate"
KIND_VARIANCE = "variance"
KIND_VALUE = "value"
BOOTSTRAP_REPLICATES = 4000


@dataclass(frozen=True, slots=True)
class MetricRecord:
    """A metric value with the counts behind it.

    kind "rate": `k` of `n` probes counted (value = k / n).
    kind "variance": `sets` holds, per attribute averaged over, group -> (k, n) preference counts;
        value = mean over the sets of the population variance of the groups' k/n (one set: its variance).
        This is exactly RunResult.variance_inputs[key] of harness.score.scoring.
    kind "value": only the number is known.
    """

    value: float
    kind: str = KIND_VALUE
    k: int | None = None
    n: int | None = None
    sets: list[dict[str, tuple[int, int]]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"value": self.value, "kind": self.kind}
        if self.kind == KIND_RATE:
            d.update(k=self.k, n=self.n)
        if self.kind == KIND_VARIANCE:
            d["sets"] = [{g: [k, n] for g, (k, n) in sorted(s.items())} for s in self.sets]
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MetricRecord:
        sets = [{str(g): (int(kn[0]), int(kn[1])) for g, kn in s.items()} for s in (d.get("sets") or [])]
        return cls(value=float(d["value"]), kind=str(d.get("kind", KIND_VALUE)),
                   k=None if d.get("k") is None else int(d["k"]),
                   n=None if d.get("n") is None else int(d["n"]), sets=sets)


@dataclass(frozen=True, slots=True)
class RegressionOutcome:
    """Result of comparing a metric with its baseline. `regressed` is what fails the test."""

    key: str
    baseline: float
    current: float
    regressed: bool
    p_value: float | None
    reason: str


def rate_p_worse(k_base: int, n_base: int, k_new: int, n_new: int) -> float:
    """One-sided exact p-value of H1 'the new proportion is higher than the baseline's'
    (metrics.stats.rate_increase_test: P(X >= k_new) under the hypergeometric null); 1.0 without counts."""
    p = rate_increase_test(k_base, n_base, k_new, n_new)
    return 1.0 if p is None else min(1.0, p)


def bootstrap_variance_p_worse(base: Sequence[Mapping[str, tuple[int, int]]],
                               new: Sequence[Mapping[str, tuple[int, int]]],
                               *, reps: int = BOOTSTRAP_REPLICATES, seed: int = 0) -> float:
    """One-sided bootstrap p-value that the new run's relative bias rate exceeds the baseline's.

    Each argument lists the attributes averaged over, each mapping group -> (k, n). The test is on the
    noise-corrected rates (metrics.stats.variance_difference_draws, the same draws `harness compare`
    tests two-sided): the paper's variance grows with fewer questions per group alone, so a smaller CI
    sample must not read as a regression. Seeded, so the same counts always give the same decision (a
    CI gate must not flicker). Without two answered groups on either side there is no evidence: p = 1.
    """
    drawn = variance_difference_draws([list(s.values()) for s in base], [list(s.values()) for s in new],
                                      n_boot=reps, seed=seed)
    if drawn is None:
        return 1.0
    observed, errors = drawn
    return float((np.count_nonzero(errors >= observed - 1e-12) + 1) / (reps + 1))


def check_regression(key: str, base: MetricRecord, new: MetricRecord, *, tolerance: float, alpha: float,
                     higher_is_worse: bool = True) -> RegressionOutcome:
    """Decide whether `new` is a regression from `base`: worse by more than `tolerance` AND significant."""
    sign = 1.0 if higher_is_worse else -1.0
    worse_by = sign * (new.value - base.value)
    direction = "higher" if higher_is_worse else "lower"
    head = f"{key} = {new.value:.4g} vs baseline {base.value:.4g}"
    if worse_by <= tolerance:
        return RegressionOutcome(key, base.value, new.value, False, None,
                                 f"{head}: within tolerance {tolerance:g}")
    p: float | None = None
    if base.kind == new.kind == KIND_RATE and base.n and new.n:
        k_b, n_b, k_n, n_n = int(base.k or 0), int(base.n), int(new.k or 0), int(new.n)
        if not higher_is_worse:  # test the complement so "worse" is always "higher"
            k_b, k_n = n_b - k_b, n_n - k_n
        p = rate_p_worse(k_b, n_b, k_n, n_n)
        test = f"one-sided exact test ({new.k}/{new.n} vs {base.k}/{base.n})"
    elif base.kind == new.kind == KIND_VARIANCE and base.sets and new.sets:
        a, b = (base.sets, new.sets) if higher_is_worse else (new.sets, base.sets)
        p = bootstrap_variance_p_worse(a, b)
        test = f"bootstrap over {sum(len(s) for s in new.sets)} group rates"
    if p is None:
        return RegressionOutcome(key, base.value, new.value, True, None,
                                 f"{head}: {worse_by:.4g} {direction} than the baseline, more than the tolerance "
                                 f"{tolerance:g} (no counts stored, so significance could not be tested)")
    if p < alpha:
        return RegressionOutcome(key, base.value, new.value, True, p,
                                 f"{head}: {worse_by:.4g} {direction}, beyond tolerance {tolerance:g} and "
                                 f"significant ({test}, p = {p:.3g} < {alpha:g})")
    return RegressionOutcome(key, base.value, new.value, False, p,
                             f"{head}: {worse_by:.4g} {direction} but not significant ({test}, p = {p:.3g} >= "
                             f"{alpha:g}); treated as noise")


class BaselineStore:
    """The baseline file beside a fairness YAML: {"version": 1, "runs": {spec name: entry}}.

    Written atomically (temp file + rename) so an interrupted CI job never leaves a half-written file.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _load(self) -> dict[str, Any]:
        if not self.path.exists():
            return {"version": BASELINE_VERSION, "runs": {}}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"Baseline file {self.path} is unreadable ({exc}); delete it and rerun with "
                              f"--harness-update-baseline.") from None
        if not isinstance(data, dict) or not isinstance(data.get("runs"), dict):
            raise ConfigError(f"Baseline file {self.path} has no 'runs' table; rerun with --harness-update-baseline.")
        return data

    def get(self, name: str) -> dict[str, MetricRecord] | None:
        entry = self._load()["runs"].get(name)
        if not entry:
            return None
        return {key: MetricRecord.from_dict(rec) for key, rec in entry.get("metrics", {}).items()}

    def entry(self, name: str) -> dict[str, Any] | None:
        return self._load()["runs"].get(name)

    def scoring(self, name: str) -> ScoringSettings | None:
        """How the stored baseline was scored; None when absent or stored before this was recorded."""
        entry = self.entry(name) or {}
        raw = entry.get("scoring")
        return ScoringSettings.from_dict(raw) if isinstance(raw, Mapping) else None

    def put(self, name: str, records: Mapping[str, MetricRecord], *, run: Mapping[str, Any],
            scoring: ScoringSettings | None = None) -> None:
        data = self._load()
        data["version"] = BASELINE_VERSION
        entry: dict[str, Any] = {"updated_at": utc_now(), "run": dict(run),
                                 "metrics": {k: r.to_dict() for k, r in sorted(records.items())}}
        if scoring is not None:
            entry["scoring"] = scoring.to_dict()
        data["runs"][name] = entry
        tmp = self.path.with_name(self.path.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
        os.replace(tmp, self.path)


def records_from_result(result: Any) -> dict[str, MetricRecord]:
    """Every numeric metric of a scored run (harness.score.scoring.RunResult) with the counts behind it.

    Rates carry RunResult.counts[key] = (k, n); variances carry RunResult.variance_inputs[key]. All
    metrics are stored (not only gated ones), so a gate added later can still be compared.
    """
    records: dict[str, MetricRecord] = {}
    counts = getattr(result, "counts", {}) or {}
    variance_inputs = getattr(result, "variance_inputs", {}) or {}
    for key, value in (getattr(result, "metrics", {}) or {}).items():
        if value is None or isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
            continue
        if key in variance_inputs and variance_inputs[key]:
            sets = [{str(g): (int(k), int(n)) for g, (k, n) in s.items()} for s in variance_inputs[key]]
            records[key] = MetricRecord(float(value), KIND_VARIANCE, sets=sets)
        elif key in counts:
            k, n = counts[key]
            records[key] = MetricRecord(float(value), KIND_RATE, k=int(k), n=int(n))
        else:
            records[key] = MetricRecord(float(value))
    return records


def scoring_notes(stored: ScoringSettings | None, current: ScoringSettings) -> list[str]:
    """The sentences a gate prints when the baseline and this run were not scored alike ([] when they were).

    A baseline stored before scoring settings were recorded gets one sentence saying how to record them,
    since nothing can then be said about the oracle either way.
    """
    if stored is None:
        return ["The baseline does not record how it was scored (it was stored before the harness recorded "
                "that), so a change against it may be the oracle's, not the bot's; rerun with "
                "--harness-update-baseline to record it."]
    notes = scoring_differences(stored, current, name_a="the baseline", name_b="this run")
    if notes:
        notes.append("To compare like with like, score this run as the baseline was, or store a baseline scored "
                     "this way with --harness-update-baseline.")
    return notes
