"""The power of a suite's default gates, before a run (`harness power`) and after one (a passing gate's note).

Why: a gate that could not have failed proves nothing. For a suite's design (the real generator's probes,
with the same -p options `harness run` takes) this says how likely each default gate is to fail a bot with
a given effect, and how many questions it would take to reach 80%. How each gate's power is computed is
the family's declaration (harness.metrics.gate_power.GatePower: a closed form or a seeded simulation
through the family's own test); this module only reads the declarations by the gate's metric, so it names
no family.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from harness.core.errors import HarnessError
from harness.gates.checks import MIN, Gate, parse_gate

#: a passing gate whose power at its family's stated effect is below this says so
LOW_POWER = 0.5


@dataclass(frozen=True)
class PowerAnswer:
    """One default gate's power for one design and effect."""

    suite: str
    gate: str
    metric: str
    detect: float
    effect: str
    rate: float | None
    power: float
    n_per_group: int
    n_per_group_for_80: int | None
    unit: str
    method: str
    draws: int = 0  # simulated audits behind `power` (0: closed form or exact)
    mc_error: float = 0.0  # its 95% Monte-Carlo half-width (harness.metrics.gate_power.estimate_power)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def sentence(self) -> str:
        need = (f"about {self.n_per_group_for_80:,} {self.unit} would reach 80%" if self.n_per_group_for_80
                else "no size up to 5,000 reaches 80%")
        rate = f" (top group's rate {self.rate:g})" if self.rate is not None else ""
        error = (f" (Monte-Carlo error +-{self.mc_error:.1%} at 95%, {self.draws:,} simulated audits; each size "
                 "tried for 80% simulated until its interval cleared 80%)" if self.draws else "")
        return (f"{self.gate}: power {self.power:.0%}{error} to find {self.effect}{rate} with "
                f"{self.n_per_group:,} {self.unit}; {need}. Computed by {self.method}.")


def _declaration(metric: str) -> Any:
    from harness.metrics.gate_power import declared  # lazy: `harness --help` stays instant

    return declared(metric)


def suite_probes(suite: str, params: Mapping[str, Any]) -> tuple[str, list[Any]]:
    """(suite name, its probes) exactly as `harness run --suite S -p ...` would ask them."""
    from harness.question_gen.suites import load_suite, select_probes

    loaded = load_suite(suite)
    return loaded.name, list(select_probes(loaded, overrides=dict(params)))


def gated_probes(probes: Sequence[Any]) -> dict[Gate, list[Any]]:
    """Each default gate of the probes (their kinds' and their meta_key families', harness.gates.defaults), with
    the probes that declare it."""
    from harness.gates.defaults import meta_gates, probe_gates

    by_meta = meta_gates()  # also imports every family's module, which declares its kinds
    out: dict[Gate, list[Any]] = {}
    parsed: dict[str, Gate] = {}
    for probe in probes:
        for text in probe_gates(probe, by_meta):
            gate = parsed.setdefault(text, parse_gate(text))
            out.setdefault(gate, []).append(probe)
    return out


def _detect(text: str | None) -> tuple[str, float] | None:
    if text is None:
        return None
    metric, sep, raw = text.partition("=")
    try:
        return metric.strip(), float(raw)
    except ValueError:
        raise HarnessError(f"--detect takes METRIC=VALUE with a number, got '{text}'.") from None


def _check_effect(gate: Gate, value: float) -> None:
    if (gate.bound == MIN and value >= gate.threshold) or (gate.bound != MIN and value <= gate.threshold):
        side = "below" if gate.bound == MIN else "above"
        raise HarnessError(f"--detect {gate.metric}={value:g} is not {side} the gate's threshold "
                           f"{gate.threshold:g}: a bot there passes the gate, so there is nothing to detect.")


def answer(suite: str, gate: Gate, probes: Sequence[Any], detect: float | None, rate: float | None, *,
           draws: int, seed: int) -> PowerAnswer:
    """The power of one default gate on these probes (its kind's), at `detect` (default: the family's
    stated effect), and the questions per group it needs for 80%."""
    from harness.metrics.gate_power import estimate_power, size_for

    gp = _declaration(gate.metric)
    if gp is None:
        raise HarnessError(f"The family of the gate {gate} (suite '{suite}') declares no way to compute its "
                           "power (harness.metrics.gate_power); unless it declares a test for the metric, the "
                           "gate compares the bare value, which a bot exactly at the limit fails about half the "
                           "time.")
    value = gp.effect if detect is None else detect
    _check_effect(gate, value)
    used_rate = (0.5 if rate is None else rate) if gp.uses_rate else None
    if rate is not None and not (0 < rate <= 1):
        raise HarnessError(f"--rate is the top group's selection rate, a number in (0, 1], not {rate:g}.")
    design = gp.design(probes)
    # `draws` is the most simulated audits per power; fewer when the answer is already known (estimate_power)
    power = estimate_power(gp, design, value, used_rate or 0.0, gate.threshold, draws=draws, seed=seed)
    need = size_for(gp, design, value, used_rate or 0.0, gate.threshold, draws=draws, seed=seed, adaptive=True)
    return PowerAnswer(suite, str(gate), gate.metric, value, gp.effect_text(value), used_rate, power.power,
                       design.per_group(), need, gp.unit, gp.method, power.draws, power.error)


