"""The no-data pass of .ci/run: which tests read a data set, and a run of only those with an empty data directory.

A test says it needs a data set with `@pytest.mark.needs_data(NAME)` (tests/data_sets.py). To prove that
every test needing one skips without it, .ci/run runs the suite twice:

1. the normal run, with HARNESS_TEST_DATA_USERS=FILE: an audit hook notes every test during which this
   process opened a file under the data directory (its whole module when the read was in a fixture's setup,
   which may serve the module's other tests), and FILE receives them when the session ends;
2. with HARNESS_DATA_DIR an empty folder and HARNESS_TEST_DATA_PASS=FILE: only the tests marked needs_data
   and the tests listed in FILE are collected; that run must end with no failure and no error.

The list catches a data test that nobody marked (its read is seen in run 1), so the second run is the whole of
what needs data, not only what was declared; it costs seconds since those tests skip or stop at the first read.
A read in a child process (a test running `harness` in a subprocess) is not seen: such tests carry the marker.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

USERS_ENV = "HARNESS_TEST_DATA_USERS"
PASS_ENV = "HARNESS_TEST_DATA_PASS"

_readers: set[str] = set()


def _reader() -> str | None:
    """What to rerun for a read now: the running test's id ("tests/x.py::test_a"), or its whole module when
    the read is in a fixture's setup (a module or session fixture serves the module's other tests too)."""
    now = os.environ.get("PYTEST_CURRENT_TEST")
    if not now:
        return None
    test, _, phase = now.rpartition(" ")
    return test.split("::")[0] if phase == "(setup)" else test


def start_recording(data_dir: Path | None) -> None:
    """With HARNESS_TEST_DATA_USERS set, note the tests that open a file under `data_dir`."""
    if not os.environ.get(USERS_ENV) or data_dir is None:
        return
    roots = tuple({os.path.abspath(data_dir) + os.sep, os.path.realpath(data_dir) + os.sep})

    def hook(event: str, args: tuple) -> None:
        if event != "open" or not args or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        if os.path.abspath(os.fsdecode(args[0])).startswith(roots) and (who := _reader()):
            _readers.add(who)

    sys.addaudithook(hook)  # cannot be removed: installed only when asked for


def write_readers() -> None:
    """At the end of a recording session, what read data (test ids and module paths), one a line."""
    if path := os.environ.get(USERS_ENV):
        Path(path).write_text("".join(f"{t}\n" for t in sorted(_readers)), encoding="utf-8")


def keep_data_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With HARNESS_TEST_DATA_PASS=FILE, keep only the tests marked needs_data or listed in FILE (by id, or
    by their module's path); FILE empty or absent keeps the marked ones."""
    listed = os.environ.get(PASS_ENV)
    if listed is None:
        return
    readers = set(Path(listed).read_text(encoding="utf-8").splitlines()) if listed and Path(listed).is_file() else set()
    keep = [i for i in items if i.get_closest_marker("needs_data") is not None
            or i.nodeid in readers or i.nodeid.split("::")[0] in readers]
    kept = {id(i) for i in keep}
    gone = [i for i in items if id(i) not in kept]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = keep
