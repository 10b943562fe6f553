""".ci/run's no-data pass (tests/data_pass.py) on a made-up test module, run by pytest in a child process with
this folder's conftest.py: the first run notes the tests that read the data directory (a fixture's read notes
its module), the second, with an empty data directory, runs only those and the marked ones, so an unmarked
test that fails without data is seen failing there."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent

MODULE = '''
import os
from pathlib import Path

import pytest
from data_sets import needs


def read() -> str:
    return (Path(os.environ["HARNESS_DATA_DIR"]) / "cbbq" / "notes.txt").read_text()


@pytest.fixture(scope="module")
def notes() -> str:
    return read()


def test_reads_data_unmarked():
    assert read()


def test_needs_no_data():
    pass


@pytest.mark.needs_data("cbbq")
def test_marked():
    assert read()


@pytest.fixture
@needs("cbbq")
def declared() -> str:
    return read()


def test_through_a_declared_fixture(declared):
    assert declared
'''

FIXTURE_MODULE = '''
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def notes() -> str:
    return (Path(os.environ["HARNESS_DATA_DIR"]) / "cbbq" / "notes.txt").read_text()


def test_first(notes):
    assert notes


def test_second(notes):
    assert notes
'''

PULL_MODULE = '''
import pytest


@pytest.fixture(scope="module")
def run():
    name = "cb" + "bq"  # not spelt out here: the traceback shows this source, the sentence is only printed
    print(f"The CBBQ data is not here: run `harness data pull {name}`.")  # as `harness run` says it, exiting 2
    assert False, "harness run exited 2"


def test_first(run):
    pass


def test_second(run):  # the fixture's cached error again, without its output
    pass
'''


def _pytest(where: Path, **env: str) -> str:
    run_env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]), **env}
    for name in ("HARNESS_TEST_DATA_USERS", "HARNESS_TEST_DATA_PASS"):
        if name not in env:
            run_env.pop(name, None)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "conftest", "-p", "no:cacheprovider",
                           "--rootdir", str(where), "-c", os.devnull, str(where)],
                          cwd=where, env=run_env, capture_output=True, text=True, timeout=300)
    return proc.stdout + proc.stderr


def test_the_second_pass_runs_what_read_data_and_the_marked(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "test_reads.py").write_text(MODULE, encoding="utf-8")
    (suite / "test_fixture_reads.py").write_text(FIXTURE_MODULE, encoding="utf-8")
    (suite / "test_fixture_pull.py").write_text(PULL_MODULE, encoding="utf-8")
    data = tmp_path / "data"
    (data / "cbbq").mkdir(parents=True)
    (data / "cbbq" / "notes.txt").write_text("a note", encoding="utf-8")  # not the real set: marked tests skip
    users = tmp_path / "users.txt"

    first = _pytest(suite, HARNESS_DATA_DIR=str(data), HARNESS_TEST_DATA_USERS=str(users))
    assert "4 passed, 4 skipped" in first, first[-3000:]  # both users of the fixture that said the pull command
    assert users.read_text("utf-8").splitlines() == ["test_fixture_reads.py", "test_reads.py::test_reads_data_unmarked"]

    empty = tmp_path / "empty"
    empty.mkdir()
    second = _pytest(suite, HARNESS_DATA_DIR=str(empty), HARNESS_TEST_DATA_PASS=str(users))
    # the unmarked reader fails without data (here is where .ci/run finds it); the module whose fixture read
    # data runs whole, and errors; the marked test and the one using a declared fixture skip; three deselected
    assert "1 failed, 2 skipped, 3 deselected, 2 errors" in second, second[-3000:]
    assert "SKIPPED [2]" in second and "run `harness data pull cbbq`" in second  # the skips name the command
