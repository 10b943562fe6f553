"""Named catalogs: the single entry point question generation uses to get groups and properties.

`load_catalog(name)` hides where the words come from (built-in YAML, the paper's samples, the full
upstream set). Results are cached per process: the full set takes a fraction of a second to parse and
is asked for once per suite expansion.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from harness.core.errors import ConfigError
from harness.core.paths import data_dir
from harness.question_gen import biasasker_data
from harness.question_gen.builtin import load_builtin
from harness.question_gen.catalog import Catalog


def _full() -> Catalog:
    return biasasker_data.load_full_data().catalog


LOADERS: dict[str, Callable[[], Catalog]] = {
    "builtin": load_builtin,
    "biasasker-api-sample": biasasker_data.load_api_sample,
    "biasasker-manual-sample": biasasker_data.load_manual_sample,
    "biasasker-full": _full,
}


def catalog_names() -> list[str]:
    return list(LOADERS)


def load_catalog(name: str) -> Catalog:
    """The catalog called `name`; missing or damaged data raises a one-sentence HarnessError."""
    if name not in LOADERS:
        raise ConfigError(f"Unknown catalog {name!r}; choose one of: {', '.join(LOADERS)}.")
    return _load(name, str(data_dir()))


@lru_cache(maxsize=16)
def _load(name: str, data_root: str) -> Catalog:
    # data_root is part of the key so that pointing HARNESS_DATA_DIR elsewhere is never served stale data;
    # failures are not cached (lru_cache does not store exceptions), so a pull fixes a missing set at once.
    return LOADERS[name]()


load_catalog.cache_clear = _load.cache_clear  # type: ignore[attr-defined]
