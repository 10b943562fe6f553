"""Which upstream data sets this test session can read, and the skip that names the command fetching one.

A test that reads a data set says so with `@pytest.mark.needs_data("cbbq")` (or `pytestmark = ...` for a
module; a fixture that reads one with `@needs("cbbq")` under its @pytest.fixture, which marks its users); conftest.py
skips it, naming `harness data pull cbbq`, when the data directory lacks the set, and
turns a DataMissingError that escapes a test into the same skip. A clone without the data sets therefore
passes `pytest` with skips that say what to fetch, never failures (issue 26). tests/test_no_data.py checks it.

Presence is every registered file existing at its registered size: the sha256 check is `harness data verify`'s
job (and the loaders', which refuse a damaged file with their own sentence), and this runs once per test.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TypeVar

import pytest

from harness.core import datasets
from harness.core.paths import data_dir

F = TypeVar("F", bound=Callable[..., object])


@cache
def present(name: str, root: str) -> bool:
    """Every file of data set `name` is under `root`/name at its registered size."""
    ds = datasets.get_dataset(name)
    base = Path(root) / name
    for f in ds.files:
        if f.optional:  # the loaders do without it (BBQ's unreleased-here categories come from templates)
            continue
        path = base / f.path
        try:
            # a file pinned both ways (StereoSet's dev.json) registers the offline rebuild's size; upstream's
            # bytes, accepted by their git blob id, have another
            if path.stat().st_size != f.size and not (f.sha256 and f.git_blob):
                return False
        except OSError:
            return False
    return True


def missing(names: tuple[str, ...], root: Path | None = None) -> list[str]:
    """The sets of `names` the data directory (the session's, by default) does not hold."""
    where = str(root if root is not None else data_dir())
    return [n for n in names if not present(n, where)]


def skip_reason(names: list[str], root: Path | None = None) -> str:
    """One line naming the missing sets and the command that fetches them."""
    where = root if root is not None else data_dir()
    pulls = " and ".join(f"`harness data pull {n}`" for n in names)
    return f"needs the {', '.join(names)} data set(s), not in {where}: run {pulls} (or set HARNESS_DATA_DIR)"


def needs(*names: str) -> Callable[[F], F]:
    """Declare that a fixture reads these data sets (put it under @pytest.fixture): every test that uses the
    fixture, directly or through another one, is marked needs_data(*names) when collected (conftest.py), so it
    skips naming the pull command before the fixture runs, and .ci/run's no-data pass selects it."""
    def declare(fixture: F) -> F:
        fixture.needs_data = names  # type: ignore[attr-defined]
        return fixture
    return declare


def mark_fixture_users(items: list[pytest.Item]) -> None:
    """Mark needs_data on every test whose fixtures (their whole closure) declare data sets with `needs`."""
    for item in items:
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        names = {n for defs in info.name2fixturedefs.values() for d in defs for n in getattr(d.func, "needs_data", ())}
        if names:
            item.add_marker(pytest.mark.needs_data(*sorted(names)))
