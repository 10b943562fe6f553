"""The after-asking work's fixed costs, paid while the run is still asking (issue 38).

`harness run` asks, then scores and reports. While it asks, the CPU is mostly idle (the asking loop spends
~0.64 ms of CPU per request against a 100 ms server), but once the last reply is in, scoring and the report
first pay for things that do not depend on the replies at all: importing pandas, jinja2 and the scoring
and report modules (~1 CPU s), every family's module, the oracles' word lists, the English relevance check's
word-piece table, each method's declaration and rules, the report's compiled template. `start()` does
those in a daemon thread as the asking starts; `wait()` joins it before scoring, so scoring never runs
beside it (the registries and caches it fills are then only read) and finds them warm.

The rules also read each reply while the run asks (harness.score.preread): the engine appends each ok reply it
records to a spool file that a worker process (harness.score.read_worker) reads on the other core at nice 10, so
after the last reply only the families' numbers and the report are left. A thread here did that reading before
and took the GIL from the asking loop (c=64 fell from 0.65-0.77 of the limit to 0.54-0.57 at load 7).

Nothing here reads or writes the run's files, so the transcript contract, the verdicts and the metrics are
what scoring alone gives (the same functions fill the same caches, only earlier). A failure here is
swallowed: the same step fails again, with its own one-sentence message, when scoring does it for real.
Ctrl-C and kill -9 behave as before: the thread is a daemon and holds nothing the run writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harness.score.preread import PreRead

ENV = "HARNESS_WARMUP"  # "0": no warm-up (benchmarks/whole_job.py and saturation.py measure without it too)
IMPORTS = "imports"  # HARNESS_WARMUP=imports: no reading ahead (the default reads ahead: see start())
LOG_ENV = "HARNESS_WARMUP_LOG"  # a file the warm-up appends its timing to (a JSON line), for the benchmark
SWITCH_S = 0.001  # the GIL's switch interval while warming (Python's default 5 ms stalls the asking loop)
_DEFAULT_SWITCH_S = sys.getswitchinterval()
_THREAD: threading.Thread | None = None
_PRE: PreRead | None = None


def _imports() -> None:
    """The modules scoring and the report import (pandas, jinja2, the oracles' word lists, scipy.special: the
    exact intervals' beta quantile, 0.4 CPU s that BiasAsker's first interval paid after the last reply)."""
    import scipy.special  # noqa: F401 - imported for its cost only

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


def _warm(pre: PreRead | None) -> None:
    started, done = time.time(), []
    sys.setswitchinterval(SWITCH_S)  # the asking loop waits at most this long for the GIL when a reply comes
    steps = [_imports, _declarations]
    for step in steps:
        try:
            step()
            done.append(step.__name__.strip("_"))  # drain: until wait() stops it
        except BaseException:  # noqa: BLE001 - best effort: scoring repeats the step and reports its error
            break
    log = os.environ.get(LOG_ENV)
    if log:  # benchmarks/whole_job.py: how long it took, and when it ended beside the asking's end
        line = {"started": started, "ended": time.time(), "thread_cpu_s": time.thread_time(), "done": done,
                "read_ahead": pre is not None}
        with contextlib.suppress(OSError), open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def start(method: str | None = None, compat: bool = False) -> None:
    """Start warming (once per process); a process that will not score (--no-report, a dry run) never calls it.
    With `method`, the rules also read each ok reply as the engine records it (harness.score.preread: a worker
    process at a lower priority, never this process's GIL) in that method and mode; preread() hands the verdicts
    to score_run. HARNESS_WARMUP=imports: the imports and declarations only; HARNESS_WARMUP=0: nothing."""
    global _THREAD, _PRE
    mode = os.environ.get(ENV, "1")
    if _THREAD is None and mode != "0":
        if method is not None and mode != IMPORTS:
            from harness.run.engine import REPLY_HOOKS
            from harness.score.preread import PreRead

            with contextlib.suppress(OSError):  # no worker (no temp dir, no process): score_run reads them all
                _PRE = PreRead(method, compat)
                REPLY_HOOKS.append(_PRE.feed)
        _THREAD = threading.Thread(target=_warm, args=(_PRE,), name="harness-warm-up", daemon=True)
        _THREAD.start()


def wait(timeout: float | None = None) -> None:
    """Stop the reading ahead and join the thread (scoring then runs alone); a no-op when it never started."""
    thread = _THREAD
    if _PRE is not None:
        from harness.run.engine import REPLY_HOOKS

        _PRE.stop()
        with contextlib.suppress(ValueError):
            REPLY_HOOKS.remove(_PRE.feed)
    if thread is not None and thread.is_alive():
        thread.join(timeout)
    if thread is not None:
        sys.setswitchinterval(_DEFAULT_SWITCH_S)


def log_after_asking(cpu_s: float) -> None:
    """Append to HARNESS_WARMUP_LOG what the read-ahead gave scoring (replies read by the worker, verdicts taken
    by score_run) and the CPU seconds the process spent from the last reply to the written report."""
    log = os.environ.get(LOG_ENV)
    if log:
        line = {"read_ahead": len(_PRE) if _PRE is not None else 0, "taken": _PRE.used if _PRE is not None else 0,
                "after_cpu_s": cpu_s}
        with contextlib.suppress(OSError), open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(line) + "\n")


def preread() -> PreRead | None:
    """The verdicts the rules read while the run asked, for score_run(preread=...); None without them."""
    return _PRE


def started() -> bool:
    """Was the warm-up started in this process (a test's check)?"""
    return _THREAD is not None
