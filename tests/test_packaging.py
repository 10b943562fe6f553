"""The wheel installs one import name, `harness`, and nothing that could shadow another distribution.

`adapters` is AdapterHub's import name and `metrics` / `whitebox` are other distributions' too; with both
installed, one silently shadowed the other. This builds the real wheel, installs it into a clean venv
(no dependencies: only what the wheel itself provides is looked at) and checks from outside the repository.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the source tree (setuptools writes build/ and egg-info in place)."""
    out = tmp_path_factory.mktemp("wheel")
    source = tmp_path_factory.mktemp("source") / "harness"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "transcripts", "build", "dist", "*.egg-info", "__pycache__", ".ruff_cache"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "--disable-pip-version-check", "-w", str(out), str(source)], check=True, cwd=out)
    (found,) = out.glob("harness_bias-*.whl")
    return found


@pytest.fixture(scope="module")
def clean_venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(home)
    python = home / "bin" / "python"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "-q",
                    "--disable-pip-version-check", str(wheel)], check=True, cwd=home)
    return python


def top_level_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as zf:
        return {name.split("/")[0] for name in zf.namelist() if not name.split("/")[0].endswith(".dist-info")}


def test_the_wheel_provides_only_harness(wheel: Path) -> None:
    assert top_level_names(wheel) == {"harness"}
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    for expected in ("harness/adapters/base.py", "harness/adapters/presets.toml", "harness/oracles/lexicon/__init__.py",
                     "harness/suites/builtin-en.yaml", "harness/question_gen/builtin/__init__.py",
                     "harness/report/templates/report.html.j2", "harness/core/data_registry.json",
                     "harness/whitebox/__init__.py", "harness/metrics/biasasker.py"):
        assert expected in names, f"{expected} is missing from the wheel"


def test_entry_points_keep_their_groups(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        (ep,) = [n for n in zf.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = zf.read(ep).decode()
    assert "[pytest11]\nharness = harness.gates.pytest_plugin" in text
    assert "[console_scripts]\nharness = harness.cli:main" in text


def test_old_top_level_names_are_gone_outside_the_repository(clean_venv: Path, tmp_path: Path) -> None:
    probe = ("import importlib.util as u, sys\n"
             "names = ['adapters', 'metrics', 'oracles', 'question_gen', 'suites', 'whitebox']\n"
             "print(','.join(n for n in names if u.find_spec(n) is not None))\n"
             "import harness.core.errors, harness.suites\n"
             "print(harness.core.errors.__file__)\n")
    out = subprocess.run([str(clean_venv), "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    found, location = out.stdout.splitlines()
    assert found == "", f"the clean venv still provides top-level {found}"
    assert str(ROOT) not in location and "site-packages" in location
    fails = subprocess.run([str(clean_venv), "-c", "import adapters"], capture_output=True, text=True, cwd=tmp_path)
    assert fails.returncode != 0 and "ModuleNotFoundError" in fails.stderr
