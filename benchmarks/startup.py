"""Start-up of the `harness` command, cold and warm: wall and CPU seconds of each command, in its own process.

    .venv/bin/python benchmarks/startup.py [--repeat 3] [--data DIR]

Cold: a fresh cache directory (HARNESS_CACHE_DIR and XDG_CACHE_HOME in a new temporary folder, nothing built
yet); warm: the same command again with that folder. Commands: `harness --version`, `harness suites`,
`harness run --dry-run -s builtin-en -t local`, and a whole `harness run` of a 1-probe sample (asked, scored,
reported) against an OpenAI-compatible server on 127.0.0.1 that answers at once. Without --data the data
directory is empty (a fresh install: the paper-scale suites say "needs data"); with --data DIR (or
$HARNESS_DATA_DIR) `harness suites` is measured again with the data sets there, whose counting it includes.
CPU is the child's user + system time (resource.getrusage), which a busy machine inflates far less than
wall; the load average is printed beside them. The target (issue 38): under 1 s wall, cold, on a quiet machine.

Then the peers-style run (benchmarks/peers.py's server answering after 100 ms, `harness run -s builtin-en
--sample 4000 --seed 1 -t bench --concurrency 64 --no-cache`, a fresh cache and transcripts folder each time):
when the server saw its first request after the process started (the start-up: imports, the plan, the suite's
4,000 probes fingerprinted, the run folder opened), and when the process exited, with its CPU seconds
(--first-request-only skips the table above; --peers-runs N tries, medians).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HARNESS = [sys.executable, "-m", "harness"]


class _Chat(BaseHTTPRequestHandler):
    """An OpenAI-compatible chat server that answers every request at once with the same short reply."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "created": 0,
                           "choices": [{"index": 0, "finish_reason": "stop",
                                        "message": {"role": "assistant", "content": "No, that is not true."}}],
                           "usage": {"prompt_tokens": 10, "completion_tokens": 6, "total_tokens": 16}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def _timed(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of one command in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        print(f"  ! {' '.join(argv[2:])} exited {done.returncode}: {done.stderr.strip()[-300:]}", file=sys.stderr)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.returncode


def _measure(name: str, args: list[str], env: dict[str, str], work: Path, repeat: int) -> None:
    """Cold then warm, `repeat` times each (a new cache folder per cold try); medians printed."""
    cold, warm = [], []
    for i in range(repeat):
        cache = work / f"cache-{name.split()[0]}-{i}"
        run_env = {**env, "HARNESS_CACHE_DIR": str(cache), "XDG_CACHE_HOME": str(cache / "xdg"),
                   "HARNESS_TRANSCRIPTS_DIR": str(work / f"runs-{i}-{len(cold)}")}
        cold.append(_timed(HARNESS + args, run_env, work))
        run_env["HARNESS_TRANSCRIPTS_DIR"] += "-warm"
        warm.append(_timed(HARNESS + args, run_env, work))
    row = [name]
    for tries in (cold, warm):
        row += [f"{statistics.median(t[0] for t in tries):6.2f}", f"{statistics.median(t[1] for t in tries):6.2f}"]
    print(f"{row[0]:<44} {row[1]:>8} {row[2]:>8} {row[3]:>8} {row[4]:>8}", flush=True)


def _first_request(env: dict[str, str], runs: int) -> None:
    """The peers-style run's start-up: seconds from the process's start to the first request the server saw,
    and to the process's exit, with its CPU seconds; medians of `runs` cold tries."""
    import peers  # benchmarks/peers.py: the counting server and its `bench` target

    started = peers.start_bench_server(0.1, 16, "harness-startup-peers-")
    if started is None:
        return
    server, counter, _port, work = started
    firsts, exits, cpus = [], [], []
    try:
        for i in range(runs):
            run_env = {**peers._fresh_env(work, i), **{k: env[k] for k in ("HARNESS_DATA_DIR", "COLUMNS")}}
            cmd = [str(peers.HARNESS), "run", "--suite", "builtin-en", "--sample", "4000", "--seed", "1", "--target",
                   "bench", "--concurrency", "64", "--no-progress", "--no-cache"]
            before, usage = counter.value, resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.Popen(cmd, cwd=work, env=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            first = None
            while proc.poll() is None:
                if first is None and counter.value > before:
                    first = time.perf_counter() - start
                time.sleep(0.002)
            exits.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append((after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime))
            firsts.append(first if first is not None else float("nan"))
            if proc.returncode not in (0, 1):
                print(f"  ! the peers-style run exited {proc.returncode}", file=sys.stderr)
    finally:
        server.terminate()
    print(f"{'peers-style run (4,000 probes, c=64, 100 ms)':<44} {'first request':>14} {'exit':>8} {'CPU s':>8}")
    print(f"{'  median of ' + str(runs) + ' cold runs':<44} {statistics.median(firsts):14.2f} "
          f"{statistics.median(exits):8.2f} {statistics.median(cpus):8.2f}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="tries of each command, cold and warm (medians)")
    parser.add_argument("--data", default=os.environ.get("HARNESS_DATA_DIR"),
                        help="a data directory with the data sets, for `harness suites` with data")
    parser.add_argument("--peers-runs", type=int, default=3, help="tries of the peers-style run (0: skip it)")
    parser.add_argument("--first-request-only", action="store_true", help="only the peers-style run's start-up")
    opts = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory(prefix="harness-startup-") as tmp:
        work = Path(tmp)
        (work / "no-data").mkdir()
        (work / "targets.toml").write_text(f'[targets.bench]\nadapter = "openai"\nmodel = "m"\n'
                                           f'base_url = "http://127.0.0.1:{server.server_port}/v1"\n', "utf-8")
        env = {k: v for k, v in os.environ.items() if k not in ("HARNESS_DATA_DIR", "PYTHONPATH")}
        env |= {"HARNESS_DATA_DIR": str(work / "no-data"), "OPENAI_API_KEY": "sk-bench-not-a-key", "COLUMNS": "160"}
        load = " / ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"harness start-up, medians of {opts.repeat}; load average {load}; {os.cpu_count()} CPUs")
        if opts.peers_runs:
            _first_request(env, opts.peers_runs)
        if opts.first_request_only:
            server.shutdown()
            return
        print(f"{'command':<44} {'cold s':>8} {'cold CPU':>8} {'warm s':>8} {'warm CPU':>8}")
        _measure("harness --version", ["--version"], env, work, opts.repeat)
        _measure("harness suites (no data sets)", ["suites"], env, work, opts.repeat)
        dry = ["run", "--dry-run", "-s", "builtin-en", "-t", "local"]
        _measure("harness run --dry-run -s builtin-en -t local", dry, env, work, opts.repeat)
        _measure("harness run -s builtin-en --sample 1 (server)", ["run", "-s", "builtin-en", "-t", "bench",
                                                                  "--sample", "1"], env, work, opts.repeat)
        if opts.data and Path(opts.data).is_dir():
            _measure("harness suites (with the data sets)", ["suites"], {**env, "HARNESS_DATA_DIR": opts.data}, work,
                     opts.repeat)
        print(f"load average after: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}")
    server.shutdown()


if __name__ == "__main__":
    main()
