"""Default gates: the gates a CI check of a run can start from, declared by its probe kinds.

A kind names its default gates where it is declared (harness.core.kinds.ProbeKind.gates, in the gate
syntax of harness.gates.checks.parse_gate: "metric=threshold" fails above, "metric>=threshold" below); a
family that scores the rows whose probe meta holds its meta_key (counterfactual pairs, metamorphic variants)
has no kinds, so it names its own (FamilySpec.gates), for every probe holding that key. This module turns
the ones of a run's probes into Gates, without knowing any kind or family. They are a starting point a user
copies and tightens, never applied silently: `harness run` gates only what --fail-above and --fail-below
name, and the default gates with --default-gates.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.core.kinds import kind_spec
from harness.core.records import Probe
from harness.gates.checks import Gate, parse_gate
from harness.metrics import families


def default_gates(kinds: Iterable[str]) -> list[Gate]:
    """The default gates of these probe kinds, each once, in the order the kinds declare them."""
    families()  # the families' modules declare their kinds
    specs: dict[str, None] = {}
    for kind in kinds:
        spec = kind_spec(kind)
        for gate in spec.gates if spec is not None else ():
            specs.setdefault(gate)
    return [parse_gate(s) for s in specs]


def meta_gates() -> dict[str, tuple[str, ...]]:
    """meta key -> the default gates of the family that scores the probes holding it (FamilySpec.gates)."""
    return {f.meta_key: f.spec.gates for f in families().values() if f.meta_key and f.spec.gates}


def probe_gates(probe: Probe, by_meta: dict[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
    """The default gates one probe is scored under: its kind's, then those of each meta_key family that reads it
    (a `-p perturb=gender` copy of a BiasAsker question: BiasAsker's gates and the counterfactual family's)."""
    by_meta = meta_gates() if by_meta is None else by_meta
    spec = kind_spec(probe.kind)
    own = spec.gates if spec is not None else ()
    return (*own, *(g for key, gates in by_meta.items() if key in probe.meta for g in gates))


def default_gates_of(probes: Iterable[Probe]) -> list[Gate]:
    """The default gates of a run's probes (probe_gates), each once, in the order they are first declared."""
    by_meta = meta_gates()
    specs: dict[str, None] = {}
    seen: set[tuple[str, frozenset[str]]] = set()
    for probe in probes:
        shape = (probe.kind, frozenset(k for k in by_meta if k in probe.meta))
        if shape not in seen:  # a run has a few kinds and meta keys, however many probes
            seen.add(shape)
            specs.update(dict.fromkeys(probe_gates(probe, by_meta)))
    return [parse_gate(s) for s in specs]
