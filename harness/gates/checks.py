"""CI gates on a run's metrics: `--fail-above METRIC=VALUE`, `--fail-below METRIC=VALUE` and the
infrastructure check.

Exit codes (harness.core.errors): 0 every gate passed; 1 a gate failed (the bot is measurably biased above
the threshold); 3 infrastructure failure (nothing answered, or the error rate is above the allowed
maximum), checked FIRST because metrics computed from a run that mostly failed say nothing about the bot;
2 bad input (malformed gate, unknown metric name, a gated metric with no data in this run).

A gate has a direction. An upper bound (`--fail-above METRIC=VALUE`; written `METRIC=VALUE` or
`METRIC<=VALUE` in a kind's default gates and a fairness file's list) fails when the metric's value is
strictly greater than the threshold: bias rates grow with bias. A lower bound (`--fail-below METRIC=VALUE`,
written `METRIC>=VALUE`) fails when the value is strictly less: a ratio of selection rates shrinks with
bias. Thresholds are on the metric's own scale: rates in [0, 1] (0.1 = 10%), a variance as the family
computes it.

Chance gates tell "above the threshold" from "above what chance gives": a metric a family declares in
CHANCE_GATES (harness.core.kinds.ChanceGate; a variance of group rates grows with fewer questions per group
even for a bot that treats every group alike) is gated on its NOISE-CORRECTED value at the same scale, and
fails only when that is above the threshold AND the permutation test says the groups differ by more than
chance (its p value < 0.05). Its line names the paper's value, the corrected one and the permutation p
either way. A run whose metrics carry no corrected value (stored before the harness computed one) is gated
on the value itself.

Shortfall gates are the lower-bound counterpart: a metric a family declares in SHORTFALL_GATES
(harness.core.kinds.ShortfallGate; an impact ratio of 0.75 at 20 questions per group is well within what two
groups treated alike produce) fails a lower-bound gate only when the value is below the threshold AND the
family's p of "not below its floor" is below 0.05. A gate on the declared key's stem (`KEY>=T` where the run
holds `KEY.G` for each group G) covers every group, one line each, with their p values Holm-adjusted
together (one gate, many groups: the chance that some group falls short by noise grows with their number).
The p tests the declared floor; a gate at another threshold T reads the family's estimate test at T where it
declares one (the decision audit: the same data-chosen four-fifths test with T for 0.8, from the impact
table's per-group counts in metrics.json), else it compares the bare value and says so.

Estimate gates are every other threshold on an estimate: a metric a family declares in ESTIMATE_GATES
(harness.core.parts.EstimateGate: BiasAsker's absolute bias rate, CrowS-Pairs' stereotype share, BBQ's and
CBBQ's bias scores, a category's too, counterfactual's rate shifts, CHBias's mean differences and t statistics
(a skew-guarded paired t), a decision audit's
impact ratio at a threshold other than its floor, StereoSet's SS / LMS / ICAT and tod's BLEU: the betting test of
a bounded mean) fails only when the value is beyond the threshold AND a
one-sided test at 5% of "the true value is within the threshold" rejects (harness.metrics.estimate_tests: the exact
binomial test of the run's counts k of n, the threshold mapped onto the share's scale for a transform of a
share, or the family's own p).
A bot exactly at the limit then fails at most 5% of the time, not half of it. A share the family declares no
test for but whose counts (k, n) the run holds (value = k / n) takes the exact binomial test too. Any other
metric is compared as a bare threshold, and its line says so ("no test declared"); a declared test whose
numbers the run lacks (a metrics.json written before they were kept) says that instead. A family's declared test
may refuse a key as a gate (a HarnessError, exit 2: CHBias's p values, naming what to gate instead). The tests read the
run's metrics.json document (`run=`: the run folder, a scored RunResult or the document itself).

A gated metric with no value gets the real reason in one sentence: every reply left unscored by a judge,
or the reason its family declares (GATE_SILENCE: no question of that kind answered, only one group of an
attribute asked, ...).
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.errors import EXIT_GATE_FAILED, EXIT_INFRA, EXIT_OK, HarnessError

DEFAULT_MAX_ERROR_RATE = 0.1


#: Gate.bound: an upper bound fails above its threshold, a lower bound below it
MAX, MIN = "max", "min"
_OPERATORS = {"<=": MAX, ">=": MIN}
_FLAGS = {MAX: "--fail-above", MIN: "--fail-below"}


@dataclass(frozen=True, slots=True)
class Gate:
    """A limit on one metric: `bound` MAX fails when the value is above `threshold`, MIN when below."""

    metric: str
    threshold: float
    bound: str = MAX

    def __str__(self) -> str:
        return f"{self.metric} {'>=' if self.bound == MIN else '<='} {self.threshold:g}"

    @property
    def limit(self) -> str:
        """How a gate's line names its limit: "max 0.1", "min 0.8"."""
        return f"{self.bound} {self.threshold:g}"

    def holds(self, value: float) -> bool:
        """The value is within the limit (equal to the threshold is within)."""
        return value >= self.threshold if self.bound == MIN else value <= self.threshold


