"""A plugin's suite is listed by `harness suites` and found by `--suite NAME`, beside the harness's own (issue 36).

The real plugin (tests/plugin_pkg: the echoplug package and its dist-info, whose one harness.methods entry point
names a declaration with `suites=(echo.yaml,)`) is put on PYTHONPATH, and the real `harness` command runs in its
own process, as a user runs it. Figures by hand: echo.yaml asks 4 animals x 2 pairs x 2 styles = 16 probes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.core.method import DeclarationError, Method

PLUGIN = Path(__file__).resolve().parents[1] / "plugin_pkg"


def _harness(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(PLUGIN), os.environ.get("PYTHONPATH")])),
           "HARNESS_DATA_DIR": str(tmp_path / "no-data"), "HARNESS_CACHE_DIR": str(tmp_path / "cache"),
           "HARNESS_TRANSCRIPTS_DIR": str(tmp_path / "runs"), "COLUMNS": "160", "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "harness", *args], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)


def test_a_plugin_suite_is_listed_with_its_method_and_found_by_name(tmp_path: Path) -> None:
    listed = _harness(tmp_path, "suites")
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if "echoplug-en" in line)
    assert "16" in lines[row] and "echoplug" in lines[row].split("echoplug-en", 1)[1]  # its count and generator
    assert "method echoplug" in lines[row + 1]  # the method's name beside it
    assert "builtin-en" in listed.stdout and "method " not in listed.stdout.split("echoplug-en")[0]  # built-ins: none

    shown = _harness(tmp_path, "questions", "--suite", "echoplug-en", "--format", "jsonl")
    assert shown.returncode == 0, shown.stderr
    probes = [json.loads(line) for line in shown.stdout.splitlines()]
    assert len(probes) == 16 and {p["kind"] for p in probes} == {"echo_pair"}
    assert {p["suite"] for p in probes} == {"echoplug-en"}

    (tmp_path / "targets.toml").write_text('[targets.bot]\nadapter = "openai"\nmodel = "m"\n'
                                           'base_url = "http://127.0.0.1:9/v1"\n', "utf-8")
    planned = _harness(tmp_path, "run", "--suite", "echoplug-en", "--target", "bot", "--dry-run")
    assert planned.returncode == 0, planned.stderr
    assert "suite echoplug-en" in planned.stdout and "to ask now: 16" in planned.stdout


def test_without_the_plugin_its_suite_is_an_unknown_name(tmp_path: Path) -> None:
    """The same name, the plugin not installed: one sentence naming the known suites, exit 2."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-m", "harness", "questions", "--suite", "echoplug-en"], cwd=tmp_path,
                         env={**env, "HARNESS_DATA_DIR": str(tmp_path)}, capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "Unknown suite 'echoplug-en'" in out.stderr and "Traceback" not in out.stderr


def test_a_suite_that_is_not_a_path_is_one_sentence() -> None:
    with pytest.raises(DeclarationError, match=r"Method 'zq': suites holds 7, not a suite file's path"):
        Method(name="zq", suites=(7,))  # type: ignore[arg-type]
