"""`harness run` ends its process with os._exit once everything is written (harness.cli.fast_exit, issue 38):
through a real subprocess and a real HTTP server, the run folder is complete, the output is all there (piped,
so block-buffered until the flush), the exit code is the gate's, and the fast exit was taken (an atexit
handler never runs), while a command that did not arm it (--dry-run) exits normally."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

from fault_server import FaultServer

#: the console entry point exactly as the `harness` script calls it (main() with no argv), plus a marker that
#: Python's normal exit prints and os._exit skips
ENTRY = ("import atexit, sys\natexit.register(lambda: print('NORMAL-EXIT', flush=True))\n"
         "from harness.cli import main\nsys.argv = ['harness', *sys.argv[1:]]\nsys.exit(main())\n")


def _harness(run_env: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    (run_env / "targets.toml").write_text(f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{url}"\n',
                                          encoding="utf-8")
    env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(run_env / "transcripts"),
           "HARNESS_CACHE_DIR": str(run_env / "cache"), "OPENAI_API_KEY": "sk-test-not-secret"}
    cmd = [sys.executable, "-c", ENTRY, "run", "--suite", "builtin-en", "--target", "bot", "--limit", "20",
           "--no-progress", *args]
    return subprocess.run(cmd, cwd=run_env, env=env, capture_output=True, text=True, timeout=300, check=False)


def _complete(run_dir: Path) -> None:
    """Every file of the run folder is whole: 20 transcript lines, 20 verdict rows, metrics, the page's end."""
    assert len((run_dir / "transcript.jsonl").read_text("utf-8").splitlines()) == 20
    rows = list(csv.reader((run_dir / "verdicts.csv").open(encoding="utf-8", newline="")))
    assert len(rows) == 21
    assert json.loads((run_dir / "metrics.json").read_text("utf-8"))["metrics"]["answered"] == 20
    assert (run_dir / "report.html").read_text("utf-8").rstrip().endswith("</html>")
    assert json.loads((run_dir / "manifest.json").read_text("utf-8"))["status"] == "complete"
    assert not list(run_dir.glob("*.tmp"))


def test_a_run_leaves_at_once_with_its_files_whole_and_its_exit_code(run_env: Path) -> None:
    with FaultServer(healed=True) as server:
        passed = _harness(run_env, server.base_url, "--run-id", "pass", "--fail-below", "answered=20")
        failed = _harness(run_env, server.base_url, "--run-id", "fail", "--fail-below", "answered=21")
        dry = _harness(run_env, server.base_url, "--run-id", "dry", "--dry-run")
    assert passed.returncode == 0, passed.stderr[-2000:]
    assert failed.returncode == 1, failed.stderr[-2000:]  # the gate's exit code, through os._exit
    for done, run_id in ((passed, "pass"), (failed, "fail")):
        _complete(run_env / "transcripts" / run_id)
        assert "NORMAL-EXIT" not in done.stdout  # the fast exit was taken: no atexit handler ran
        assert "Report:" in done.stdout and "answered" in done.stdout  # the summary and the gate line, flushed
    assert "gate answered = 20 (min 20): pass" in passed.stdout
    assert "Gate failed: answered: 20 is below 21" in failed.stdout  # the last line printed, flushed
    assert dry.returncode == 0 and "NORMAL-EXIT" in dry.stdout  # not armed: Python's own exit


def test_a_profiler_keeps_the_normal_exit() -> None:
    """`python -m cProfile -o F -m harness run ...` writes F at the interpreter's normal exit, which os._exit would
    skip: armed() is false while a profile function is set, and true again once it is removed."""
    from harness.cli import fast_exit

    fast_exit.arm()
    try:
        assert fast_exit.armed()
        sys.setprofile(lambda *args: None)
        try:
            assert not fast_exit.armed()
        finally:
            sys.setprofile(None)
        assert fast_exit.armed()
    finally:
        fast_exit.reset()
