"""Which upstream data sets this test session can read, and the skip that names the command fetching one.

A test that reads a data set says so with `@pytest.mark.needs_data("cbbq")` (or `pytestmark = ...` for a
module); conftest.py skips it, naming `harness data pull cbbq`, when the data directory lacks the set, and
turns a DataMissingError that escapes a test into the same skip. A clone without the data sets therefore
passes `pytest` with skips that say what to fetch, never failures (issue 26). tests/test_no_data.py checks it.

Presence is every registered file existing at its registered size: the sha256 check is `harness data verify`'s
job (and the loaders', which refuse a damaged file with their own sentence), and this runs once per test.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from harness.core import datasets
from harness.core.paths import data_dir


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
            if path.stat().st_size != f.size:
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
