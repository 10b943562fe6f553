"""The test process's memory: runs pytest with the RSS hook of tests/conftest.py and names the modules that cost it.

    .venv/bin/python benchmarks/test_memory.py [PYTEST ARGS...]      (default: the whole suite, `tests`)
    .venv/bin/python benchmarks/test_memory.py tests/whitebox --top 8

The hook (HARNESS_TEST_RSS=FILE) appends, after every test, the pytest process's resident memory and its peak
so far (ru_maxrss). This prints the peak, then the modules that raised the peak most and the ones that left the
most memory behind when they ended (a model kept in a module global or a session fixture shows as memory held
after its module). Only the pytest process is measured: the llama.cpp servers of tests/conftest.py and the
oracle's worker processes are processes of their own. It asserts nothing: a figure to read, not a gate.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def measure(pytest_args: list[str]) -> tuple[int, list[dict[str, float | str]]]:
    """Run pytest in a child process with the hook on; (its exit code, one record per test in order)."""
    with tempfile.TemporaryDirectory() as tmp:
        log = Path(tmp) / "rss.jsonl"
        env = {**os.environ, "HARNESS_TEST_RSS": str(log)}
        code = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                              cwd=REPO, env=env).returncode
        rows = [json.loads(line) for line in log.read_text("utf-8").splitlines()] if log.exists() else []
    return code, rows


def by_module(rows: list[dict[str, float | str]]) -> list[dict[str, float | str]]:
    """Per test module, in run order: how much it raised the peak and the memory held when it ended."""
    mods: list[dict[str, float | str]] = []
    before_peak, before_rss = 0.0, 0.0
    for r in rows:
        name = str(r["test"]).split("::")[0]
        if not mods or mods[-1]["module"] != name:
            if mods:
                before_peak, before_rss = float(mods[-1]["peak_mb"]), float(mods[-1]["rss_mb"])
            mods.append({"module": name, "start_peak": before_peak, "start_rss": before_rss})
        mods[-1]["peak_mb"], mods[-1]["rss_mb"] = float(r["peak_mb"]), float(r["rss_mb"])
    for m in mods:
        m["raised_peak_mb"] = float(m["peak_mb"]) - float(m["start_peak"])
        m["held_mb"] = float(m["rss_mb"]) - float(m["start_rss"])
    return mods


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--top", type=int, default=10, help="how many modules to list (default 10)")
    args, pytest_args = ap.parse_known_args()
    code, rows = measure(pytest_args or ["tests"])
    if not rows:
        print(f"pytest exited {code} and ran no test")
        return 1
    mods = by_module(rows)
    peak = max(float(r["peak_mb"]) for r in rows)
    print(f"\n{len(rows)} tests in {len(mods)} modules; pytest exited {code}")
    print(f"peak RSS of the pytest process: {peak:,.0f} MB; at the end: {float(rows[-1]['rss_mb']):,.0f} MB")
    print("\nmodules that raised the peak most (MB raised, peak after):")
    for m in sorted(mods, key=lambda m: -float(m["raised_peak_mb"]))[:args.top]:
        if float(m["raised_peak_mb"]) > 0:
            print(f"  {float(m['raised_peak_mb']):8,.0f}  {float(m['peak_mb']):8,.0f}  {m['module']}")
    print("\nmodules that left the most memory behind (MB held after the module, RSS then):")
    for m in sorted(mods, key=lambda m: -float(m["held_mb"]))[:args.top]:
        print(f"  {float(m['held_mb']):8,.0f}  {float(m['rss_mb']):8,.0f}  {m['module']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
