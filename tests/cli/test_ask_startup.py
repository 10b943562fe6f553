"""What `harness run` has imported when its first reply comes back (start-up, issue 38).

The first request waits for every module imported before it; modules only scoring, the report or a transform
needs are paid after asking, or while it asks (harness.cli.warmup, started at the first reply: started before
the plan, its thread put the first request of a 4,000-probe run 1.0-1.2 s later). The command runs through the
real console entry point in its own interpreter against a real HTTP server on 127.0.0.1; a reply hook
registered before the command (harness.run.engine.REPLY_HOOKS, called in order, so before the warm-up's own)
records sys.modules at the first recorded reply. Timing is benchmarks/startup.py's job, not a test's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fault_server import FaultServer

PROBE = (
    "import json, sys\n"
    "from harness.run.engine import REPLY_HOOKS\n"
    "from harness.cli import warmup\n"
    "seen = {}\n"
    "def first(probe, reply):\n"
    "    if not seen:\n"
    "        seen['modules'], seen['warming'] = sorted(sys.modules), warmup.started()\n"
    "REPLY_HOOKS.append(first)\n"
    "from harness.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'code': code, **seen, 'warmed': warmup.started()}))\n")

#: not needed to ask: numeric and report libraries, scoring, the report, the gates, the view, the transforms
#: a plain suite does not use, and the openai SDK (an OpenAI-compatible target speaks the wire format itself)
NOT_ON_THE_ASK_PATH = ("pandas", "numpy", "scipy", "matplotlib", "statsmodels", "jinja2", "spacy", "torch",
                       "openai", "harness.score", "harness.report", "harness.gates", "harness.view",
                       "harness.perturb", "harness.question_gen.metamorphic", "harness.human")


def _imported(modules: list[str], top: str) -> bool:
    return any(name == top or name.startswith(top + ".") for name in modules)


def test_the_first_reply_finds_only_the_ask_path_imported(run_env: Path) -> None:
    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(f'[targets.bot]\nadapter = "openai"\nmodel = "m"\n'
                                              f'base_url = "{server.base_url}"\n', encoding="utf-8")
        cmd = [sys.executable, "-c", PROBE, "run", "--suite", "builtin-en", "--target", "bot", "--limit", "3",
               "--no-progress", "--no-cache"]
        done = subprocess.run(cmd, cwd=run_env, env={**os.environ, "HARNESS_WARMUP": "1"}, capture_output=True,
                              text=True, timeout=300, check=False)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] in (0, 1), done.stderr[-2000:]  # 1: a gate on the scripted replies
    modules = report["modules"]
    assert "harness.run.engine" in modules and "harness.adapters.openai_wire" in modules  # it did ask
    assert [m for m in NOT_ON_THE_ASK_PATH if _imported(modules, m)] == []
    # the warm-up starts at the first reply (after this hook), and the run did warm up before scoring
    assert report["warming"] is False and report["warmed"] is True
