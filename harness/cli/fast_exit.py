"""Leave the `harness run` process without tearing down its heap, once everything is written (issue 38).

Why: after the report, Python's normal exit frees every object one by one (the transcript's records, the
families' frames, pandas and the oracles' tables) and runs the interpreter's finalisers: 0.46 s of a 4,000-reply
run on a quiet machine, after the last thing the user waits for. `harness run` arms this once its report and
summary are written; the console entry point (harness.cli.main called with no argv: the process's own command
line) then flushes stdout, stderr and logging and calls os._exit with the same exit code. Every file the run
writes is closed by then (the transcript by its session, verdicts.csv, metrics.json and report.html written
whole and renamed into place), so nothing is lost; a library call or a test's in-process command line (typer's
CliRunner, main(argv)) never leaves this way.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import NoReturn

_ARMED = False


def arm() -> None:
    """Everything this command writes is on disk: the process may leave at once when the command ends."""
    global _ARMED
    _ARMED = True


def reset() -> None:
    """Not armed (the console entry point's start: an earlier command in this process may have armed it)."""
    global _ARMED
    _ARMED = False


def armed() -> bool:
    """Armed, and no profiler is watching: `python -m cProfile -o F -m harness run` writes F at normal exit."""
    return _ARMED and sys.getprofile() is None


def leave(code: int) -> NoReturn:
    """Flush the output streams and logging, then end the process with `code`, skipping the heap's teardown."""
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        with contextlib.suppress(Exception):
            if stream is not None:
                stream.flush()
    logging = sys.modules.get("logging")  # its handlers' buffers, when anything used it
    if logging is not None:
        with contextlib.suppress(Exception):
            logging.shutdown()
    os._exit(code)
