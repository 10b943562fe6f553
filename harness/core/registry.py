"""One registry type for every open table of the harness: kinds, families, readers, generators, adapters,
answer modes, commands.

Why one type: each table used to be a hand-rolled dict with its own lookup, its own (or no) duplicate
check and its own way for a plugin to join. A method is a plugin (docs/architecture.md, "Adding things"):
it joins every table the same way, by an entry point of its package (the harness's own methods by the
entry points in its pyproject.toml) or by a call from its own module, and never by editing the harness.

The contract:

  Registry(what, group)   a table of name -> object. `what` names its entries in messages ("probe kind");
                          `group` is the entry-point group a package registers under
                          (`[project.entry-points."harness.kinds"]`), read once, on the first lookup.
  register(name, obj)     obj is the object itself or a lazy string, imported on first use (a command's or
                          a family's module stays unimported until it is needed):
                            "module:attr"  the attribute is the entry;
                            "module"       the module is the entry (a generator, a command module), or,
                                           when importing it registers `name` itself (a family module
                                           registering its probe kinds), what it registered.
                          The same entry twice is fine; a different one under the same name raises
                          RegistrationError: two modules claiming one name is a bug to be told about, never
                          a silent override.
  get(name)               the object, or None when no module and no entry point registers the name. A lazy
                          entry whose import fails raises: an import error of a plugin is its bug, shown
                          with its traceback, never hidden as "unknown name".
  require(name)           the object, or RegistryError (a HarnessError: one sentence naming the known
                          names, exit 2), for names that come from the user.
  names() / items()       every name in registration order (nothing imported) / every (name, object).
  origin(name)            the distribution whose entry point registered the name (None: registered in code).

A registry made with built_in=True (the harness's own eight) expects its group among the harness's own
entry points: when the installed metadata has none (the source was updated and not installed again), its
first lookup is one sentence saying to run `pip install -e .` (StaleInstallError, exit 3), never a table
that silently lacks the built-ins.

Entry points: the harness's own distribution's are read first, then other packages' (by distribution
name). Another package's entry point under a name already taken by a different entry is not registered
(a plugin cannot replace a built-in, and one careless plugin must not stop the harness); it is kept in
`refused` for listings to show. The harness's own entry point against a different registration in code
is a RegistrationError. `reload_entry_points()` reads every group again (a test that puts a plugin's
metadata on sys.path at run time).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import re
import sys
import threading
import weakref
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any, Generic, TypeVar

from harness.core.errors import HarnessError, InfrastructureError

T = TypeVar("T")


def _group(word: str) -> str:
    """An entry-point group name, "harness.<word>". Built, not written out: the adapters group's name is
    also the harness.adapters package's, and a string equal to a module's name reads as an import of it
    (tests/test_architecture.py); a group is a name in install metadata, not a module."""
    return f"harness.{word}"


#: the entry-point groups of the harness's registries (one per registry; docs/architecture.md)
GROUP_KINDS = _group("kinds")
GROUP_FAMILIES = _group("families")
GROUP_READERS = _group("readers")  # the rules' readers of one reply (harness.oracles)
GROUP_KIND_READERS = _group("kind_readers")  # readers of a kind's whole batch (harness.core.kinds.Reader)
GROUP_GENERATORS = _group("generators")
GROUP_ADAPTERS = _group("adapters")
GROUP_ANSWER_MODES = _group("answer_modes")
GROUP_COMMANDS = _group("commands")

#: the harness's own distribution: its entry points are the built-ins, read before any plugin's
OWN_DISTRIBUTION = "harness-bias"


class RegistrationError(ValueError):
    """Two different declarations under one name (a programming error, raised at import)."""


class RegistryError(HarnessError):
    """A name the user gave that no registry entry has (one sentence, exit 2)."""


class StaleInstallError(InfrastructureError):
    """The installed metadata of the harness lacks its own entry points (one sentence, exit 3)."""


def _identity(obj: Any) -> Any:
    """What makes two registrations the same entry: a lazy string itself; a module its name; a function
    or class its module and qualified name (the same function from a module imported twice is one entry);
    anything else itself, compared with ==."""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, ModuleType):
        return ("module", obj.__name__)
    if isinstance(obj, type) or (callable(obj) and hasattr(obj, "__qualname__") and hasattr(obj, "__module__")):
        return (obj.__module__, obj.__qualname__)
    return obj


def load_lazy(ref: str) -> Any:
    """Import "package.module:attr.sub" (or a bare "package.module": the module itself)."""
    module_name, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module_name.strip())
    for part in attr.strip().split(".") if attr.strip() else ():
        obj = getattr(obj, part)
    return obj


def _initializing(module_name: str) -> bool:
    """Whether that module is being imported right now (its own registrations run inside its import).
    A module without the import system's marker counts as initializing: the check is then lenient."""
    module = sys.modules.get(module_name)
    if module is None:
        return False
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", True))


