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


#: (dist key, the distribution, entry point) of every installed entry point, read once
_FOUND: list[tuple[str, importlib.metadata.Distribution, importlib.metadata.EntryPoint]] | None = None


def entry_points(group: str) -> list[tuple[str, str, importlib.metadata.EntryPoint]]:
    """The group's entry points as (dist key, dist name, entry point), the harness's own first (one copy of each
    distribution: an installed .dist-info before the .egg-info a build leaves in a source tree). A distribution's
    METADATA is parsed only when one of its entry points is in the group: parsing all of them (200 packages in
    a venv) was 15% of `harness suites` (issue 38); the key comes from the folder's name."""
    global _FOUND
    if _FOUND is None:
        chosen: dict[str, importlib.metadata.Distribution] = {}
        for dist in importlib.metadata.distributions():
            key = re.sub(r"[-_.]+", "_", str(getattr(dist, "_normalized_name", "") or dist.metadata["Name"])).lower()
            if key not in chosen or str(getattr(chosen[key], "_path", "")).endswith(".egg-info"):
                chosen[key] = dist
        _FOUND = [(k, d, ep) for k, d in chosen.items() for ep in d.entry_points]
    found = [(k, _name(k, d), ep) for k, d, ep in _FOUND if ep.group == group]
    return sorted(found, key=lambda f: (f[0] != OWN, f[0]))


_NAMES: dict[str, str] = {}


def _name(key: str, dist: importlib.metadata.Distribution) -> str:
    """A distribution's name as its METADATA spells it, parsed once (the harness's holds its whole README)."""
    if key not in _NAMES:
        _NAMES[key] = str(dist.metadata["Name"] or key)
    return _NAMES[key]


def reset() -> None:
    """Forget what was read: the next entry_points() reads the installed metadata again."""
    global _FOUND
    _FOUND = None
    _NAMES.clear()
    importlib.invalidate_caches()