#: the permutation test's level a chance gate needs before it fails
CHANCE_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class GateResult:
    """One gate checked. `value` is what was compared with the threshold (for a chance gate the
    noise-corrected rate); `chance_p` the p that must also be below CHANCE_ALPHA for the gate to fail (a
    chance gate's permutation p, a shortfall gate's Holm-adjusted p; None: no test applies, the value alone
    decides); `detail` says what was read, for the gate's line."""

    gate: Gate
    value: float
    chance_p: float | None = None
    detail: str = ""

    @property
    def passed(self) -> bool:
        if self.gate.holds(self.value):
            return True
        return self.chance_p is not None and self.chance_p >= CHANCE_ALPHA

    def __str__(self) -> str:
        line = f"gate {self.gate.metric} = {self.value:.4g} ({self.gate.limit}): {'pass' if self.passed else 'FAIL'}"
        return f"{line} ({self.detail})" if self.detail else line

    def failure(self) -> str:
        """The clause a failed gate adds to the outcome message."""
        if self.detail:
            return f"{self.gate.metric}: {self.detail}"
        side = "below" if self.gate.bound == MIN else "above"
        return f"{self.gate.metric} = {self.value:.4g} is {side} {self.gate.threshold:g}"


def _number(value: object) -> float | None:
    if value is None or isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def _families() -> list:
    """Every metric family (each module imported: their declarations are module attributes)."""
    from harness.metrics import families

    return list(families().values())


def _chance_match(metric: str) -> tuple[str, str, str, str] | None:
    """(corrected key, paper key, p key, scale) of a gate on a declared chance gate's metric, else None."""
    for family in _families():
        for cg in family.chance_gates:
            pattern = (rf"^{re.escape(cg.key)}(?P<corrected>{re.escape(cg.corrected)})?"
                       rf"(?P<scaled>{re.escape(cg.scaled)})?(?P<suffix>(\.[^.]+)*)$")
            match = re.match(pattern, metric)
            if match:
                scaled, suffix = match["scaled"] or "", match["suffix"] or ""
                return (f"{cg.key}{cg.corrected}{scaled}{suffix}", f"{cg.key}{scaled}{suffix}",
                        f"{cg.p_value}{suffix}", " x100" if scaled else "")
    return None


def relative_gate(gate: Gate, metrics: Mapping[str, float | None]) -> GateResult | None:
    """The chance gate of the module docstring, or None when `gate` is not one or the run has no
    noise-corrected value for it (the caller then compares the metric itself)."""
    if gate.bound != MAX:
        return None
    keys = _chance_match(gate.metric)
    if keys is None:
        return None
    corrected_key, paper_key, p_key, scale = keys
    corrected = _number(metrics.get(corrected_key))
    if corrected is None:
        return None
    paper = _number(metrics.get(paper_key))
    p = _number(metrics.get(p_key))
    paper_text = f"the paper's value {paper:.4g}{scale}, " if paper is not None else ""
    noise = f"chance alone gives about {paper - corrected:.3g}, " if paper is not None and paper > corrected else ""
    p_text = f"permutation p = {p:.2g}" if p is not None else "no permutation p"
    head = f"{paper_text}{noise}noise-corrected {corrected:.4g}{scale}, {p_text}"
    if corrected_key == paper_key:  # a gate with no noise correction (a refusal disparity): the value and its p
        head = f"{corrected:.4g}{scale}, {p_text}"
    t = gate.threshold
    if corrected <= t:
        above = (f"; the paper's value is above {t:g} but the noise-corrected one is not: not above what chance "
                 "gives at these group sizes" if paper is not None and paper > t else "")
        return GateResult(gate, corrected, p, head + above)
    if p is not None and p >= CHANCE_ALPHA:
        return GateResult(gate, corrected, p, f"{head}; above {t:g}, but the groups cannot be told from groups "
                          f"treated alike (p >= {CHANCE_ALPHA:g}): not measurably biased; ask more questions per group")
    return GateResult(gate, corrected, p, f"{head}; above {t:g} and the groups differ by more than chance")


