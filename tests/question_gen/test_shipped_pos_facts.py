"""The built-in English suites start without spaCy on a cold cache directory (issue 38): their POS facts ship
in question_gen/builtin/pos_facts.json, and that file is what spaCy says today."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_cold_cache_dry_run_of_builtin_en_loads_no_spacy(tmp_path: Path) -> None:
    code = ("import sys\nfrom harness.cli import main\n"
            "code = main(['run', '--suite', 'builtin-en', '--target', 'local', '--dry-run', '--sample', '400'])\n"
            "assert code == 0, code\nassert 'spacy' not in sys.modules, 'spaCy was loaded'\n"
            "assert 'matplotlib' not in sys.modules and 'torch' not in sys.modules\n")
    env = {**os.environ, "HARNESS_CACHE_DIR": str(tmp_path / "cold"), "HARNESS_TRANSCRIPTS_DIR": str(tmp_path / "t")}
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert not (tmp_path / "cold" / "pos").exists()  # nothing was tagged, so nothing was written


def test_the_shipped_facts_are_current() -> None:
    done = subprocess.run([sys.executable, str(ROOT / "scripts" / "ship_pos_facts.py"), "--check"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
