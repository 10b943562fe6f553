"""What the run summary and the live notes say (issue 36): a run with errors is not "complete" on its first line,
a refused connection (or the waits between retries) is not "slow", and the time and rate share one interval."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import free_port
from rich.console import Console

from harness.cli import main
from harness.run.progress import RunProgress, SessionStats, headline, print_summary


def _summary(status: str, counts: dict[str, int], stats: SessionStats) -> str:
    out = io.StringIO()
    print_summary(Console(file=out, width=120), run_id="r", run_dir="/x/r", status=status, stats=stats,
                  run_counts=counts)
    return out.getvalue()


def test_a_run_with_errors_is_not_called_complete() -> None:
    assert headline("complete", {"answered": 53, "errors": 47}) == "complete with 47 errors"
    assert headline("complete", {"answered": 9, "errors": 1}) == "complete with 1 error"
    assert headline("complete", {"answered": 9, "errors": 0}) == "complete"
    assert headline("interrupted", {"errors": 3}) == "interrupted"
    first = _summary("complete", {"answered": 53, "errors": 47}, SessionStats(asked=100)).splitlines()[0]
    assert first == "run r: complete with 47 errors"


def test_the_time_and_the_rate_describe_one_interval() -> None:
    stats = SessionStats(asked=100, answered=100, elapsed_s=2.0, session_s=10.0)
    assert "10.0 s (10.0 probes/s)" in _summary("complete", {"answered": 100}, stats)


def test_only_an_answer_near_the_timeout_is_slow() -> None:
    out = io.StringIO()
    progress = RunProgress(10, enabled=False, console=Console(file=out, width=200))
    progress.record(ok=False, latency_s=4.8, timeout_s=5.0)  # an error after retries: its waits are not slowness
    assert out.getvalue() == ""
    progress.record(ok=True, latency_s=3.0, timeout_s=5.0)
    assert out.getvalue().startswith("slow: a probe took 3.0 s, 60% of the 5 s timeout")


def test_a_refused_connection_is_an_error_not_slow(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    port = free_port()  # nothing listens there: every request is refused
    (run_env / "targets.toml").write_text(
        f'[targets.down]\nadapter = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:{port}/v1"\n',
        encoding="utf-8")
    code = main(["run", "--suite", "builtin-en", "--sample", "2", "--target", "down", "--timeout", "2",
                 "--max-attempts", "3", "--no-report", "--no-progress"])
    captured = capsys.readouterr()
    assert code == 3, captured.out + captured.err
    assert "slow:" not in captured.out + captured.err and "Is the machine busy" not in captured.out + captured.err
    assert "2 answered" not in captured.out and "connection" in captured.out, captured.out  # errors, with reasons
