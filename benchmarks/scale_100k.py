"""A 100,000-probe run: does memory stay flat while asking, and does scoring stay linear in the probes?

One OpenAI-compatible server in its own process (benchmarks/run_throughput.py's raw asyncio server, answering
at once: `--latency 0`) answers every chat completion. For each size (10,000 / 30,000 / 100,000 by default) the
script runs, each as its own process from a cold start:

  ask     `harness run --suite biasasker-en-full --sample N --no-report` at `--concurrency` (256); while it asks,
          the process's resident memory (VmRSS from /proc) is sampled every 0.1 s next to the transcript's line
          count, so the RSS at 10%, 50% and 100% of the probes is read off the same clock; peak RSS from wait4;
  score   `harness report RUN -q` (oracle, every family, verdicts.csv, metrics.json, plots, report.html):
          wall, CPU seconds (the process and its children) and peak RSS, and per 1,000 probes.

Flat memory: the RSS at 100% of the asking is close to the RSS at 10% (nothing kept per probe beyond the
in-flight window; the set of settled probe ids, tens of bytes each, is all that grows). Linear scoring: CPU
per 1,000 probes is about the same at every size. biasasker-en-full (187,208 probes) needs its data set:
HARNESS_DATA_DIR must hold biasasker (see `harness data pull biasasker`). Printed with the load average,
because on a shared machine wall times move with it; the CPU seconds are the figures to compare.

Usage: HARNESS_DATA_DIR=/work/shared/data .venv/bin/python benchmarks/scale_100k.py
       [--sizes 10000,30000,100000] [--concurrency 256] [--suite biasasker-en-full] [--keep DIR [--reuse]]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 - the benchmark server lives there

HARNESS = Path(sys.executable).with_name("harness")


@dataclass
class Measured:
    """One process run to its end: wall and CPU seconds, peak RSS, exit code, RSS samples while it ran."""

    wall_s: float
    cpu_s: float
    peak_mb: float
    code: int
    samples: list[tuple[int, float]] = field(default_factory=list)  # (transcript lines, RSS MB)
    err: str = ""


def _rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class _LineCounter:
    """Counts the lines of a growing file, reading only what was appended since the last call."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        try:
            with self.path.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return self.lines
        self.offset += len(chunk)
        self.lines += chunk.count(b"\n")
        return self.lines


def _measured(cmd: list[str], env: dict[str, str], transcript: Path | None = None) -> Measured:
    """Run `cmd`; sample its RSS (and the transcript's lines) every 0.1 s; wall, CPU and peak from wait4."""
    started = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    counter = _LineCounter(transcript) if transcript else None
    samples: list[tuple[int, float]] = []
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        rss = _rss_mb(proc.pid)
        if rss is not None:
            samples.append((counter.count() if counter else 0, rss))
        time.sleep(0.1)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace").strip() if proc.stderr else ""
    if counter:
        samples.append((counter.count(), samples[-1][1] if samples else 0.0))
    return Measured(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode, samples,
                    err.splitlines()[-1] if err else "")


def _rss_at(samples: list[tuple[int, float]], share: float, total: int) -> float:
    """The last RSS sampled before the transcript held `share` of the probes (the highest one for 100%)."""
    wanted = share * total
    before = [rss for lines, rss in samples if lines <= wanted and lines > 0] or [rss for _l, rss in samples]
    return max(before) if share >= 1 else before[-1]


def _lines(path: Path) -> int:
    try:
        with path.open("rb") as fh:
            return sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    except OSError:
        return 0


def _env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(HARNESS_TRANSCRIPTS_DIR=str(work / "transcripts"), HARNESS_CACHE_DIR=str(work / "cache"),
               BENCH_API_KEY="bench-key-not-secret", TOKENIZERS_PARALLELISM="false")
    return env


