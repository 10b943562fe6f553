"""The one registry type (harness.core.registry): lazy strings, one duplicate check, entry points of a real
installed-looking distribution, and the one sentence for a name nobody registered."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.core.errors import HarnessError
from harness.core.registry import RegistrationError, Registry, RegistryError, reload_all_entry_points

GROUP = "harness.unit_tests"

PLUGIN = '''
from harness.core.registry import Registry

IMPORTED = True
VALUE = ("plugin", 1)


def greet():
    return "hello"
'''

@pytest.fixture
def plugin_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A distribution as pip installs one: a module and a dist-info with entry_points.txt, on sys.path."""
    site = tmp_path / "site"
    (site / "unit_registry_plugin").mkdir(parents=True)
    (site / "unit_registry_plugin" / "__init__.py").write_text(PLUGIN + "\nTABLE = None\n", "utf-8")
    info = site / "unit_registry_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: unit-registry-plugin\nVersion: 1.0\n", "utf-8")
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\nvalue = unit_registry_plugin:VALUE\ngreet = unit_registry_plugin:greet\n"
        "module = unit_registry_plugin\ntaken = unit_registry_plugin:greet\n", "utf-8")
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in ("unit_registry_plugin", "unit_registry_plugin.bad"):
        sys.modules.pop(name, None)
    monkeypatch.undo()
    reload_all_entry_points()


def test_a_lazy_string_is_imported_on_first_use_only() -> None:
    table: Registry[object] = Registry("unit entry")
    table.register("path", "pathlib:PurePosixPath")
    table.register("module", "json")
    assert table.lazy_ref("path") == "pathlib:PurePosixPath"  # listed without importing
    assert table.names() == ["path", "module"]
    import json
    import pathlib

    assert table.get("path") is pathlib.PurePosixPath and table.lazy_ref("path") is None
    assert table.get("module") is json  # a bare module is the entry
    assert table.get("nothing") is None and "nothing" not in table


def test_the_same_entry_twice_is_fine_a_different_one_is_an_error() -> None:
    table: Registry[object] = Registry("unit entry")
    table.register("a", ("x", 1))
    table.register("a", ("x", 1))  # equal: the same entry
    with pytest.raises(RegistrationError, match="Unit entry 'a' is registered twice, differently"):
        table.register("a", ("x", 2))
    import pathlib

    table.register("p", "pathlib:PurePath")
    table.register("p", pathlib.PurePath)  # the object its lazy string names: the same entry
    with pytest.raises(RegistrationError, match="registered twice"):
        table.register("p", pathlib.Path)
    table.unregister("p")
    table.register("p", pathlib.Path)  # free again after unregister
    assert table["p"] is pathlib.Path
    with pytest.raises(KeyError):
        table["missing"]


def test_require_names_the_known_entries_in_one_sentence() -> None:
    table: Registry[object] = Registry("answer mode")
    table.register("chat", 1)
    table.register("perplexity", 2)
    with pytest.raises(RegistryError) as caught:
        table.require("loglik")
    assert str(caught.value) == "Unknown answer mode 'loglik'; known: chat, perplexity."
    assert isinstance(caught.value, HarnessError) and caught.value.exit_code == 2
    assert table.require("chat") == 1


def test_entry_points_of_an_installed_distribution(plugin_site: Path) -> None:
    table: Registry[object] = Registry("unit entry", GROUP)
    table.register("taken", "json:dumps")  # registered by the harness before the plugin is read
    table.reload_entry_points()  # the metadata was put on sys.path after start-up
    assert set(table.names()) == {"taken", "value", "greet", "module"}
    assert "unit_registry_plugin" not in sys.modules  # read, nothing imported
    assert table.origin("value") == "unit-registry-plugin" and table.origin("taken") is None
    assert table.get("value") == ("plugin", 1)
    assert table.get("greet")() == "hello"
    import json

    # another package cannot take a name the harness holds: kept out, and said where it came from
    assert table.get("taken") is json.dumps
    assert table.refused == {"taken": "unit-registry-plugin: unit_registry_plugin:greet"}


