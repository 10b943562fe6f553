"""One small registry type, in the shape of lm-evaluation-harness's api/registry.py.

  Registry(what, group, check=, feed=)  name -> entry; `what` names entries in messages; `group` is the
      entry-point group read on first lookup (the harness's own first; another package's entry point under a
      name a different entry holds goes to `refused`); `check(name, obj)` type-checks a lazy entry once
      imported; `feed=(source, parts)`: a derived table, whose entries are also the parts of each source
      entry (harness.core.method.METHODS -> a method's kinds, family, readers, generators).
  register(name, obj)   obj or a lazy "module:attr" / "module"; the same entry twice is fine, a different one
      is a RegistrationError. get / require: the entry or None / one sentence naming the known names (exit 2).

built_in=True: metadata lacking the group (a source updated, not reinstalled) is StaleInstallError (exit 3).
Nothing registers itself at import: entry points or register() calls fill tables."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

from harness.core.entry_points import OWN, OWN_DISTRIBUTION, entry_points, load_lazy, reset  # noqa: F401 - re-exported
from harness.core.errors import HarnessError, InfrastructureError

T = TypeVar("T")
GROUP_METHODS = "harness.methods"  # one entry point per method: "name = module:METHOD" (harness.core.method)
GROUP_ANSWER_MODES = "harness.answer_modes"
GROUP_COMMANDS = "harness.commands"


class RegistrationError(HarnessError, ValueError):
    """A declaration that cannot be registered (two different ones under one name, a wrong type): one sentence,
    shown by the CLI as any HarnessError (exit 2), never a traceback."""


class RegistryError(HarnessError):
    """A name the user gave that no registry entry has (one sentence, exit 2)."""


class StaleInstallError(InfrastructureError):
    """The installed metadata of the harness lacks its own entry points (one sentence, exit 3)."""


def _brief(obj: Any) -> str:
    """An entry as a message names it: its repr when short, else its type (a declaration's repr is pages)."""
    return repr(obj) if len(repr(obj)) <= 100 else f"a {type(obj).__name__}"


_REGISTRIES: weakref.WeakSet[Registry[Any]] = weakref.WeakSet()
_LOCK = threading.RLock()  # one lazy import at a time: two threads' lookups import a module once


def reload_all_entry_points() -> None:
    """Read the installed entry points again, for every registry (a package installed since start-up)."""
    reset()
    for registry in list(_REGISTRIES):
        registry.reload_entry_points()


class Registry(Generic[T]):
    """A table of name -> entry (see the module docstring)."""

    def __init__(self, what: str, group: str | None = None, *, check: Callable[[str, Any], T] | None = None,
                 built_in: bool = False,
                 feed: tuple[Registry[Any], Callable[[Any], Iterable[tuple[str, T]]]] | None = None) -> None:
        self.what, self.group, self.built_in, self._check, self._feed = what, group, built_in, check, feed
        self._entries: dict[str, T | str] = {}
        self._origins: dict[str, str] = {}  # name -> the distribution whose entry point registered it
        self.refused: dict[str, str] = {}  # another package's entry points not registered: name -> "dist: ref"
        self._unread, self._fed = group is not None, set[str]()
        _REGISTRIES.add(self)

    def register(self, name: str, obj: T | str) -> T | str:
        """Add `name`; the same entry again is fine, another one is a RegistrationError."""
        with _LOCK:
            old = self._entries.get(name)
            if old is not None and not (old is obj or old == obj or self._lazy_is(old, obj)):
                raise RegistrationError(f"{self.what.capitalize()} '{name}' is registered twice, differently: "
                                        f"{_brief(old)} and {_brief(obj)}.")
            if old is None or isinstance(old, str):
                self._entries[name] = obj
        return obj

    def unregister(self, name: str) -> None:
        """Remove a name (a test that registered an entry of its own cleans up with this)."""
        self._entries.pop(name, None), self._origins.pop(name, None)

    def _lazy_is(self, old: Any, new: Any) -> bool:
        """A lazy string and the object it names are one entry."""
        lazy, real = (old, new) if isinstance(old, str) else (new, old)
        return isinstance(old, str) != isinstance(new, str) and self._loaded(lazy, "") is real

    def _loaded(self, ref: str, name: str) -> T:
        """Import a lazy entry and check it; a declaration error raised while importing gains the entry's name."""
        try:
            obj = load_lazy(ref)
            return self._check(name, obj) if self._check is not None else obj
        except RegistrationError as exc:
            if name and f"'{name}'" not in str(exc):
                raise type(exc)(f"{self.what.capitalize()} '{name}': {exc}") from None
            raise

    def _read(self) -> None:
        with _LOCK:  # the run's warm-up thread (harness.cli.warmup) and the asking may look up at once
            if self._unread:
                found = entry_points(str(self.group))
                if self.built_in and not any(key == OWN for key, _, _ in found):
                    raise StaleInstallError(f"The installed harness has no {self.group} entry points (its "
                                            "metadata predates this source): run `pip install -e .` in the "
                                            "harness folder again.")
                self._unread = False
                for key, dist, ep in found:
                    old = self._entries.get(ep.name)
                    if old is not None and old != ep.value and key != OWN:
                        self.refused[ep.name] = f"{dist}: {ep.value}"
                        continue
                    self.register(ep.name, ep.value)
                    self._origins.setdefault(ep.name, dist)
        if self._feed is not None:  # a derived table: the parts of every source entry not taken yet
            self._take(self._feed[0].names())

    def _take(self, names: Iterable[str], until: str | None = None) -> None:
        """Register the parts of these source entries; with `until`, stop at the first that gives that name."""
        source, parts = self._feed  # type: ignore[misc]  # only a derived table takes a source's parts
        with _LOCK:
            for name in [n for n in dict.fromkeys(names) if n not in self._fed]:
                self._fed.add(name)
                for part_name, part in parts(source[name]):
                    self.register(part_name, part)
                if until in self._entries:
                    return

    def _source_order(self, name: str, source: Registry[Any]) -> list[str]:
        """Where to look for `name`: its namesake, the imported ones, the rest (a run imports its own methods)."""
        names = source.names()
        return [n for n in names if n == name] + [n for n in names if not isinstance(source._entries[n], str)] + names

    def reload_entry_points(self) -> None:
        """Read the group again (a package installed or removed since); a derived table its source again."""
        reset()
        for name in list(self._origins):
            self.unregister(name)
        self.refused.clear()
        self._unread, self._fed = self.group is not None, set()

    def get(self, name: str) -> T | None:
        """The entry (imported if lazy), or None; a derived table reads the source entry of that name first."""
        if self._unread:
            self._read()
        if name not in self._entries and self._feed is not None:  # a method registered since is read too
            self._take(self._source_order(name, self._feed[0]), until=name)
        found = self._entries.get(name)
        if isinstance(found, str):
            with _LOCK:
                found = self._entries[name]
                if isinstance(found, str):
                    found = self._entries[name] = self._loaded(found, name)
        return found

    def require(self, name: str) -> T:
        """The entry, or RegistryError naming the known ones (for names a user typed)."""
        found = self.get(name)
        if found is None:
            raise RegistryError(f"Unknown {self.what} '{name}'; known: {', '.join(sorted(self.names())) or 'none'}.")
        return found

    def lazy_ref(self, name: str) -> str | None:
        """The lazy string of an entry not imported yet (a listing names it without importing it)."""
        self._read()
        found = self._entries.get(name)
        return found if isinstance(found, str) else None

    def origin(self, name: str) -> str | None:
        """The distribution whose entry point registered `name`; None for a registration in code."""
        self._read()
        return self._origins.get(name)

    def names(self) -> list[str]:
        """Every name, in registration order (the harness's own first); a plain table imports nothing."""
        self._read()
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        return [(name, self[name]) for name in self.names()]

    def values(self) -> list[T]:
        return [self[name] for name in self.names()]

    def __getitem__(self, name: str) -> T:
        """The entry, or KeyError (a name the code itself holds, not the user's)."""
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in self._entries or self.get(name) is not None)

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
