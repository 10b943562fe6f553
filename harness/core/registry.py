"""One registry type for every open table of the harness: kinds, families, readers, generators, adapters,
answer modes, commands.

Why one type: each table used to be a hand-rolled dict with its own lookup, its own (or no) duplicate
check and its own way for a plugin to join. A method is a plugin (docs/architecture.md, "Adding things"):
it joins every table the same way, from its own module or from another package's entry points, and
never by editing the harness.

The contract:

  Registry(what, group)   a table of name -> object. `what` names its entries in messages ("probe kind");
                          `group` is the entry-point group a third-party package registers under
                          (`[project.entry-points."harness.kinds"]`), read once, on the first lookup.
  register(name, obj)     obj is the object itself or a lazy "module:attr" string, imported on first use
                          (a command's or a family's module stays unimported until it is needed). The same
                          entry twice is fine; a different one under the same name raises
                          RegistrationError: two modules claiming one name is a bug to be told about, never
                          a silent override.
  get(name)               the object, or None when no module and no entry point registers the name. A lazy
                          entry whose import fails raises: an import error of a plugin is its bug, shown
                          with its traceback, never hidden as "unknown name".
  require(name)           the object, or RegistryError (a HarnessError: one sentence naming the known
                          names, exit 2), for names that come from the user.

Entry points are read lazily and once per registry; `reload_entry_points()` reads them again (a test
that installs a plugin's metadata at run time). An entry point never replaces a name the harness itself
registered differently: that is a RegistrationError too.
"""

from __future__ import annotations

import importlib
import importlib.metadata
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from harness.core.errors import HarnessError

T = TypeVar("T")

#: the entry-point groups of the harness's registries (one per registry; docs/architecture.md)
GROUP_KINDS = "harness.kinds"
GROUP_FAMILIES = "harness.families"
GROUP_READERS = "harness.readers"
GROUP_GENERATORS = "harness.generators"
GROUP_ADAPTERS = "harness.adapters"
GROUP_ANSWER_MODES = "harness.answer_modes"
GROUP_COMMANDS = "harness.commands"


class RegistrationError(ValueError):
    """Two different declarations under one name (a programming error, raised at import)."""


class RegistryError(HarnessError):
    """A name the user gave that no registry entry has (one sentence, exit 2)."""


def _identity(obj: Any) -> Any:
    """What makes two registrations the same entry: a lazy string itself; a function or class its module
    and qualified name (the same function from a module imported twice is one entry); anything else
    itself, compared with ==."""
    if isinstance(obj, str):
        return obj
    if callable(obj) and hasattr(obj, "__qualname__") and hasattr(obj, "__module__"):
        return (obj.__module__, obj.__qualname__)
    return obj


def load_lazy(ref: str) -> Any:
    """Import "package.module:attr.sub" (or a bare "package.module": the module itself)."""
    module_name, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


class Registry(Generic[T]):
    """A table of name -> entry, open to the harness's own modules and to other packages' entry points."""

    def __init__(self, what: str, group: str | None = None, *,
                 same: Callable[[Any, Any], bool] | None = None) -> None:
        self.what = what
        self.group = group
        self._same = same
        self._entries: dict[str, T | str] = {}
        self._entry_points_read = group is None

    # -- registering -----------------------------------------------------------------------------------

    def register(self, name: str, obj: T | str) -> T | str:
        """Add `name` (see the module docstring); returns obj so it can be used as a decorator helper."""
        old = self._entries.get(name)
        if old is not None and not self._is_same(old, obj):
            raise RegistrationError(f"{self.what.capitalize()} '{name}' is registered twice, differently: "
                                    f"{old!r} and {obj!r}.")
        if old is None or not isinstance(obj, str):  # a resolved object beats its own lazy string
            self._entries[name] = obj
        return obj

    def decorator(self, name: str) -> Callable[[T], T]:
        """`@registry.decorator("name")` over a function or class registers it under that name."""
        def wrap(obj: T) -> T:
            self.register(name, obj)
            return obj
        return wrap

    def unregister(self, name: str) -> None:
        """Remove a name (tests that register an entry of their own clean up with this)."""
        self._entries.pop(name, None)

    def _is_same(self, old: T | str, new: T | str) -> bool:
        if _identity(old) == _identity(new):
            return True
        if isinstance(old, str) != isinstance(new, str):  # a lazy string against its resolved object
            lazy, real = (old, new) if isinstance(old, str) else (new, old)
            try:
                return _identity(load_lazy(lazy)) == _identity(real) or load_lazy(lazy) is real
            except (ImportError, AttributeError):
                return False
        if self._same is not None and not isinstance(old, str) and not isinstance(new, str):
            return self._same(old, new)
        return False

    # -- entry points ----------------------------------------------------------------------------------

    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        self._entry_points_read = True
        for ep in importlib.metadata.entry_points(group=self.group or ""):
            old = self._entries.get(ep.name)
            if old is not None and self._is_same(old, ep.value):
                continue
            self.register(ep.name, ep.value)

    def reload_entry_points(self) -> None:
        """Read the entry-point group again (after a package was installed in this process's lifetime)."""
        self._entry_points_read = self.group is None
        self._read_entry_points()

    # -- looking up ------------------------------------------------------------------------------------

    def get(self, name: str) -> T | None:
        """The entry, imported if lazy; None when nothing registers `name`."""
        self._read_entry_points()
        found = self._entries.get(name)
        if isinstance(found, str):
            found = load_lazy(found)
            self._entries[name] = found
        return found

    def require(self, name: str) -> T:
        """The entry, or RegistryError naming the known ones (for names a user typed)."""
        found = self.get(name)
        if found is None:
            known = ", ".join(sorted(self.names())) or "none"
            raise RegistryError(f"Unknown {self.what} '{name}'; known: {known}.")
        return found

    def lazy_ref(self, name: str) -> str | None:
        """The "module:attr" string an unimported entry was registered with (None once imported, or for
        an object): lets a listing name an entry without importing it."""
        self._read_entry_points()
        found = self._entries.get(name)
        return found if isinstance(found, str) else None

    def names(self) -> list[str]:
        """Every registered name, in registration order (the harness's own first), nothing imported."""
        self._read_entry_points()
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """Every (name, entry), each imported."""
        return [(name, self.get(name)) for name in self.names()]  # type: ignore[misc]

    def values(self) -> list[T]:
        return [obj for _, obj in self.items()]

    def __contains__(self, name: object) -> bool:
        self._read_entry_points()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._entries)} entries)"
