"""At 80 columns (issue 36): `harness suites` keeps every suite's description and whole counts, `harness runs`
keeps ok / err / todo beside a long run id. The real commands in a child process with COLUMNS=80."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness.question_gen.suites import load_suite


def _harness(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "80", "NO_COLOR": "1", "TERM": "dumb"}
    env.pop("HARNESS_TRANSCRIPTS_DIR", None)
    return subprocess.run([str(Path(sys.executable).with_name("harness")), *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=600)


def test_suites_keeps_description_and_counts() -> None:
    out = _harness("suites")
    assert out.returncode == 0, out.stderr
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    text = " ".join(out.stdout.split())
    suite = load_suite("builtin-en")
    total = sum(suite.counts().values())
    assert f"{total:,}" in out.stdout  # the whole count, not "12,0…"
    words = suite.description.split()[:3]
    flat = " ".join(text.replace("│", " ").split())
    assert all(w in flat for w in words), words  # the description is shown (wrapped), not hidden


def test_runs_keeps_the_counts_beside_a_long_id(tmp_path: Path) -> None:
    from run_builders import make_run

    name = "builtin-en__a-target-with-a-rather-long-name__s200-seed0-perturb-gender"
    make_run(tmp_path / "transcripts" / name, n_rel=2, n_abs=2, errors=3, xss=False)
    out = _harness("runs", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    header = next(line for line in lines if " status " in line)
    assert all(f" {col}" in header for col in ("ok", "err", "todo")), header
    row = next(line for line in lines if line.startswith(" builtin-en__"))
    assert row.split()[-2:] == ["20", "3"], row  # 20 answered, 3 errors: shown beside the id, which wraps
