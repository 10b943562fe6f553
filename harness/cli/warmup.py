"""The after-asking work's fixed costs, paid while the run is still asking (issue 38).

`harness run` asks, then scores and reports. While it asks, the CPU is mostly idle (the asking loop spends
~0.64 ms of CPU per request against a 100 ms server), but once the last reply is in, scoring and the report
first pay for things that do not depend on the replies at all: importing pandas, jinja2 and the scoring
and report modules (~1 CPU s), every family's module, the oracles' word lists, the English relevance check's
word-piece table, each method's declaration and rules, the report's compiled template. `start()` does
those in a daemon thread as the asking starts; `wait()` joins it before scoring, so scoring never runs
beside it (the registries and caches it fills are then only read) and finds them warm.

Nothing here reads or writes the run's files, so the transcript contract, the verdicts and the metrics are
what scoring alone gives (the same functions fill the same caches, only earlier). A failure here is
swallowed: the same step fails again, with its own one-sentence message, when scoring does it for real.
Ctrl-C and kill -9 behave as before: the thread is a daemon and holds nothing the run writes.
"""

from __future__ import annotations

import contextlib
import os
import threading

ENV = "HARNESS_WARMUP"  # "0": no warm-up (benchmarks/whole_job.py and saturation.py measure without it too)
_THREAD: threading.Thread | None = None


def _imports() -> None:
    """The modules scoring and the report import (pandas, jinja2, the oracles' word lists)."""
    from harness.gates import power  # noqa: F401 - imported for its cost only
    from harness.oracles import rule_for  # noqa: F401
    from harness.report import reporting  # noqa: F401
    from harness.score import scoring  # noqa: F401


def _declarations() -> None:
    """Every family's module, every declared kind, and its rules in both modes (the registries' lazy
    imports), then the report's template and the relevance check's word-piece table."""
    from harness.core.kinds import registered_kinds
    from harness.metrics import families
    from harness.oracles import rule_for
    from harness.oracles.relevance import vectors_available
    from harness.report import reporting

    families()
    for kind in registered_kinds():
        for mode in ("rules", "compat"):
            with contextlib.suppress(Exception):  # a kind no rule reads in a mode: scoring says so itself
                rule_for(kind, mode)
    reporting._template()
    vectors_available()


def _warm() -> None:
    for step in (_imports, _declarations):
        try:
            step()
        except BaseException:  # noqa: BLE001 - best effort: scoring repeats the step and reports its error
            return


def start() -> None:
    """Start warming (once per process); a process that will not score (--no-report, a dry run) never calls it."""
    global _THREAD
    if _THREAD is None and os.environ.get(ENV, "1") != "0":
        _THREAD = threading.Thread(target=_warm, name="harness-warm-up", daemon=True)
        _THREAD.start()


def wait(timeout: float | None = None) -> None:
    """Join the warm-up (scoring then runs alone); a no-op when it never started or has finished."""
    thread = _THREAD
    if thread is not None and thread.is_alive():
        thread.join(timeout)


def started() -> bool:
    """Was the warm-up started in this process (a test's check)?"""
    return _THREAD is not None
