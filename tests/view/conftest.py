"""Fixtures of the `harness view` tests: a transcripts folder of real, really scored runs (built once per
session), a private copy of it per test, the real server over it, and a run being written (view_runs.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from view_runs import LiveRun, ViewServer, build_folder


@pytest.fixture(scope="session")
def scored_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A transcripts folder of two scored runs, built once; tests that write into a run copy it first."""
    return build_folder(tmp_path_factory.mktemp("view") / "transcripts")


@pytest.fixture
def folder(scored_folder: Path, tmp_path: Path) -> Path:
    """A private copy of the scored folder (reviews and rescoring write into the runs)."""
    import shutil

    out = tmp_path / "transcripts"
    shutil.copytree(scored_folder, out)
    return out


@pytest.fixture
def view(folder: Path, tmp_path: Path) -> Iterator[ViewServer]:
    server = ViewServer(folder, tmp_path / "cache")
    yield server
    server.stop()


@pytest.fixture
def live_run(folder: Path) -> Iterator[LiveRun]:
    run = LiveRun(folder / "builtin-zh__live-bot__s40-seed0")
    run.add(3)
    yield run
    run.close()