# -- entry points, read once per process for every registry ------------------------------------------------

_EP_CACHE: list[_Found] | None = None
_REGISTRIES: weakref.WeakSet[Registry[Any]] = weakref.WeakSet()


class _Found:
    """One entry point and the distribution that declares it (its name read from the folder's name, which
    is quick; the Name in its metadata, which means parsing the metadata, only when shown)."""

    __slots__ = ("ep", "dist", "key")

    def __init__(self, ep: importlib.metadata.EntryPoint, dist: importlib.metadata.Distribution, key: str):
        self.ep, self.dist, self.key = ep, dist, key

    @property
    def own(self) -> bool:
        return self.key == _normalise(OWN_DISTRIBUTION)

    def dist_name(self) -> str:
        return str(self.dist.metadata["Name"] or self.key)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def _dist_key(dist: importlib.metadata.Distribution) -> str:
    quick = getattr(dist, "_normalized_name", None)  # from the folder name where the path says it
    return _normalise(quick if isinstance(quick, str) and quick else str(dist.metadata["Name"] or ""))


def _entry_points(group: str) -> list[_Found]:
    """The group's entry points, the harness's own first (in file order), then each other distribution's;
    one copy of each distribution's metadata (the first found on sys.path, a .dist-info before an
    .egg-info)."""
    global _EP_CACHE
    if _EP_CACHE is None:
        chosen: dict[str, importlib.metadata.Distribution] = {}
        for dist in importlib.metadata.distributions():
            key = _dist_key(dist)
            if key not in chosen or (_is_egg_info(chosen[key]) and not _is_egg_info(dist)):
                chosen[key] = dist
        _EP_CACHE = [_Found(ep, dist, key) for key, dist in chosen.items() for ep in dist.entry_points]
    found = [f for f in _EP_CACHE if f.ep.group == group]
    return sorted(found, key=lambda f: (not f.own, f.key))


def _is_egg_info(dist: importlib.metadata.Distribution) -> bool:
    """Metadata a build left in a source tree (harness_bias.egg-info beside pyproject.toml): on sys.path
    when Python runs from the checkout, and stale as soon as pyproject.toml changes; the installed
    .dist-info of the same distribution is read instead (importlib itself takes the first found)."""
    return str(getattr(dist, "_path", "")).endswith(".egg-info")


def reload_all_entry_points() -> None:
    """Read the installed entry points again, for every registry (a package installed since start-up)."""
    global _EP_CACHE
    _EP_CACHE = None
    importlib.invalidate_caches()
    for registry in list(_REGISTRIES):
        registry.reload_entry_points()