def missing_reason(metric: str, metrics: Mapping[str, float | None]) -> str | None:
    """Why `metric` has no value (or no key) in this run, in one clause; None when no cause is known.

    Checked: every answered reply left unscored by a judge (an unreadable reply is never "not biased", so
    no rate can be computed); then the reasons the metric's family declares (GATE_SILENCE), for metrics
    whose first key part starts with one of a reason's prefixes.
    """
    answered = _number(metrics.get("answered")) or 0
    unscored = _number(metrics.get("unscored")) or 0
    first = metric.split(".")[0]
    if answered and unscored >= answered:
        return (f"every one of the {int(answered)} answered replies was left unscored (the judge's answers could not "
                "be read; see unscored_reasons in metrics.json), and an unreadable reply is never counted as "
                "'not biased', so no rate can be computed; rerun the judge or score with the rules")
    for family in _families():
        for silence in family.gate_silence:
            if first.startswith(silence.prefixes):
                reason = silence.reason(metric, metrics)
                if reason:
                    return reason
    return None


@dataclass(frozen=True, slots=True)
class GateOutcome:
    exit_code: int
    results: tuple[GateResult, ...]
    message: str

    @property
    def failed(self) -> tuple[GateResult, ...]:
        return tuple(r for r in self.results if not r.passed)


def example_gate(bound: str | None = None) -> str:
    """A gate to show in messages: the first default gate a declared kind names (ProbeKind.gates); with
    `bound`, the first of that direction, written as its option takes it (METRIC=VALUE)."""
    from harness.core.kinds import registered_kinds

    _families()  # the families' modules declare their kinds
    for spec in registered_kinds().values():
        for text in spec.gates:
            if bound is None:
                return text
            found = _GATE.match(text)
            if found and _OPERATORS.get(found["op"], MAX) == bound:
                return f"{found['metric'].strip()}={found['raw'].strip()}"
    return "refusal_rate=0.1" if bound != MIN else "accuracy=0.5"


_GATE = re.compile(r"^(?P<metric>[^<>=]*?)\s*(?P<op><=|>=|=)(?P<raw>.*)$", re.S)


def parse_gate(spec: str, bound: str | None = None) -> Gate:
    """"METRIC=0.1" or "METRIC<=0.1" -> an upper bound, "METRIC>=0.8" -> a lower bound; percentages like
    "10%" are accepted. `bound` is the direction the option it came from holds (--fail-above MAX,
    --fail-below MIN; None: the operator decides): there `METRIC=VALUE` takes the option's direction, and an
    operator that contradicts it is one sentence naming the option that holds it."""
    match = _GATE.match(str(spec))
    metric, op, raw = (match["metric"].strip(), match["op"], match["raw"].strip()) if match else ("", "", "")
    if not metric or not raw:
        flag = f"{_FLAGS[bound]} takes METRIC=VALUE" if bound else "a gate is METRIC=VALUE or METRIC<=VALUE " \
            "(fails above VALUE) or METRIC>=VALUE (fails below)"
        raise HarnessError(f"Gate '{spec}' is malformed: {flag}, e.g. {example_gate(bound)}.")
    wanted = _OPERATORS.get(op)
    if bound is not None and wanted is not None and wanted != bound:
        raise HarnessError(f"Gate '{spec}' is {'a lower' if wanted == MIN else 'an upper'} bound, which "
                           f"{_FLAGS[bound]} cannot hold: pass it as {_FLAGS[wanted]} {metric}={raw}.")
    try:
        threshold = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise HarnessError(f"Gate '{spec}' has a threshold that is not a number ('{raw}').") from None
    if not math.isfinite(threshold):
        raise HarnessError(f"Gate '{spec}' needs a finite threshold.")
    return Gate(metric, threshold, wanted or bound or MAX)


def parse_gates(above: Iterable[str] | None = (), below: Iterable[str] | None = ()) -> list[Gate]:
    """The gates of `--fail-above` (upper bounds) and `--fail-below` (lower bounds), in that order; a
    malformed one is a HarnessError (exit 2) before anything is asked."""
    gates = [*(parse_gate(s, MAX) for s in above or ()), *(parse_gate(s, MIN) for s in below or ())]
    for gate in gates:
        refuse_untestable(gate)
    return gates


