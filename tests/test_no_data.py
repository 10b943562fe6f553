"""A clone without the upstream data sets passes its tests (issue 26): every test that needs a data set skips,
naming the command that fetches it, and none fails.

The check runs pytest itself, in a subprocess, over modules that read the BiasAsker, CBBQ and CHBias data
through every path a test can take (a loader raising DataMissingError, a `harness` command exiting 2 with
the pull sentence, a test marked needs_data), with HARNESS_DATA_DIR pointing at an empty folder.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import data_sets

REPO = Path(__file__).resolve().parent.parent
MODULES = ["tests/suites/test_suites.py", "tests/question_gen/test_biasasker_data.py",
           "tests/suites/test_chbias_suite.py", "tests/question_gen/test_cbbq_generation.py",
           # a module fixture running `harness run` on CBBQ (it errored at setup, issue 31), and one declared
           # with data_sets.needs: both skip before starting a server or building a model
           "tests/run/test_cbbq_e2e.py", "tests/run/test_cbbq_loglik.py"]


def test_data_dependent_modules_skip_with_the_pull_command_without_data(tmp_path: Path) -> None:
    env = {**os.environ, "HARNESS_DATA_DIR": str(tmp_path / "empty"),
           "HARNESS_TRANSCRIPTS_DIR": str(tmp_path / "transcripts"), "HARNESS_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:randomly", "-p", "no:cacheprovider",
                           *MODULES], cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]  # 0: no failure, no error
    skipped = int(re.search(r"(\d+) skipped", out).group(1))
    assert skipped >= 10, out[-2000:]
    for name in ("biasasker", "cbbq", "chbias"):
        assert f"harness data pull {name}" in out, name
    assert "failed" not in out.splitlines()[-1]


def test_presence_is_every_registered_file_at_its_size(tmp_path: Path) -> None:
    ds = data_sets.datasets.get_dataset("chbias")
    assert data_sets.missing(("chbias",), tmp_path) == ["chbias"]
    for f in ds.files:  # every file there, at its registered size
        path = tmp_path / "chbias" / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * f.size)
    data_sets.present.cache_clear()
    assert data_sets.missing(("chbias",), tmp_path) == []
    first = tmp_path / "chbias" / ds.files[0].path
    first.write_bytes(b"x" * (ds.files[0].size - 1))  # one byte short: a cut-off download
    data_sets.present.cache_clear()
    assert data_sets.missing(("chbias",), tmp_path) == ["chbias"]
    reason = data_sets.skip_reason(["chbias"], tmp_path)
    assert "`harness data pull chbias`" in reason and str(tmp_path) in reason

