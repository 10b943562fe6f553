"""`harness run --default-gates` (issue 36): the default gates the run's probe kinds declare are applied only when
asked (applying them by default would change the exit code of documented commands); docs/ci_gates.md.
A real run of builtin-en against a real server on 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import pytest
from fault_server import FaultServer

from harness.cli import main
from harness.gates.checks import parse_gate


def test_default_gates_apply_only_with_the_flag(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli.run import with_default_gates

    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        args = ["run", "--suite", "builtin-en", "--sample", "6", "--target", "bot", "--no-progress"]
        assert main(args) == 0
        plain = capsys.readouterr().out
        assert "absolute_bias_rate <= 0.1" not in plain and "max 0.1" not in plain
        code = main([*args, "--default-gates"])
        gated = capsys.readouterr().out
    assert code in (0, 1) and "absolute_bias_rate" in gated and "max 0.1" in gated, gated
    run_dir = run_env / "transcripts" / "builtin-en__bot__s6-seed0"
    mine = parse_gate("absolute_bias_rate=0.5")
    gates = with_default_gates([mine], run_dir)
    assert gates[0] is mine and "absolute_bias_rate" not in [g.metric for g in gates[1:]]  # the user's wins
    assert with_default_gates([], run_dir)  # builtin-en's kinds declare gates
    assert main([*args, "--default-gates", "--no-report"]) == 2
    assert "--default-gates need the scores" in capsys.readouterr().err