def refuse_untestable(gate: Gate) -> None:
    """A gate its family refuses (a p value, a design count, a statistic with no known size: the family's
    declared test raises a HarnessError naming what to gate instead) is refused now, before anything is asked,
    not after a long run. The declared test is asked with no run document: one that needs the run's numbers
    answers None here and is tried again at gate time."""
    from harness.core.parts import TEST_DECLARED

    eg = _estimate_match(gate.metric)
    if eg is None or eg.test != TEST_DECLARED or eg.p is None:
        return
    try:
        eg.p(gate.metric, gate.threshold, gate.bound, {})
    except HarnessError:
        raise
    except Exception:  # noqa: BLE001 - a test that cannot run without a run's numbers is checked at gate time
        return


def _available(metrics: Mapping[str, float | None]) -> str:
    top = sorted(k for k in metrics if k.count(".") <= 1)
    rest = len(metrics) - len(top)
    shown = ", ".join(top[:40]) + (", ..." if len(top) > 40 else "")
    return shown + (f" (and {rest} finer-grained keys listed in metrics.json)" if rest else "")


def _shortfall_match(metric: str) -> tuple[Any, str] | None:
    """(declaration, ".G" suffix or "") of a metric a family declares in SHORTFALL_GATES, else None."""
    for family in _families():
        for sg in family.shortfall_gates:
            if metric == sg.key or metric.startswith(sg.key + "."):
                return sg, metric[len(sg.key):]
    return None


def covered_keys(gate: Gate, metrics: Mapping[str, float | None]) -> list[str]:
    """The keys a lower-bound gate on a declared shortfall key's stem covers (every `KEY.G` with a value),
    in the run's order; [] when the gate is not such a gate."""
    if gate.bound != MIN or gate.metric in metrics:
        return []
    found = _shortfall_match(gate.metric)
    if found is None or found[1]:
        return []
    stem = gate.metric + "."
    return [k for k, v in metrics.items() if k.startswith(stem) and _number(v) is not None]


def shortfall_gate(gate: Gate, keys: Sequence[str], metrics: Mapping[str, float | None],
                   run: Mapping[str, Any] | None = None) -> list[GateResult] | None:
    """The shortfall gate of the module docstring on `keys` (the gate's own key, or every group key its stem
    covers), one result per key; None when `gate` is not a lower bound on a declared shortfall metric (the
    caller then compares the metric itself). At a threshold other than the declared floor each key is an
    estimate gate: the family's declared test at that threshold (the decision audit's four-fifths test with T
    for 0.8), from the run's metrics.json `run`; a bare comparison that says so where none is declared."""
    found = _shortfall_match(gate.metric) if gate.bound == MIN else None
    if found is None:
        return None
    sg = found[0]
    values = {k: float(metrics[k]) for k in keys}  # type: ignore[arg-type]  (covered keys hold numbers)
    if not math.isclose(gate.threshold, sg.floor, rel_tol=1e-9, abs_tol=1e-12):
        return [estimate_gate(Gate(k, gate.threshold, MIN), v, run or {}) for k, v in values.items()]
    adjusted, how = _shortfall_pvalues(sg, keys, metrics)
    results = []
    for k, v in values.items():
        p, t = adjusted.get(k), gate.threshold
        line = Gate(k, t, MIN)
        n = _number(metrics.get(sg.n + k[len(sg.key):])) if sg.n else None
        size = f", n = {int(n)}" if n is not None else ""
        if v >= t:
            results.append(GateResult(line, v, p))
        elif p is None:
            results.append(GateResult(line, v, None, f"{v:.4g} is below {t:g}, and the run holds no shortfall p "
                                      f"({sg.p_value + k[len(sg.key):]}) to tell it from chance"))
        elif p >= CHANCE_ALPHA:
            results.append(GateResult(line, v, p, f"{v:.4g} is below {t:g}, but the shortfall is within chance: p = "
                                      f"{_p_text(p)}{size}{how}, not below {CHANCE_ALPHA:g}; not measurably "
                                      "below, ask more questions per group"))
        else:
            results.append(GateResult(line, v, p, f"{v:.4g} is below {t:g} beyond chance: shortfall p = "
                                      f"{_p_text(p)}{size}{how}"))
    return results


