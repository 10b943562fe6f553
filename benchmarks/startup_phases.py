"""Where `harness run`'s start-up goes: wall and CPU seconds at each stage up to the first request (issue 38).

    .venv/bin/python benchmarks/startup_phases.py [--runs 3] [--no-warmup]

The peers-style run (benchmarks/peers.py's server answering after 100 ms; `harness run -s builtin-en --sample
4000 --seed 1 -t bench --concurrency 64 --no-progress --no-cache`, a fresh cache and transcripts folder) runs in
a child interpreter that records the time (since its own start: interpreter and site come before it, ~0.05 s)
and the process's CPU seconds, all threads, as each stage begins and ends: importing harness.cli and the run
command, typer's parsing, the plan's checks (`_plan`: the suite loaded, the target read, its adapter class
imported, the readers checked), `plan_run` (the probe count), the suite content's fingerprint (`_content`:
the selection generated and hashed), opening the run folder (`_begin`), and the first request (the child then
exits at once: nothing is asked). Each line: seconds since start, CPU seconds, stage; then the first request's
median over the runs. Printed with the load average: on a busy machine read the CPU column.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402 - the counting benchmark server and its `bench` target

CHILD = r'''
import importlib.abc, importlib.util, os, sys, time
T0 = time.perf_counter()
marks = []
def mark(name):
    marks.append((name, time.perf_counter() - T0, time.process_time()))
def wrap(mod, attr):
    f = getattr(mod, attr)
    def timed(*a, **k):
        mark("> " + attr)
        try:
            return f(*a, **k)
        finally:
            mark("< " + attr)
    setattr(mod, attr, timed)
def first_request(*a, **k):
    mark("first request")
    for name, at, cpu in marks:
        print(f"{at:7.3f} s  {cpu:6.3f} CPU s  {name}", file=sys.stderr)
    sys.stderr.flush()
    os._exit(0)
class Hook(importlib.abc.MetaPathFinder):
    """Replace the wire client's post with first_request once harness.adapters.openai_wire is imported."""
    def find_spec(self, name, path, target=None):
        if name != "harness.adapters.openai_wire":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module
        def exec_module(module):
            run(module)
            async def post(self, *a, **k):
                first_request()
            module.WireClient.post = post
        spec.loader.exec_module = exec_module
        return spec
sys.meta_path.insert(0, Hook())
mark("interpreter up")
from harness.cli import main
mark("harness.cli imported")
import harness.cli.run as run
mark("harness.cli.run imported")
import harness.run.execute as execute
for mod, attr in ((run, "_plan"), (run, "_ask"), (execute, "plan_run"), (execute, "_content"), (execute, "_begin")):
    wrap(mod, attr)
sys.exit(main(sys.argv[1:]))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-warmup", action="store_true", help="HARNESS_WARMUP=0 (the warm-up thread off)")
    opts = parser.parse_args()
    started = peers.start_bench_server(0.1, 16, "harness-startup-phases-")
    if started is None:
        sys.exit(3)
    server, _counter, _port, work = started
    print(f"load average {' / '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    firsts = []
    try:
        for i in range(opts.runs):
            env = {**peers._fresh_env(work, i), **({"HARNESS_WARMUP": "0"} if opts.no_warmup else {})}
            cmd = [sys.executable, "-c", CHILD, "run", "--suite", "builtin-en", "--sample", "4000", "--seed", "1",
                   "--target", "bench", "--concurrency", "64", "--no-progress", "--no-cache"]
            done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False)
            lines = [line for line in done.stderr.splitlines() if " CPU s  " in line]
            print(f"run {i + 1}:", *lines, sep="\n  ")
            if lines and lines[-1].endswith("first request"):
                firsts.append((float(lines[-1].split()[0]), float(lines[-1].split()[2])))
            else:
                print(f"  no first request (exit {done.returncode}): {done.stderr.strip()[-300:]}")
    finally:
        server.terminate()
    if firsts:
        print(f"first request: median {statistics.median(f[0] for f in firsts):.3f} s, "
              f"{statistics.median(f[1] for f in firsts):.3f} CPU s after the interpreter started "
              f"(load average now {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