def _one_size(n: int, args: argparse.Namespace, work: Path, env: dict[str, str]) -> tuple[Measured, Measured]:
    run_id = f"scale-{n}"
    run_dir = work / "transcripts" / run_id
    if args.reuse and _lines(run_dir / "transcript.jsonl") == n:
        ask = Measured(0.0, 0.0, 0.0, 0, [(n, 0.0)])  # asked by an earlier --keep run: only scored again
    else:
        ask = _measured([str(HARNESS), "run", "--suite", args.suite, "--sample", str(n), "--seed", "0",
                         "--target", "bench", "--concurrency", str(args.concurrency), "--no-progress", "--no-cache",
                         "--no-report", "--run-id", run_id], env, run_dir / "transcript.jsonl")
    if ask.code:
        print(f"  ask of {n:,} exited {ask.code}: {ask.err}", file=sys.stderr)
    score = _measured([str(HARNESS), "report", str(run_dir), "-q"], env)
    if score.code not in (0, 1):  # 1: a gate failed, the report is still written
        print(f"  report of {n:,} exited {score.code}: {score.err}", file=sys.stderr)
    return ask, score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,30000,100000")
    parser.add_argument("--concurrency", type=int, default=256)
    parser.add_argument("--suite", default="biasasker-en-full")
    parser.add_argument("--keep", default="", help="keep the run folders in this directory (default: removed)")
    parser.add_argument("--reuse", action="store_true",
                        help="with --keep: a size whose run folder there is complete is only scored again")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]

    port = run_throughput._free_port()
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=run_throughput._serve, args=(port, 0.0, ready), daemon=True)
    server.start()
    if not ready.wait(10):
        print("benchmark server did not start", file=sys.stderr)
        return 3
    work = Path(args.keep or tempfile.mkdtemp(prefix="harness-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    (work / "targets.toml").write_text(
        f'[targets.bench]\nadapter = "openai"\nmodel = "bench"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key_env = "BENCH_API_KEY"\nmax_tokens = 16\n', encoding="utf-8")
    env = _env(work)
    os.chdir(work)
    rows, loads = [], []
    try:
        # warm-up: a cold cache directory tags the full data set's words with spaCy once (start-up's cost, about
        # 270 MB while it runs, not the run size's); a 10-probe run builds that cache, so each size is measured warm
        warm = _measured([str(HARNESS), "run", "--suite", args.suite, "--sample", "10", "--target", "bench",
                          "--no-progress", "--no-cache", "--no-report", "--run-id", "warm-up"], env)
        print(f"warm-up run of 10 probes (cold cache directory): {warm.wall_s:.1f} s, peak {warm.peak_mb:.0f} MB",
              flush=True)
        for n in sizes:
            loads.append(os.getloadavg()[0])
            ask, score = _one_size(n, args, work, env)
            rows.append((n, ask, score))
            print(f"{n:>7,} probes: ask {ask.wall_s:6.1f} s ({ask.cpu_s:6.1f} CPU s), RSS 10%/50%/100% "
                  f"{_rss_at(ask.samples, 0.1, n):.0f}/{_rss_at(ask.samples, 0.5, n):.0f}/"
                  f"{_rss_at(ask.samples, 1.0, n):.0f} MB, peak {ask.peak_mb:.0f} MB; score+report "
                  f"{score.wall_s:6.1f} s ({score.cpu_s:6.1f} CPU s, peak {score.peak_mb:.0f} MB)", flush=True)
    finally:
        server.terminate()
        server.join(5)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{args.suite}, server answering at once, concurrency {args.concurrency}; load average "
          f"{min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} CPUs\n")
    print("| probes | ask RSS at 10% / 50% / 100% | ask peak RSS | ask wall (CPU) | score+report wall (CPU) "
          "| per 1,000 probes: wall / CPU | report peak RSS |")
    print("|---|---|---|---|---|---|---|")
    for n, ask, score in rows:
        print(f"| {n:,} | {_rss_at(ask.samples, 0.1, n):.0f} / {_rss_at(ask.samples, 0.5, n):.0f} / "
              f"{_rss_at(ask.samples, 1.0, n):.0f} MB | {ask.peak_mb:.0f} MB | {ask.wall_s:.1f} s "
              f"({ask.cpu_s:.1f} s) | {score.wall_s:.1f} s ({score.cpu_s:.1f} s) | "
              f"{score.wall_s / n * 1000:.2f} s / {score.cpu_s / n * 1000:.2f} s | {score.peak_mb:.0f} MB |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