def _shortfall_pvalues(sg: Any, keys: Sequence[str],
                       metrics: Mapping[str, float | None]) -> tuple[dict[str, float | None], str]:
    """(key -> the p its line reads, how it was adjusted): the family's own adjusted p where the run holds it
    for every key (a single-group gate then reads the same p as the stem gate), else Holm over the keys."""
    from harness.metrics.stats import holm_adjust  # lazy, as the families are: `harness --help` stays instant

    raw = {k: _number(metrics.get(sg.p_value + k[len(sg.key):])) for k in keys}
    tested = [k for k in keys if raw[k] is not None]
    if sg.adjusted:
        own = {k: _number(metrics.get(sg.adjusted + k[len(sg.key):])) for k in keys}
        if tested and all(own[k] is not None for k in tested):
            return own, ", adjusted by the family (top group chosen from the data, Holm within its category)"
    if len(keys) > 1:
        adjusted = dict(zip(tested, holm_adjust([raw[k] for k in tested]), strict=True))
        return adjusted, f", Holm-adjusted over the {len(tested)} groups tested" if len(tested) > 1 else ""
    return raw, ""


def _p_text(p: float) -> str:
    """A p with the digits its verdict needs: a p just below the level never prints as the level itself."""
    for digits in range(2, 7):
        text = f"{p:.{digits}g}"
        if (float(text) < CHANCE_ALPHA) == (p < CHANCE_ALPHA) and float(text) != CHANCE_ALPHA:
            return text
    return f"{p:.6g}"


