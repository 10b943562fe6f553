"""The installed entry points, read once per process: what every harness.core.registry Registry reads its
group from. Apart from the table itself because reading install metadata is its own job (which copy of a
distribution counts, the harness's own first), and a test puts a plugin's metadata on sys.path at run time
(reset() forgets what was read)."""

from __future__ import annotations

import importlib
import importlib.metadata
import re
from typing import Any

OWN_DISTRIBUTION = "harness-bias"  # the harness's own distribution: its entry points are the built-ins
OWN = "harness_bias"  # OWN_DISTRIBUTION as entry_points() normalises a distribution's name


def load_lazy(ref: str) -> Any:
    """Import "package.module:attr.sub" (or a bare "package.module": the module itself)."""
    module_name, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module_name.strip())
    for part in attr.strip().split(".") if attr.strip() else ():
        obj = getattr(obj, part)
    return obj


_FOUND: list[tuple[str, str, importlib.metadata.EntryPoint]] | None = None  # (dist key, dist name, entry point)


def entry_points(group: str) -> list[tuple[str, str, importlib.metadata.EntryPoint]]:
    """The group's entry points, the harness's own first (one copy of each distribution: an installed
    .dist-info before the .egg-info a build leaves in a source tree)."""
    global _FOUND
    if _FOUND is None:
        chosen: dict[str, importlib.metadata.Distribution] = {}
        for dist in importlib.metadata.distributions():
            key = re.sub(r"[-_.]+", "_", str(getattr(dist, "_normalized_name", "") or dist.metadata["Name"])).lower()
            if key not in chosen or str(getattr(chosen[key], "_path", "")).endswith(".egg-info"):
                chosen[key] = dist
        _FOUND = [(k, str(d.metadata["Name"] or k), ep) for k, d in chosen.items() for ep in d.entry_points]
    return sorted((f for f in _FOUND if f[2].group == group), key=lambda f: (f[0] != OWN, f[0]))


def reset() -> None:
    """Forget what was read: the next entry_points() reads the installed metadata again."""
    global _FOUND
    _FOUND = None
    importlib.invalidate_caches()
