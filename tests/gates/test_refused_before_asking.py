"""A gate its family refuses (a p value, a design count, an upper bound on an impact ratio) is one sentence and
exit 2 before anything is asked: a 30,000-question run must not end in a usage error (issue 35)."""

from __future__ import annotations

import pytest

from harness.cli import main
from harness.core.errors import EXIT_USAGE


@pytest.mark.parametrize(("flag", "gate", "words"), [
    ("--fail-above", "chbias.p=0.05", "chbias.p cannot be a gate: a p value is not an estimate"),
    ("--fail-above", "decision.asked=100", "it counts the design"),
    ("--fail-above", "decision.min_impact_ratio=0.8", "gate it from below"),
])
def test_a_refused_gate_stops_the_run_before_it_asks(flag: str, gate: str, words: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # --dry-run contacts nothing, and no target is asked: the refusal comes from parsing the gate alone
    assert main(["run", "--suite", "builtin-en", "--target", "local", "--dry-run", flag, gate]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err


def test_a_testable_gate_is_not_refused() -> None:
    from harness.gates.checks import parse_gates

    gates = parse_gates(["chbias.mean_diff=1", "absolute_bias_rate=0.1"], ["decision.min_impact_ratio=0.8"])
    assert [g.metric for g in gates] == ["chbias.mean_diff", "absolute_bias_rate", "decision.min_impact_ratio"]