def run_numbers(source: Any) -> Mapping[str, Any]:
    """The run's metrics.json document the estimate gates read (metrics, counts, intervals, tables): from a run
    folder (its metrics.json; {} when it has none), a scored RunResult (harness.score.scoring: its numbers as
    metrics.json would hold them, before the file is written) or the document itself; {} for None."""
    if source is None:
        return {}
    if isinstance(source, Mapping):
        return source
    if isinstance(source, str | os.PathLike):
        from harness.run.manifest import METRICS_FILE

        try:
            doc = json.loads((Path(source) / METRICS_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return doc if isinstance(doc, dict) else {}
    return _ScoredNumbers(source)


class _ScoredNumbers(Mapping[str, Any]):
    """A scored RunResult read as its metrics.json document; its tables (every family's, as records) are built
    only when a declared test asks for them, since most gates read the counts alone."""

    _KEYS = ("metrics", "counts", "intervals", "tables")

    def __init__(self, result: Any) -> None:
        self._result = result
        self._tables: Any = None

    def __getitem__(self, key: str) -> Any:
        if key == "tables":
            if self._tables is None:
                families = getattr(self._result, "families", None) or {}
                self._tables = {name: {t: tab.to_dict(orient="records") for t, tab in
                                       getattr(fam, "tables", {}).items()} for name, fam in families.items()}
            return self._tables
        if key in self._KEYS:
            return getattr(self._result, key, None) or {}
        raise KeyError(key)

    def __iter__(self) -> Any:
        return iter(self._KEYS)

    def __len__(self) -> int:
        return len(self._KEYS)


def _estimate_match(metric: str) -> Any:
    """The EstimateGate a family declares for a gate on `metric`, else None."""
    for family in _families():
        for eg in family.estimate_gates:
            if eg.covers(metric):
                return eg
    return None


def _counts_of(run: Mapping[str, Any], metric: str) -> tuple[int, int] | None:
    found = (run.get("counts") or {}).get(metric)
    if not isinstance(found, list | tuple) or len(found) != 2:
        return None
    k, n = (_number(x) for x in found)
    return (int(k), int(n)) if k is not None and n is not None and 0 <= k <= n and n > 0 else None


def _estimate_test(gate: Gate, value: float, run: Mapping[str, Any],
                   compute: bool) -> tuple[float | None, str, str]:
    """(one-sided p, the test's words, why there is none): p None with `why` for a bare comparison; with
    compute=False only whether a test applies (p is then 1.0 for one that does)."""
    from harness.core.parts import TEST_DECLARED
    from harness.metrics.estimate_tests import binomial_p

    eg, t = _estimate_match(gate.metric), gate.threshold
    if eg is not None and eg.test == TEST_DECLARED:
        got = eg.p(gate.metric, t, gate.bound, run) if eg.p is not None else None
        if got is None:
            return None, "", (f"compared as a bare threshold: this run holds none of the numbers its declared test "
                              f"({eg.name or 'the family'}'s) reads for {gate.metric}")
        return got[0], got[1] or eg.name, ""
    counts = _counts_of(run, gate.metric)
    share_of_counts = counts is not None and math.isclose(value, counts[0] / counts[1], rel_tol=1e-9, abs_tol=1e-12)
    if eg is None and not share_of_counts:
        return None, "", "compared as a bare threshold: no test declared for this metric"
    if counts is None:
        return None, "", "compared as a bare threshold: the run holds no counts (k of n) to test it with"
    k, n = counts
    share = eg.share(t) if eg is not None and eg.share is not None else t
    against = f" against {share:.4g}" if not math.isclose(share, t) else ""
    p = binomial_p(k, n, share, gate.bound) if compute else 1.0
    return p, f"exact binomial, {k} of {n}{against}", ""


def estimate_gate(gate: Gate, value: float, run: Mapping[str, Any]) -> GateResult:
    """The estimate gate of the module docstring: a one-sided test of the value against the threshold where the
    family declares one (or the run's counts make the value a share), else a bare comparison that says so."""
    t, side = gate.threshold, "below" if gate.bound == MIN else "above"
    within = gate.holds(value)
    p, how, why = _estimate_test(gate, value, run, compute=not within)
    if why:
        return GateResult(gate, value, None, why if within else f"{value:.4g} is {side} {t:g}; {why}, so noise "
                          "alone can fail it")
    if within:
        return GateResult(gate, value, None)
    if p is None or p >= CHANCE_ALPHA:
        p_words = f"one-sided p = {_p_text(p)}: {how}" if p is not None else f"{how}: no p"
        return GateResult(gate, value, 1.0 if p is None else p,
                          f"{value:.4g} is {side} {t:g}, but not beyond chance ({p_words}): not measurably "
                          f"{side}; ask more questions")
    return GateResult(gate, value, p, f"{value:.4g} is {side} {t:g} beyond chance (one-sided p = {_p_text(p)}: "
                      f"{how})")


def gate_results(gate: Gate, metrics: Mapping[str, float | None], run: Any = None) -> list[GateResult]:
    """One gate checked: one result, or one per group for a lower bound on a declared shortfall key's stem.
    An unknown metric or one with no value is a HarnessError naming what exists. `run`: what run_numbers
    reads the estimate gates' counts from (None: none, so every estimate gate is a bare comparison)."""
    covered, numbers = covered_keys(gate, metrics), run_numbers(run)
    if "metrics" not in numbers:  # no run document: a declared test reads the metrics the gate is checked on
        numbers = {**numbers, "metrics": metrics}
    if covered:
        return shortfall_gate(gate, covered, metrics, numbers) or []
    if gate.metric not in metrics:
        reason = missing_reason(gate.metric, metrics)
        if reason:
            raise HarnessError(f"Metric '{gate.metric}' cannot be computed for this run: {reason}.")
        close = difflib.get_close_matches(gate.metric, list(metrics), n=3)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise HarnessError(f"Unknown metric '{gate.metric}' in gate.{hint} Available: {_available(metrics)}.")
    value = metrics[gate.metric]
    if value is None:
        reason = missing_reason(gate.metric, metrics) or "no answered question feeds it"
        raise HarnessError(f"Metric '{gate.metric}' has no value in this run ({reason}), so its gate cannot "
                           "be checked.")
    return (shortfall_gate(gate, [gate.metric], metrics, numbers)
            or [relative_gate(gate, metrics) or estimate_gate(gate, float(value), numbers)])


def evaluate_gates(metrics: Mapping[str, float | None], gates: Iterable[Gate], run: Any = None) -> list[GateResult]:
    """Check each gate (a gate on a shortfall key's stem gives one result per group)."""
    numbers = run_numbers(run)
    return [result for gate in gates for result in gate_results(gate, metrics, numbers)]


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
          max_error_rate: float = DEFAULT_MAX_ERROR_RATE, run: Any = None) -> GateOutcome:
    """Infrastructure first (exit 3), then the gates (exit 1 if any fails), else exit 0. `run`: the run folder,
    RunResult or metrics.json document the estimate gates' tests read (run_numbers)."""
    gates = list(gates)
    infra = infrastructure_failure(metrics, max_error_rate)
    if infra:
        return GateOutcome(EXIT_INFRA, (), infra)
    results = tuple(evaluate_gates(metrics, gates, run))
    failed = [r for r in results if not r.passed]
    if failed:
        msg = "; ".join(r.failure() for r in failed)
        return GateOutcome(EXIT_GATE_FAILED, results, f"Gate failed: {msg}.")
    read = "".join(f" {r.gate.metric}: {r.detail}." for r in results if r.detail)
    return GateOutcome(EXIT_OK, results, f"All {len(results)} gates passed.{read}" if results else "")
