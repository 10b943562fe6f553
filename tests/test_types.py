"""mypy checks the declaration types, the registry and the methods' declarations strictly, and the tables
filled from them (the metrics, oracles and suites packages) in its default mode: a misspelt field of a
declaration, or a field of the wrong type, fails here before any run (docs/architecture.md, "A method")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STRICT = ("harness/core/method.py", "harness/core/parts.py", "harness/core/registry.py", "harness/core/kinds.py",
          "harness/core/entry_points.py",
          "harness/declarations", "harness/political/method.py", "harness/run/plan.py", "harness/cli/run_options.py")
DEFAULT = ("metrics/__init__.py",)


def _mypy(*args: str) -> subprocess.CompletedProcess[str]:
    pytest.importorskip("mypy", reason="mypy is in the test extras (pip install -e '.[test]')")
    return subprocess.run([sys.executable, "-m", "mypy", "--follow-imports=silent", "--ignore-missing-imports",
                           "--no-incremental", "--hide-error-context", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_the_declarations_and_the_registry_pass_mypy_strict() -> None:
    out = _mypy("--strict", *(str(ROOT / p) for p in STRICT))
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_the_family_table_passes_mypy() -> None:
    out = _mypy(*(str(ROOT / p) for p in DEFAULT))
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_mypy_catches_a_misspelt_declaration_field(tmp_path: Path) -> None:
    """The check above could fail: a declaration with `headlines=` is an error mypy names."""
    bad = tmp_path / "bad_declaration.py"
    bad.write_text("from harness.core.method import FamilySpec\n\n"
                   "SPEC = FamilySpec(compute=len, headlines=())\n", "utf-8")
    out = _mypy("--strict", str(bad))
    assert out.returncode == 1 and 'Unexpected keyword argument "headlines"' in out.stdout, out.stdout[-2000:]