def test_a_derived_table_takes_the_parts_of_its_source_entries() -> None:
    """A table fed by another (the kinds of the registered methods): the source entry of the missed name is
    read first, every source entry only when the name is still missing, and a conflict is one sentence."""
    methods: Registry[dict[str, int]] = Registry("unit method")
    methods.register("a", {"a": 1, "shared": 0})
    methods.register("b", {"b2": 2, "shared": 0})
    read: list[str] = []

    def parts(method: dict[str, int]) -> list[tuple[str, int]]:
        read.append(",".join(method))
        return list(method.items())

    table: Registry[int] = Registry("unit part", feed=(methods, parts))
    table.register("own", 9)  # registered in code beside the fed entries
    assert table.get("a") == 1 and read == ["a,shared"]  # the method of the same name only
    assert table.get("b2") == 2 and read == ["a,shared", "b2,shared"]  # missed: every method read
    assert table.names() == ["own", "a", "shared", "b2"] and table.get("nothing") is None
    methods.register("d", {"d4": 4})  # a source entry registered after every one was read: read on a miss
    assert table.get("d4") == 4 and "d4" in table.names()
    methods.register("c", {"shared": 5})
    methods.unregister("d")
    clash: Registry[int] = Registry("unit part", feed=(methods, lambda m: list(m.items())))
    with pytest.raises(RegistrationError, match="Unit part 'shared' is registered twice, differently: 0 and 5"):
        clash.names()


def test_a_declaration_error_at_import_names_the_entry(plugin_site: Path) -> None:
    """A plugin module whose declaration is wrong raises while it is imported: the sentence gains the entry's
    name (which method), and is a HarnessError (one sentence, exit 2, no traceback in the CLI)."""
    plugin = plugin_site / "unit_registry_plugin"
    (plugin / "bad.py").write_text("from harness.core.registry import RegistrationError\n"
                                   "raise RegistrationError(\"FamilySpec has no field 'headlines'.\")\n", "utf-8")
    table: Registry[object] = Registry("unit method")
    table.register("mine", "unit_registry_plugin.bad")
    with pytest.raises(RegistrationError) as caught:
        table.get("mine")
    assert str(caught.value) == "Unit method 'mine': FamilySpec has no field 'headlines'."
    assert isinstance(caught.value, HarnessError) and caught.value.exit_code == 2
    sys.modules.pop("unit_registry_plugin.bad", None)


def test_an_uninstalled_package_leaves_and_a_stale_egg_info_is_not_read(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A build leaves name.egg-info in a source tree, first on sys.path when Python runs from there; the
    installed .dist-info of the same distribution holds the current entry points."""
    stale, installed = tmp_path / "checkout", tmp_path / "site"
    (stale / "unit_registry_twice.egg-info").mkdir(parents=True)
    (stale / "unit_registry_twice.egg-info" / "PKG-INFO").write_text(
        "Metadata-Version: 2.1\nName: unit-registry-twice\nVersion: 0.9\n", "utf-8")
    (stale / "unit_registry_twice.egg-info" / "entry_points.txt").write_text(
        f"[{GROUP}]\nold = json:dumps\n", "utf-8")
    (installed / "unit_registry_twice-1.0.dist-info").mkdir(parents=True)
    (installed / "unit_registry_twice-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: unit-registry-twice\nVersion: 1.0\n", "utf-8")
    (installed / "unit_registry_twice-1.0.dist-info" / "entry_points.txt").write_text(
        f"[{GROUP}]\nnew = json:loads\n", "utf-8")
    table: Registry[object] = Registry("unit entry", GROUP)
    monkeypatch.syspath_prepend(str(installed))
    monkeypatch.syspath_prepend(str(stale))  # first on sys.path, as a checkout's folder is
    table.reload_entry_points()
    assert table.names() == ["new"] and table.origin("new") == "unit-registry-twice"
    import json

    assert table.get("new") is json.loads  # imported: it still leaves with its package
    monkeypatch.undo()
    table.reload_entry_points()
    assert table.names() == [] and table.get("new") is None


def test_a_built_in_group_missing_from_the_installed_metadata_is_one_sentence() -> None:
    """The source updated and not installed again: the harness's own table would silently lack its built-ins."""
    from harness.core.registry import StaleInstallError

    table: Registry[object] = Registry("unit entry", "harness.unit_tests_not_declared", built_in=True)
    with pytest.raises(StaleInstallError) as caught:
        table.names()
    assert str(caught.value) == ("The installed harness has no harness.unit_tests_not_declared entry points (its "
                                 "metadata predates this source): run `pip install -e .` in the harness folder again.")
    assert caught.value.exit_code == 3
    assert Registry("unit entry", "harness.commands", built_in=True).names()  # the installed groups are there
