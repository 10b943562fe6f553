"""Default gates: the gates a CI check of a run can start from, declared by its probe kinds.

A kind names its default gates where it is declared (harness.core.kinds.ProbeKind.gates, in the gate
syntax of harness.gates.checks.parse_gate: "metric=threshold" fails above, "metric>=threshold" below);
this module turns the ones of the kinds a run holds into Gates, without knowing any kind. They are a
starting point a user copies and tightens, never applied silently: `harness run` gates only what
--fail-above and --fail-below name.
"""

from __future__ import annotations

from collections.abc import Iterable

from harness.core.kinds import kind_spec
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
