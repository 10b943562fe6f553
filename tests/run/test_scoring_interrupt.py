"""Ctrl-C while `harness run` scores (issue 36): exit 130 with one line, and `harness runs` does not list the
folder as complete until it is scored. A real run against a real server on 127.0.0.1; the Ctrl-C is a real
SIGINT the process sends itself as scoring starts (Python's own handler turns it into KeyboardInterrupt)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer

from harness.cli import main


def test_ctrl_c_while_scoring(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                              capsys: pytest.CaptureFixture[str]) -> None:
    from harness.score import scoring

    real = scoring.score_run

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)  # the signal arrives first
        return real(*args, **kwargs)

    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        args = ["run", "--suite", "builtin-en", "--sample", "3", "--target", "bot", "--no-progress"]
        monkeypatch.setattr(scoring, "score_run", interrupted)
        assert main(args) == 130
        out = capsys.readouterr().out
        assert out.strip().splitlines()[-1] == ("interrupted while scoring: every reply is saved; score them with "
                                                "`harness report builtin-en__bot__s3-seed0`.")
        assert main(["runs"]) == 0
        listed = capsys.readouterr().out
        assert "scoring interrupted" in listed and " complete " not in listed, listed
        monkeypatch.setattr(scoring, "score_run", real)
        assert main(["report", "builtin-en__bot__s3-seed0"]) == 0
        capsys.readouterr()
        assert main(["runs"]) == 0
        assert "scoring interrupted" not in capsys.readouterr().out
