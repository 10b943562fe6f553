"""How much a busy machine slows the main job: a 4-probe `harness run --target local`, idle and busy, as a ratio.

    .venv/bin/python benchmarks/busy_machine.py [--probes 4] [--per-core 3] [--n-threads N]

It times `harness run --suite builtin-en --target local --sample 4` twice in fresh run folders (no response
cache): first as the machine is, then while three pure-Python busy loops per usable core run (started and
stopped here, each bounded in time). It prints each run's seconds per probe, its slowest probe against the
target's timeout, the thread choice llama.cpp made (manifest.json, "model.threads") and the load seen before
each run, then the busy/idle ratio. A fair share of the CPU predicts about (busy loops + 1) / cores times
slower, 3.5x for 6 loops on 2 cores; issue 26 measured 14.6x with llama.cpp's threads fixed at 2 and 5.7x
with one thread. `--n-threads N` fixes the target's n_threads (the old behaviour: N = the cores).

On a shared machine "idle" is not idle: the load printed beside each figure says what the run competed with.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HARNESS = str(Path(sys.executable).with_name("harness"))
SPIN = "import time, sys\nend = time.monotonic() + float(sys.argv[1])\nwhile time.monotonic() < end:\n    pass\n"


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def run_queue() -> int:
    """Runnable tasks now, besides the reader (/proc/loadavg's 4th field)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            return int(fh.read().split()[3].split("/")[0]) - 1
    except (OSError, ValueError, IndexError):
        return -1


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f} (1 min), {five:.1f} (5 min), {run_queue()} runnable now"


def timed_run(label: str, workdir: Path, probes: int, seed: int) -> dict:
    """One fresh `harness run` of `probes` probes: seconds per probe, the slowest reply against the timeout."""
    env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(workdir / "transcripts"),
           "HARNESS_CACHE_DIR": str(workdir / "cache"), "XDG_CONFIG_HOME": str(workdir / "config")}
    run_id = f"busy-bench-{label}-{time.time_ns()}"
    cmd = [HARNESS, "run", "--suite", "builtin-en", "--target", "local", "--sample", str(probes), "--seed", str(seed),
           "--run-id", run_id, "--no-cache", "--no-report", "--no-progress"]
    before = load_line()
    started = time.perf_counter()
    proc = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{label} run failed (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    run_dir = workdir / "transcripts" / run_id
    replies = [json.loads(line)["reply"] for line in (run_dir / "transcript.jsonl").read_text("utf-8").splitlines()]
    manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
    latencies = [r["latency_s"] for r in replies]
    # The engine's asking time over the probes asked (the summary's "s per probe"): a reply's own latency_s
    # also counts the wait for the model's lock, so latencies overlap and their mean overstates the pace.
    counts = manifest["sessions"][-1]["counts"]
    return {"label": label, "load": before, "wall_s": wall, "per_probe_s": counts["elapsed_s"] / counts["asked"],
            "slowest_s": max(latencies), "errors": sum(r["status"] != "ok" for r in replies),
            "threads": (manifest.get("model") or {}).get("threads", "?"),
            "timeout_s": (manifest.get("engine") or {}).get("timeout_s")}


def report(r: dict) -> None:
    print(f"{r['label']:>5}: {r['per_probe_s']:6.2f} s per probe, slowest {r['slowest_s']:6.1f} s of the "
          f"{r['timeout_s']:g} s timeout, {r['errors']} errors, {r['wall_s']:.1f} s in all "
          f"(start-up and model load included); {r['threads']}; before the run: {r['load']}")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4)
    parser.add_argument("--per-core", type=int, default=3, help="busy loops per usable core (default 3)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--n-threads", type=int, default=None, help="fix the local target's n_threads")
    parser.add_argument("--max-busy-s", type=float, default=900,
                        help="the busy loops end by themselves after this (seconds)")
    args = parser.parse_args(argv)
    cores = usable_cores()
    with tempfile.TemporaryDirectory(prefix="busy-bench-") as tmp:
        workdir = Path(tmp)
        if args.n_threads:
            (workdir / "targets.toml").write_text(f"[targets.local]\nn_threads = {args.n_threads}\n", encoding="utf-8")
        print(f"{cores} usable core(s); local target n_threads: {args.n_threads or 'auto'}; {args.probes} probes")
        idle = timed_run("idle", workdir, args.probes, args.seed)
        report(idle)
        spinners = [subprocess.Popen([sys.executable, "-c", SPIN, str(args.max_busy_s)])
                    for _ in range(args.per_core * cores)]
        try:
            time.sleep(3)  # let the scheduler spread them
            busy = timed_run("busy", workdir, args.probes, args.seed)
        finally:
            for p in spinners:
                p.kill()
            for p in spinners:
                p.wait()
        report(busy)
    ratio = busy["per_probe_s"] / idle["per_probe_s"]
    fair = (len(spinners) + 1) / cores
    print(f"ratio busy/idle: {ratio:.1f}x with {len(spinners)} busy loops on {cores} core(s) "
          f"(a fair CPU share predicts about {fair:.1f}x); slowest busy probe at "
          f"{busy['slowest_s'] / busy['timeout_s']:.0%} of the timeout")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
