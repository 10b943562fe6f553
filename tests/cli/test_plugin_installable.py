"""The example plugin can be pip-installed as the README's plugin section implies (issue 36): a wheel built
from tests/plugin_pkg/pyproject.toml holds the package, its suite file and the harness.methods entry point."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_pkg"


def test_echoplug_builds_as_a_wheel(tmp_path: Path) -> None:
    pytest.importorskip("setuptools")
    source = tmp_path / "src"
    shutil.copytree(PLUGIN, source, ignore=shutil.ignore_patterns("*.dist-info", "__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(tmp_path / "wheel"), str(source)], capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    (wheel,) = (tmp_path / "wheel").glob("echoplug-0.1-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        assert {"echoplug/method.py", "echoplug/echo.yaml"} <= names
        entry_points = zf.read("echoplug-0.1.dist-info/entry_points.txt").decode()
    assert "[harness.methods]" in entry_points and "echoplug = echoplug.method:METHOD" in entry_points
