"""A derived table's lookup imports only the source entries it needs (issue 38): a run's first rule_for
imported every method's declaration (~0.2 CPU s) to find the three rules of builtin-en's kinds."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.registry import Registry

MODULES = {"unit_need_a": {"a1": 1}, "unit_need_b": {"b1": 2, "b2": 3}, "unit_need_c": {"c1": 4}}


@pytest.fixture
def lazy_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A source table of three lazy entries, each a real module on sys.path holding its parts."""
    for name, parts in MODULES.items():
        (tmp_path / f"{name}.py").write_text(f"PARTS = {parts!r}\n", "utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    source: Registry[dict[str, int]] = Registry("unit lazy method")
    for name in MODULES:
        source.register(name.removeprefix("unit_need_"), f"{name}:PARTS")
    yield source
    for name in MODULES:
        sys.modules.pop(name, None)


def test_a_found_name_imports_the_source_entries_up_to_it(lazy_source: Registry[dict[str, int]]) -> None:
    table: Registry[int] = Registry("unit needed part", feed=(lazy_source, lambda parts: list(parts.items())))
    assert table.get("b2") == 3
    assert "unit_need_b" in sys.modules and "unit_need_c" not in sys.modules  # c is after b: never imported
    assert lazy_source.lazy_ref("c") == "unit_need_c:PARTS"
    assert table.get("b1") == 2 and "unit_need_c" not in sys.modules  # already taken: nothing imported


def test_an_imported_source_entry_is_looked_in_before_the_others(lazy_source: Registry[dict[str, int]]) -> None:
    lazy_source.get("c")  # imported by someone else first (the run's own method)
    table: Registry[int] = Registry("unit needed part", feed=(lazy_source, lambda parts: list(parts.items())))
    assert table.get("c1") == 4 and "unit_need_a" not in sys.modules and "unit_need_b" not in sys.modules
    assert table.get("missing") is None  # a true miss still reads every source entry, as before
    assert {"unit_need_a", "unit_need_b"} <= set(sys.modules) and table.names() == ["c1", "a1", "b1", "b2"]


def test_builtin_en_rules_import_only_the_methods_up_to_biasasker() -> None:
    """In a fresh process (nothing imported yet), the rules of builtin-en's kinds are found in biasasker's
    declaration; the methods after it in the entry points are not imported; a kind nobody declares still
    gets the unread rule."""
    code = ("import sys\nfrom harness.oracles import rule_for, rules\n"
            "got = [rule_for(k) for k in ('yes_no', 'wh', 'choice')]\n"
            "later = [m for m in ('cbbq', 'chbias', 'decision', 'stereoset', 'tod') "
            "if f'harness.declarations.{m}' in sys.modules]\n"
            "print(later, 'harness.declarations.biasasker' in sys.modules, rule_for('no_such_kind') is rules.unread)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["[]", "True", "True"]
