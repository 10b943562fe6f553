"""A module imported on its first use, not when the module naming it is imported.

Why: a method's declaration imports its family module, and `harness suites`, `harness run --dry-run` and
`harness --version` import every declaration they list; pandas and scipy.stats alone were 3.5 CPU s of a
listing that computes nothing with them (issue 38). A family module therefore names them with

    if TYPE_CHECKING:
        import pandas as pd
    else:
        pd = lazy_module("pandas")

so type checkers see the real module, and the library is imported the first time code reads an attribute
of it (pd.DataFrame), by the ordinary import machinery (its lock makes two threads import it once). Unlike
importlib.util.LazyLoader, nothing is put in sys.modules before that: `"pandas" in sys.modules` stays the
truth about whether pandas was imported (tests/cli/test_suites_startup.py reads it).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """Stands for the module `name`; each attribute read once is kept, so later reads are plain lookups."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__") and attr.endswith("__"):  # copy, pickle, inspect probing: not a use
            raise AttributeError(attr)
        value = getattr(importlib.import_module(self.__name__), attr)
        setattr(self, attr, value)
        return value

    def __repr__(self) -> str:
        return f"<lazy module {self.__name__!r}>"


def lazy_module(name: str) -> Any:
    """The module `name`, imported on the first attribute read (see the module docstring)."""
    return LazyModule(name)