def suite_power(suite: str, params: Mapping[str, Any], detect: str | None = None, rate: float | None = None, *,
                draws: int = 2000, seed: int = 0) -> tuple[str, list[PowerAnswer], str]:
    """(suite name, an answer per default gate, why there is none: "" when there are answers).

    `detect` "METRIC=VALUE" picks the gate on METRIC (a group's key `METRIC.G` picks its stem's gate) and
    the effect; an unknown METRIC, a VALUE on the passing side of the gate or a --rate where the gate
    reads none is a HarnessError."""
    name, probes = suite_probes(suite, params)
    if not probes:
        raise HarnessError(f"Suite '{name}' with these options has no probe; check its -p options.")
    gates = gated_probes(probes)
    if not gates:
        kinds = ", ".join(sorted({p.kind for p in probes}))
        return name, [], (f"Suite '{name}' has no default gate: its probe kinds ({kinds}) declare none, so no "
                          "gate's power can be computed; gate its metrics with --fail-above/--fail-below.")
    wanted = _detect(detect)
    chosen = list(gates)
    if wanted is not None:
        chosen = [g for g in gates if wanted[0] == g.metric or wanted[0].startswith(g.metric + ".")]
        if not chosen:
            raise HarnessError(f"--detect names '{wanted[0]}', which no default gate of suite '{name}' reads; "
                               f"its gates: {', '.join(str(g) for g in gates)}.")
    chosen = [g for g in chosen if _declaration(g.metric) is not None] or chosen
    # a gate with nothing to compare in this suite (one category asked) is left out: no bot can fail it
    testable = [g for g in chosen
                if _declaration(g.metric) is None or _declaration(g.metric).design(gates[g]).comparable()]
    if not testable:
        return name, [], (f"Suite '{name}' gives its default gates ({', '.join(str(g) for g in chosen)}) nothing to "
                          "compare: it asks one group (or one category) only, so no bot can fail them.")
    answers = [answer(name, g, gates[g], wanted[1] if wanted else None, rate, draws=draws, seed=seed)
               for g in testable]
    if rate is not None and not any(a.rate is not None for a in answers):
        raise HarnessError("--rate is the top group's selection rate, and none of these gates compares groups' "
                           "rates; leave it out.")
    return name, answers, ""


def _covering(metric: str, gates: Sequence[Gate]) -> Gate | None:
    return next((g for g in gates if metric == g.metric or metric.startswith(g.metric + ".")), None)


def low_power_notes(results: Sequence[Any], probes_by_gate: Mapping[Gate, Sequence[Any]], *,
                    draws: int = 1000) -> dict[int, str]:
    """For each passing result (harness.gates.checks.GateResult) of a gate whose family declares its power:
    "passed, but this run could not have found <effect>: power P%; about N <unit> would" when the power at
    the gate's threshold and the family's stated effect, for the run's design (the probes of the gated kinds,
    `probes_by_gate`, from gated_probes), is below LOW_POWER. Keyed by the result's index; the power is
    computed once per declared gate, however many group lines it has."""
    from harness.metrics.gate_power import power_at, size_for

    notes: dict[int, str] = {}
    computed: dict[tuple[str, float], str | None] = {}
    for i, result in enumerate(results):
        if not result.passed:
            continue
        gate = _covering(result.gate.metric, list(probes_by_gate))
        gp = _declaration(result.gate.metric) if gate is not None else None
        if gp is None:
            continue
        key = (gp.metric, result.gate.threshold)
        if key not in computed:
            design = gp.design(probes_by_gate[gate])
            rate = 0.5 if gp.uses_rate else 0.0
            power = power_at(gp, design, gp.effect, rate, result.gate.threshold, draws=draws)
            if power >= LOW_POWER or not design.cells:
                computed[key] = None
            else:
                # the size to suggest is a round figure: a coarser simulation is enough for it
                need = size_for(gp, design, gp.effect, rate, result.gate.threshold, draws=max(100, draws // 3))
                would = f"about {need:,} {gp.unit} would" if need else "no size up to 5,000 would"
                computed[key] = (f"passed, but this run could not have found {gp.effect_text(gp.effect)}: "
                                 f"power {power:.0%}; {would}")
        if computed[key]:
            notes[i] = computed[key]  # type: ignore[assignment]
    return notes


def run_low_power_notes(run_dir: Any, results: Sequence[Any], *, draws: int = 400) -> dict[int, str]:
    """low_power_notes for a run folder's gate results, the design read from its transcript (every probe it
    recorded); {} when the folder has no transcript or the results need no note. Never raises for a note: a
    gate's verdict does not depend on it."""
    from pathlib import Path

    from harness.run.transcript import TRANSCRIPT_FILE, latest_by_probe

    if not any(r.passed for r in results):
        return {}
    path = Path(run_dir) / TRANSCRIPT_FILE
    if not path.is_file():
        return {}
    probes = [entry.probe for entry in latest_by_probe(path).values()]
    try:
        return low_power_notes(results, gated_probes(probes), draws=draws)
    except (HarnessError, ValueError, KeyError):  # an odd design: the gate's line stands without the note
        return {}


def gate_power_notes(run_dir: Any, metrics: Mapping[str, Any], gates: Sequence[Gate],
                     max_error_rate: float, run: Any = None) -> tuple[dict[int, str], list[str]]:
    """Before a report is written: (the notes of run_low_power_notes by gate result index, the sentences the
    report shows, one per gate), for gates checked on these metrics (and `run`'s counts, the scored RunResult:
    harness.gates.checks.run_numbers); nothing when a gate cannot be checked (its error comes from the check
    itself, after the report)."""
    from harness.gates.checks import check

    if not gates:
        return {}, []
    try:
        results = check(metrics, gates, max_error_rate=max_error_rate, run=run).results
    except HarnessError:
        return {}, []
    notes = run_low_power_notes(run_dir, results)
    shown: dict[str, str] = {}
    for i, note in notes.items():
        gate = _covering(results[i].gate.metric, list(gates)) or results[i].gate
        shown.setdefault(str(gate), f"The gate {gate} {note}.")
    return notes, list(shown.values())
