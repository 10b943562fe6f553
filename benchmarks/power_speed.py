"""How long `harness power` takes on a suite: the adaptive Monte-Carlo path against a fixed number of audits.

Why (issue 35): `harness power -s discrim-eval-explicit` ran 2,000 simulated audits per power, through the
family's own test, at 1,050 questions per group and at each size the search for 80% tried: about 3 CPU
minutes for powers of 100%. harness.metrics.gate_power.estimate_power now stops once its Monte-Carlo error
is known to be small enough. This prints, per default gate, the power, its error, the audits run and the
size for 80% by both paths, with CPU seconds (process time), wall seconds and the load average.

Usage: HARNESS_DATA_DIR=... .venv/bin/python benchmarks/power_speed.py [SUITE] [KEY=VALUE ...] [--fixed]
(KEY=VALUE: suite options as -p takes them, e.g. design=sample)
(--fixed: the old fixed-audits path instead, in its own fresh process; default suite discrim-eval-explicit)
(--all: every built-in suite in one process, CPU seconds split into loading the suite's probes, which `harness
run` pays too, and computing every default gate's power; a suite whose data set is missing is named and skipped)
"""

from __future__ import annotations

import os
import sys
import time


def main(argv: list[str]) -> int:
    from harness.gates.power import suite_power
    from harness.metrics.gate_power import DEFAULT_DRAWS

    suite = next((a for a in argv if not a.startswith("--") and "=" not in a), "discrim-eval-explicit")
    params = dict(a.split("=", 1) for a in argv if "=" in a and not a.startswith("--"))
    print(f"suite {suite} {params or ''}, load average {os.getloadavg()[0]:.1f}")
    if "--fixed" in argv:
        return _fixed(suite, params)
    if "--all" in argv:
        return _all()
    cpu, wall = time.process_time(), time.time()
    _name, answers, why = suite_power(suite, params, draws=DEFAULT_DRAWS)
    print(f"adaptive (harness power): {time.process_time() - cpu:.1f} CPU s, {time.time() - wall:.1f} s wall "
          "(suite loaded, probes generated and every default gate answered)")
    for a in answers:
        print(f"  {a.gate}: power {a.power:.3f} +-{a.mc_error:.3f} over {a.draws} audits; 80% at "
              f"{a.n_per_group_for_80} {a.unit}")
    if why:
        print(f"  {why}")
    return 0


def _fixed(suite: str, params: dict[str, str]) -> int:
    from harness.gates.power import gated_probes, suite_probes
    from harness.metrics.gate_power import DEFAULT_DRAWS, declared, power_at, size_for

    cpu, wall = time.process_time(), time.time()
    _name, probes = suite_probes(suite, params)
    for gate, part in gated_probes(probes).items():
        gp = declared(gate.metric)
        if gp is None:
            continue
        design = gp.design(part)
        rate = 0.5 if gp.uses_rate else 0.0
        power = power_at(gp, design, gp.effect, rate, gate.threshold, draws=DEFAULT_DRAWS)
        need = size_for(gp, design, gp.effect, rate, gate.threshold, draws=DEFAULT_DRAWS)
        print(f"  fixed {DEFAULT_DRAWS} audits: {gate}: power {power:.3f}; 80% at {need} {gp.unit}")
    print(f"fixed audits: {time.process_time() - cpu:.1f} CPU s, {time.time() - wall:.1f} s wall")
    return 0


def _all() -> int:
    """Every built-in suite: CPU seconds to load its probes, then to answer every default gate (issue 35)."""
    from harness.core.errors import HarnessError
    from harness.gates.power import answer, gated_probes, suite_probes
    from harness.metrics.gate_power import DEFAULT_DRAWS, declared
    from harness.question_gen.suites import list_suites

    print("suite | probes CPU s | power CPU s | gates answered")
    for name in [s.name for s in list_suites()]:
        cpu = time.process_time()
        try:
            _n, probes = suite_probes(name, {})
        except (HarnessError, ValueError) as exc:
            print(f"{name} | skipped: {str(exc)[:90]}")
            continue
        loaded = time.process_time()
        gates = {g: p for g, p in gated_probes(probes).items()
                 if declared(g.metric) is not None and declared(g.metric).design(p).comparable()}
        answers = [answer(name, g, p, None, None, draws=DEFAULT_DRAWS, seed=0) for g, p in gates.items()]
        said = "; ".join(f"{a.gate} {a.power:.0%}" for a in answers) or "no default gate"
        print(f"{name} | {loaded - cpu:.2f} | {time.process_time() - loaded:.2f} | {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
