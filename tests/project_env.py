"""A project folder for module-scoped fixtures: the cwd and the harness's own folders (transcripts, cache,
user config) inside one temporary directory, restored afterwards. pytest's `monkeypatch` fixture is
function-scoped, so a module fixture that loads a model once uses MonkeyPatch.context() through this."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


@contextmanager
def project_home(root: Path, **extra_env: str) -> Iterator[Path]:
    """`root` as the cwd, with HARNESS_TRANSCRIPTS_DIR, HARNESS_CACHE_DIR and XDG_CONFIG_HOME inside it and
    any `extra_env` set; every variable and the cwd are put back when the block ends."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARNESS_TRANSCRIPTS_DIR", str(root / "transcripts"))
        mp.setenv("HARNESS_CACHE_DIR", str(root / "cache"))
        mp.setenv("XDG_CONFIG_HOME", str(root / "config"))
        for name, value in extra_env.items():
            mp.setenv(name, value)
        mp.chdir(root)
        yield root
