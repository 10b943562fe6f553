"""The Schema-Guided Dialogue split the task-oriented suite and the pipeline target read.

The harness does not ship SGD (CC BY-SA 4.0, Google; `harness data pull sgd` fetches it): it reads
$HARNESS_DATA_DIR/sgd/test (dialogues_*.json and schema.json, the layout of
github.com/google-research-datasets/dstc8-schema-guided-dialogue), or a folder a suite or target names. Loaded
once per process: the test split is 60 MB of JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError, DataMissingError
from harness.core.paths import data_dir
from harness.perturb.dialogues import read_dialogues

DEFAULT_SPLIT = "test"


@dataclass(frozen=True)
class SgdSplit:
    path: Path
    dialogues: tuple[dict[str, Any], ...]
    schema: dict[str, dict[str, Any]]  # service name -> its schema (intents, slots)


def split_dir(path: str | Path | None = None) -> Path:
    """The SGD folder to read: `path` if given, else $HARNESS_DATA_DIR/sgd/test."""
    folder = Path(path).expanduser() if path else data_dir() / "sgd" / DEFAULT_SPLIT
    if not folder.is_dir() or not any(folder.glob("dialogues_*.json")):
        raise DataMissingError(
            f"The Schema-Guided Dialogue split is not in {folder}; run `harness data pull sgd` (it fetches the "
            "pinned test files of github.com/google-research-datasets/dstc8-schema-guided-dialogue), or point "
            "HARNESS_DATA_DIR at a folder holding sgd/test.")
    return folder


@lru_cache(maxsize=2)
def _load(folder: str, stamp: tuple[tuple[str, int], ...]) -> SgdSplit:
    source = read_dialogues(folder, "en")
    schema: dict[str, dict[str, Any]] = {}
    schema_file = Path(folder) / "schema.json"
    if schema_file.is_file():
        try:
            with schema_file.open(encoding="utf-8") as fh:
                services = json.load(fh)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{schema_file} is not JSON ({exc}).") from None
        if not isinstance(services, list) or not all(isinstance(s, dict) and "service_name" in s for s in services):
            raise ConfigError(f"{schema_file} is not an SGD schema (a list of services with 'service_name').")
        schema = {s["service_name"]: s for s in services}
    return SgdSplit(Path(folder), tuple(source.dialogues), schema)


def load_split(path: str | Path | None = None) -> SgdSplit:
    """The dialogues and schema of an SGD split folder (cached; re-read when a file changes)."""
    folder = split_dir(path)
    stamp = tuple(sorted((p.name, p.stat().st_mtime_ns) for p in folder.glob("*.json")))
    return _load(str(folder), stamp)


def service_calls(turn: dict[str, Any]) -> list[tuple[str, dict[str, Any], list[dict[str, Any]]]]:
    """(service, call, result rows) of every frame of a system turn that called an API."""
    out = []
    for frame in turn.get("frames") or []:
        call = frame.get("service_call")
        if isinstance(call, dict):
            out.append((str(frame.get("service", "")), call, list(frame.get("service_results") or [])))
    return out