class Registry(Generic[T]):
    """A table of name -> entry, open to the harness's own modules and to other packages' entry points.

    `coerce(name, obj) -> T`: turns what a lazy string imported into the entry (a family module into a
    Family), or raises RegistrationError when it is no such entry; `same(a, b)`: whether two resolved
    entries are one (default: == after _identity)."""

    def __init__(self, what: str, group: str | None = None, *, same: Callable[[Any, Any], bool] | None = None,
                 coerce: Callable[[str, Any], T] | None = None, built_in: bool = False) -> None:
        self.what = what
        self.built_in = built_in  # the harness's own pyproject.toml declares entries in `group`
        self.group = group
        self._same = same
        self._coerce = coerce
        self._entries: dict[str, T | str] = {}
        self._origins: dict[str, _Found] = {}
        self._in_code: set[str] = set()  # names a register() call in code made (not only an entry point)
        self._reading = False
        self._unverified: dict[str, str] = {}  # name -> "module:attr" registered over while it was importing
        self._local = threading.local()  # .loading: name -> what its module registered while get() imported it
        #: entry points of other packages that were not registered: name -> "distribution: module:attr"
        self.refused: dict[str, str] = {}
        self._entry_points_read = group is None
        _REGISTRIES.add(self)

    # -- registering -----------------------------------------------------------------------------------

    def register(self, name: str, obj: T | str) -> T | str:
        """Add `name` (see the module docstring); returns obj, so a module can write X = register(...)."""
        if not self._reading:
            self._in_code.add(name)
        loading = self._loading()
        if name in loading:  # the module get() is importing (in this thread) registers its own entry
            mine = loading[name]
            if mine is not None and not self._is_same(mine, obj, name):
                raise self._twice(name, mine, obj)
            loading[name] = obj
            self._entries[name] = obj  # seen by a thread waiting on the same import (same key: order kept)
            return obj
        old = self._entries.get(name)
        if old is None:
            self._entries[name] = obj
        elif isinstance(old, str) and not isinstance(obj, str):
            self._over_lazy(name, old, obj)
        elif not self._is_same(old, obj, name):
            raise self._twice(name, old, obj)
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
        self._origins.pop(name, None)
        self._unverified.pop(name, None)
        self._in_code.discard(name)

    def _twice(self, name: str, old: Any, new: Any) -> RegistrationError:
        return RegistrationError(f"{self.what.capitalize()} '{name}' is registered twice, differently: "
                                 f"{old!r} and {new!r}.")

    def _over_lazy(self, name: str, ref: str, obj: T) -> None:
        """An object registered where a lazy string waits: the string's module registering its own entry
        while it is imported (kept, and for a "module:attr" checked on the next lookup), or anyone else
        (the same entry, or RegistrationError)."""
        module_name, _, attr = ref.partition(":")
        if _initializing(module_name.strip()):
            if attr:
                self._unverified[name] = ref
            self._entries[name] = obj
            return
        if not self._is_same(ref, obj, name):
            raise self._twice(name, ref, obj)
        self._entries[name] = obj

    def _resolved(self, ref: str, name: str) -> Any:
        obj = load_lazy(ref)
        return self._coerce(name, obj) if self._coerce is not None else obj

    def _is_same(self, old: T | str, new: T | str, name: str) -> bool:
        if _identity(old) == _identity(new):
            return True
        if isinstance(old, str) or isinstance(new, str):
            if isinstance(old, str) and isinstance(new, str):
                return False
            lazy, real = (old, new) if isinstance(old, str) else (new, old)
            if ":" not in lazy:  # a module: the same when it is the entry, or registered this entry itself
                module = load_lazy(lazy)  # its own registrations run (and raise on a conflict) now
                if _identity(module) == _identity(real):
                    return True
                try:
                    return self._equal(self._resolved(lazy, name), real)
                except RegistrationError:  # not an entry itself: a module registering its entries
                    return True
            try:
                resolved = self._resolved(lazy, name)
            except (ImportError, AttributeError):
                return False
            return self._equal(resolved, real)
        return self._equal(old, new)

    def _equal(self, a: Any, b: Any) -> bool:
        if a is b or _identity(a) == _identity(b):
            return True
        return self._same(a, b) if self._same is not None else False

    # -- entry points ----------------------------------------------------------------------------------

    def _read_entry_points(self) -> None:
        if self._entry_points_read:
            return
        self._entry_points_read = True
        found_all = _entry_points(self.group or "")
        if self.built_in and not any(f.own for f in found_all):
            self._entry_points_read = False
            raise StaleInstallError(
                f"The installed harness has no {self.group} entry points (its metadata predates this source): "
                "run `pip install -e .` in the harness folder again (scripts/setup.sh does).")
        for found in found_all:
            ep = found.ep
            old = self._entries.get(ep.name)
            if old is not None and old == ep.value:
                self._origins.setdefault(ep.name, found)
                continue
            if old is not None and not found.own:
                try:
                    same = self._is_same(old, ep.value, ep.name)
                except Exception:  # noqa: BLE001 - a plugin that cannot even be imported is refused too
                    same = False
                if not same:
                    self.refused[ep.name] = f"{found.dist_name()}: {ep.value}"
                continue
            self._reading = True
            try:
                self.register(ep.name, ep.value)
            finally:
                self._reading = False
            self._origins.setdefault(ep.name, found)

    def reload_entry_points(self) -> None:
        """Read the entry-point group again: a package installed in this process's lifetime joins, and the
        names of one no longer on sys.path leave (what its modules registered in code stays)."""
        global _EP_CACHE
        _EP_CACHE = None
        if self.group is None:
            return
        present = {(f.ep.name, f.key) for f in _entry_points(self.group)}
        for name, found in list(self._origins.items()):
            if (name, found.key) not in present:
                if name not in self._in_code:  # nothing but the entry point registered it
                    self._entries.pop(name, None)
                self._origins.pop(name, None)
        self.refused.clear()
        self._entry_points_read = False
        self._read_entry_points()

    # -- looking up ------------------------------------------------------------------------------------

    def get(self, name: str) -> T | None:
        """The entry, imported if lazy; None when nothing registers `name`."""
        self._read_entry_points()
        found = self._entries.get(name)
        if isinstance(found, str):
            found = self._load(name, found)
        elif name in self._unverified:
            ref = self._unverified.pop(name)
            if not self._equal(self._resolved(ref, name), found):
                raise self._twice(name, ref, found)
        return found

    def _load(self, name: str, ref: str) -> T:
        """Import a lazy entry. Its module may register `name` itself while it is imported: that entry is
        the one kept (it must agree with the attribute the string names, when it names one)."""
        loading = self._loading()
        loading[name] = None
        try:
            obj = load_lazy(ref)
        finally:
            mine = loading.pop(name)
        current = self._entries.get(name)
        if mine is None and current is not None and not isinstance(current, str):
            return current  # another thread imported it meanwhile (its import registered the entry there)
        if mine is not None:
            if not isinstance(obj, ModuleType) and not self._equal(self._coerce_or(name, obj), mine):
                raise self._twice(name, ref, mine)
            entry = mine
        else:
            entry = self._coerce_or(name, obj)
        self._entries[name] = entry  # the same key: the registration order is kept
        self._unverified.pop(name, None)
        return entry

    def _loading(self) -> dict[str, Any]:
        loading = getattr(self._local, "loading", None)
        if loading is None:
            loading = self._local.loading = {}
        return loading

    def _coerce_or(self, name: str, obj: Any) -> T:
        return self._coerce(name, obj) if self._coerce is not None else obj

    def require(self, name: str) -> T:
        """The entry, or RegistryError naming the known ones (for names a user typed)."""
        found = self.get(name)
        if found is None:
            known = ", ".join(sorted(self.names())) or "none"
            raise RegistryError(f"Unknown {self.what} '{name}'; known: {known}.")
        return found

    def lazy_ref(self, name: str) -> str | None:
        """The lazy string an unimported entry was registered with (None once imported, or for an
        object): lets a listing name an entry without importing it."""
        self._read_entry_points()
        found = self._entries.get(name)
        return found if isinstance(found, str) else None

    def origin(self, name: str) -> str | None:
        """The distribution whose entry point registered `name` (its Name); None for a registration in code."""
        self._read_entry_points()
        found = self._origins.get(name)
        return found.dist_name() if found is not None else None

    def names(self) -> list[str]:
        """Every registered name, in registration order (the harness's own first), nothing imported."""
        self._read_entry_points()
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """Every (name, entry), each imported."""
        return [(name, self.get(name)) for name in self.names()]  # type: ignore[misc]

    def values(self) -> list[T]:
        return [obj for _, obj in self.items()]

    def __getitem__(self, name: str) -> T:
        """The entry, or KeyError (a lookup by a name the code itself holds, not the user's)."""
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        self._read_entry_points()
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def __len__(self) -> int:
        return len(self.names())

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, {len(self._entries)} entries)"
