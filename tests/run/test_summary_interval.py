"""The run summary's time and rate describe the same interval (issue 38: "time 9.6 s (515 probes/s)" divided
the probes by the engine's 7.8 s of asking, not by the 9.6 s printed), and it counts replies cut at max_tokens."""

from __future__ import annotations

import io

from rich.console import Console

from harness.run.progress import SessionStats, print_summary


def _summary(stats: SessionStats) -> str:
    out = io.StringIO()
    print_summary(Console(file=out, width=120), run_id="r", run_dir="/tmp/r", status="complete", stats=stats,
                  run_counts={"answered": stats.answered, "errors": 0})
    return " ".join(out.getvalue().split())


def test_time_and_rate_are_one_interval() -> None:
    stats = SessionStats(asked=4000, answered=4000, elapsed_s=7.8, session_s=10.0)
    said = _summary(stats)
    assert "time 10.0 s (400.0 probes/s)" in said, said  # 4,000 / 10.0 s, not 4,000 / 7.8 s = 512.8
    slow = _summary(SessionStats(asked=4, answered=4, elapsed_s=20.0, session_s=24.0))
    assert "time 24.0 s (6.0 s per probe)" in slow, slow


def test_cut_replies_are_counted_only_when_there_are_some() -> None:
    assert "cut at max_tokens 3" in _summary(SessionStats(asked=10, answered=10, cut=3, session_s=1.0))
    assert "cut at max_tokens" not in _summary(SessionStats(asked=10, answered=10, session_s=1.0))
