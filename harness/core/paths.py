"""Where the harness reads and writes: data sets, run folders, user configuration.

Kept in one place so that tests (and users) can redirect everything with environment variables.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "harness"


def data_dir() -> Path:
    """Upstream data sets live here: $HARNESS_DATA_DIR if set, else the user's cache directory."""
    env = os.environ.get("HARNESS_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir(APP)) / "data"


def transcripts_dir() -> Path:
    """Run folders go to $HARNESS_TRANSCRIPTS_DIR, else ./transcripts in the current directory."""
    return Path(os.environ.get("HARNESS_TRANSCRIPTS_DIR", "transcripts")).expanduser()


def cache_dir() -> Path:
    """Response cache and prepared model files: $HARNESS_CACHE_DIR, else the user cache directory."""
    env = os.environ.get("HARNESS_CACHE_DIR")
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir(APP))


def config_dirs() -> list[Path]:
    """Directories searched for targets.toml, highest priority first: the project, then the user."""
    return [Path.cwd(), Path(platformdirs.user_config_dir(APP))]
