"""The probe counts `harness suites` lists for the paper-scale suites, shipped with the package.

Why: counting a suite that reads a data set means reading and analysing it: BBQ fills 46,000 templates
(2 CPU s), BiasAsker's full set tags 7,343 properties with spaCy in a fresh cache (tens of seconds), the SGD
dialogue suite perturbs its whole split (10+ CPU s), so a listing with the data sets pulled took a minute
from a cold cache and seconds warm (issue 38). The numbers are a function of the suite's settings, the data
set's pinned files and the counting code, so they ship in question_gen/builtin/suite_counts.json (written
by scripts/ship_suite_counts.py) under a key of all three:

  key = sha256(suite name, generator, settings, the pins (path, sha256, size) of every file of the data sets
               its method declares (Method.datasets), the sources of the generator's modules and of every
               harness.question_gen and harness.perturb module they import, and the POS model's version)

A listing uses a shipped number only when the key computed now is the shipped one: every pinned file on
disk at its pinned size, the same settings, the same code (anything else, e.g. a source edited since the
file was written, is counted as before: slower, never wrong). Only the listing reads it; a run always
counts and samples from the generator itself.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import importlib.machinery
import importlib.util
import json
from pathlib import Path
from typing import Any

from harness.core.datasets import dataset_dir, get_dataset
from harness.core.method import METHODS

SHIPPED = Path(__file__).with_name("builtin") / "suite_counts.json"


@functools.cache
def _code_digest(generator: str) -> str:
    """The sources a generator's counts depend on: the modules of its counting functions and every module of
    harness.question_gen and harness.perturb they import, transitively (read from their import statements, as
    tests/test_architecture.py reads them), and the POS model's version. Another generator's edit leaves it."""
    from harness.question_gen.english_tagging import pos_cache_file
    from harness.question_gen.suites import generator_module

    gen = generator_module(generator)
    todo = [f.__module__ for f in (gen.count, gen.count_by_type, gen.variants) if f is not None]
    seen: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        spec = None if name in seen else _spec(name)
        if spec is None or not spec.origin or not spec.origin.endswith(".py"):
            continue
        seen[name] = Path(spec.origin)
        for node in ast.walk(ast.parse(seen[name].read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                todo += [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                todo += [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        todo = [m for m in todo if m.startswith(("harness.question_gen", "harness.perturb"))]
    data = [f for name, path in seen.items() if path.name == "__init__.py" for f in sorted(path.parent.glob("*.yaml"))]
    digest = hashlib.sha256(pos_cache_file().name.encode())
    for source in [*(seen[name] for name in sorted(seen)), *data]:  # a package's word lists (perturb's) too
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()


def _spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """A module's spec, None for a name that is no module (`from pkg import function`)."""
    try:
        return importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None


def _pins(generator: str) -> list[list[Any]] | None:
    """The pins of the data sets the generator's method declares; None when a pinned file is not on disk as
    pinned (missing, or another size); [] for a method that reads none."""
    method = next((m for m in METHODS.values() if generator in m.generators), None)
    pins: list[list[Any]] = []
    for name in method.datasets if method is not None else ():
        folder = dataset_dir(name)
        for f in get_dataset(name).files:
            path = folder / f.path
            if not path.is_file():
                if f.optional:
                    pins.append([name, f.path, None])
                    continue
                return None
            if f.size and path.stat().st_size != f.size:
                return None
            pins.append([name, f.path, f.sha256 or f.git_blob or f.rows, f.size])
    return pins


def suite_key(name: str, generator: str, spec: dict[str, Any]) -> str | None:
    """The key of a suite's counts now, or None when its data set is not on disk as pinned."""
    pins = _pins(generator)
    if pins is None:
        return None
    payload = json.dumps([name, generator, spec, pins, _code_digest(generator)], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


@functools.cache
def _table() -> dict[str, Any]:
    try:
        return dict(json.loads(SHIPPED.read_text(encoding="utf-8"))["suites"])
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def shipped_counts(name: str, generator: str, spec: dict[str, Any]) -> dict[str, int] | None:
    """The shipped counts of a suite when they were made from exactly this suite, data and code, else None."""
    entry = _table().get(name)
    if not entry or not _pins(generator):  # a suite without a data set counts in no time: nothing shipped
        return None
    if entry.get("key") != suite_key(name, generator, spec):
        return None
    return {str(k): int(v) for k, v in entry["counts"].items()}
