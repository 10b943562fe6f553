"""CI gates on a run's metrics: `--fail-above METRIC=VALUE` and the infrastructure check.

Exit codes (harness.core.errors): 0 every gate passed; 1 a gate failed (the bot is measurably biased above
the threshold); 3 infrastructure failure (nothing answered, or the error rate is above the allowed
maximum), checked FIRST because metrics computed from a run that mostly failed say nothing about the bot;
2 bad input (malformed gate, unknown metric name, a gated metric with no data in this run).

A gate fails when the metric's value is strictly greater than the threshold. Thresholds are on the
metric's own scale: rates in [0, 1] (0.1 = 10%), `relative_bias_rate` as a raw variance and
`relative_bias_rate_x100` on Table 8's scale.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from harness.core.errors import EXIT_GATE_FAILED, EXIT_INFRA, EXIT_OK, HarnessError

DEFAULT_MAX_ERROR_RATE = 0.1


@dataclass(frozen=True, slots=True)
class Gate:
    metric: str
    threshold: float

    def __str__(self) -> str:
        return f"{self.metric} <= {self.threshold:g}"


@dataclass(frozen=True, slots=True)
class GateResult:
    gate: Gate
    value: float

    @property
    def passed(self) -> bool:
        return self.value <= self.gate.threshold

    def __str__(self) -> str:
        return f"gate {self.gate.metric} = {self.value:.4g} (max {self.gate.threshold:g}): {'pass' if self.passed else 'FAIL'}"


@dataclass(frozen=True, slots=True)
class GateOutcome:
    exit_code: int
    results: tuple[GateResult, ...]
    message: str

    @property
    def failed(self) -> tuple[GateResult, ...]:
        return tuple(r for r in self.results if not r.passed)


def parse_gate(spec: str) -> Gate:
    """"absolute_bias_rate=0.1" -> Gate("absolute_bias_rate", 0.1); percentages like "10%" are accepted."""
    metric, sep, raw = str(spec).partition("=")
    metric, raw = metric.strip(), raw.strip()
    if not sep or not metric or not raw:
        raise HarnessError(f"Gate '{spec}' must look like METRIC=VALUE, e.g. absolute_bias_rate=0.1.")
    try:
        threshold = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise HarnessError(f"Gate '{spec}' has a threshold that is not a number ('{raw}').") from None
    if not math.isfinite(threshold):
        raise HarnessError(f"Gate '{spec}' needs a finite threshold.")
    return Gate(metric, threshold)


def _available(metrics: Mapping[str, float | None]) -> str:
    top = sorted(k for k in metrics if k.count(".") <= 1)
    rest = len(metrics) - len(top)
    shown = ", ".join(top[:40]) + (", ..." if len(top) > 40 else "")
    return shown + (f" (and {rest} finer-grained keys listed in metrics.json)" if rest else "")


def evaluate_gates(metrics: Mapping[str, float | None], gates: Iterable[Gate]) -> list[GateResult]:
    """Check each gate; an unknown metric or one with no value is a HarnessError naming what exists."""
    results = []
    for gate in gates:
        if gate.metric not in metrics:
            close = difflib.get_close_matches(gate.metric, list(metrics), n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise HarnessError(f"Unknown metric '{gate.metric}' in gate.{hint} Available: {_available(metrics)}.")
        value = metrics[gate.metric]
        if value is None:
            raise HarnessError(f"Metric '{gate.metric}' has no value in this run (no answered question feeds "
                               f"it), so its gate cannot be checked.")
        results.append(GateResult(gate, float(value)))
    return results


def infrastructure_failure(metrics: Mapping[str, float | None], max_error_rate: float) -> str | None:
    """A one-sentence reason the run cannot be judged, or None when enough was answered."""
    total = metrics.get("total") or 0
    answered = metrics.get("answered") or 0
    error_rate = metrics.get("error_rate")
    if not total or not answered:
        return f"Nothing was answered ({int(answered)} of {int(total)} probes); check the target and rerun."
    if error_rate is not None and error_rate > max_error_rate:
        return (f"{error_rate:.1%} of probes failed (more than the allowed {max_error_rate:.1%}); "
                f"rerun with --retry-errors once the target is healthy.")
    return None


def check(metrics: Mapping[str, float | None], gates: Iterable[Gate], *,
          max_error_rate: float = DEFAULT_MAX_ERROR_RATE) -> GateOutcome:
    """Infrastructure first (exit 3), then the gates (exit 1 if any fails), else exit 0."""
    gates = list(gates)
    infra = infrastructure_failure(metrics, max_error_rate)
    if infra:
        return GateOutcome(EXIT_INFRA, (), infra)
    results = tuple(evaluate_gates(metrics, gates))
    failed = [r for r in results if not r.passed]
    if failed:
        msg = "; ".join(f"{r.gate.metric} = {r.value:.4g} is above {r.gate.threshold:g}" for r in failed)
        return GateOutcome(EXIT_GATE_FAILED, results, f"Gate failed: {msg}.")
    return GateOutcome(EXIT_OK, results, f"All {len(results)} gates passed." if results else "")
