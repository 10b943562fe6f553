"""The whole job side by side: the same prompts asked, scored and reported by the harness and by its peers.

One OpenAI-compatible server in its own process (benchmarks/run_throughput.py's raw asyncio HTTP/1.1 server)
answers every chat completion after `--latency` seconds (100 ms) and counts the requests; every tool sends the
same `--probes` builtin-en prompts (4,000) at concurrency `--concurrency` (64), so the physical limit is
probes / concurrency x latency (6.25 s). Each tool runs as its own process, from a cold start:

  harness run              `harness run --suite builtin-en --sample N` (ask, score, report.html), a fresh
                           cache directory, so nothing is reused from an earlier run;
  harness run --no-report  the same, asking only;
  lm-eval                  lm-evaluation-harness's `local-chat-completions` model on a task of the same
                           prompts (generate_until, 16 tokens), when installed in its own venv (--lmeval);
  promptfoo, inspect_ai    when their executables are given (--promptfoo, --inspect); skipped otherwise.

Peers are benchmark-only tools in their own virtual environments, never dependencies of the package or CI.
Per tool: whole-process wall, its share of the limit, CPU seconds per 1,000 requests (user + system of the
process and its children, from wait4), peak RSS, and the requests the server saw (each must be N). Rounds are
interleaved (tool A, B, C, then again), and the table shows medians. The load average is printed with it.

Usage: .venv/bin/python benchmarks/peers.py [--probes 4000] [--concurrency 64] [--latency 0.1] [--rounds 2]
       [--lmeval /work/peers/lmeval/bin/lm_eval] [--only harness,harness-no-report,lm-eval]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_throughput  # noqa: E402 - the benchmark server lives there

ROOT = Path(__file__).resolve().parents[1]
HARNESS = Path(sys.executable).with_name("harness")
DEFAULT_LMEVAL = Path("/work/peers/lmeval/bin/lm_eval")


class _CountingChat(run_throughput._SlowChat):
    """The benchmark server, counting chat completions in a shared counter (GET /models is not counted)."""

    counter: object = None

    def data_received(self, data: bytes) -> None:
        self.__class__.counter.value += data.count(b"POST ")  # type: ignore[attr-defined]
        super().data_received(data)


def _serve(port: int, latency: float, ready: object, counter: object) -> None:
    _CountingChat.counter = counter
    run_throughput._SlowChat = _CountingChat  # the server factory below builds this protocol
    run_throughput._serve(port, latency, ready)


@dataclass
class Measure:
    tool: str
    wall_s: float
    cpu_s: float
    rss_mb: float
    requests: int
    code: int


def _measured(tool: str, cmd: list[str], env: dict[str, str], cwd: Path, counter: object) -> Measure:
    """Run `cmd` to its end; its wall time, CPU (itself and its children) and peak RSS from wait4."""
    before = counter.value  # type: ignore[attr-defined]
    started = time.monotonic()
    proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
    if proc.returncode:
        print(f"  {tool} exited {proc.returncode}: {err.strip().splitlines()[-1:] or ''}", file=sys.stderr)
    return Measure(tool, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                   counter.value - before, proc.returncode)  # type: ignore[attr-defined]


def _prompts(n: int, seed: int) -> list[str]:
    """The builtin-en prompts `harness run --sample n --seed seed` asks, for the peers to ask too."""
    from harness.run.plan import select_any

    return [p.text for p in select_any("builtin-en", sample=n, seed=seed, limit=None, overrides={})]


def _lmeval_task(work: Path, prompts: list[str], max_tokens: int) -> Path:
    """A task folder for lm-eval: the prompts as a local JSON-lines data set, generate_until, no metric."""
    folder = work / "lmeval_task"
    folder.mkdir(exist_ok=True)
    data = folder / "prompts.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in prompts), encoding="utf-8")
    (folder / "peer_prompts.yaml").write_text(
        "task: harness_peer_prompts\ndataset_path: json\n"
        f"dataset_kwargs:\n  data_files:\n    test: {data}\n"
        "test_split: test\noutput_type: generate_until\ndoc_to_text: \"{{text}}\"\ndoc_to_target: \"\"\n"
        f"generation_kwargs:\n  until: []\n  max_gen_toks: {max_tokens}\n  do_sample: false\n"
        "metric_list:\n  - metric: bypass\n", encoding="utf-8")
    return folder


def _commands(args: argparse.Namespace, port: int, work: Path, prompts: list[str]) -> dict[str, list[str]]:
    base = ["--suite", "builtin-en", "--sample", str(args.probes), "--seed", str(args.seed), "--target", "bench",
            "--concurrency", str(args.concurrency), "--no-progress", "--no-cache"]
    cmds = {"harness run": [str(HARNESS), "run", *base],
            "harness run --no-report": [str(HARNESS), "run", *base, "--no-report"]}
    lmeval = Path(args.lmeval)
    if lmeval.exists():
        task = _lmeval_task(work, prompts, args.max_tokens)
        cmds["lm-eval"] = [str(lmeval), "run", "--model", "local-chat-completions", "--model_args",
                           f"model=bench,base_url=http://127.0.0.1:{port}/v1/chat/completions,"
                           f"num_concurrent={args.concurrency},max_retries=1,tokenized_requests=False",
                           "--tasks", "harness_peer_prompts", "--include_path", str(task), "--apply_chat_template",
                           "--output_path", str(work / "lmeval_out"), "--log_samples"]
    return cmds


def _fresh_env(work: Path, run: int) -> dict[str, str]:
    """A cold start for every run: its own transcripts and cache directories, nothing reused."""
    env = dict(os.environ)
    for name in ("HARNESS_TRANSCRIPTS_DIR", "HARNESS_CACHE_DIR"):
        path = work / f"{name.lower()}_{run}"
        shutil.rmtree(path, ignore_errors=True)
        env[name] = str(path)
    env.update(BENCH_API_KEY="bench-key-not-secret", OPENAI_API_KEY="bench-key-not-secret",
               HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def _table(results: dict[str, list[Measure]], limit_s: float, probes: int) -> str:
    lines = ["| tool | whole process | of the limit | CPU s per 1,000 requests | peak RSS | requests |",
             "|---|---|---|---|---|---|"]
    for tool, runs in results.items():
        ok = [m for m in runs if m.code == 0] or runs
        wall = statistics.median(m.wall_s for m in ok)
        cpu = statistics.median(m.cpu_s for m in ok) / max(probes, 1) * 1000
        rss = statistics.median(m.rss_mb for m in ok)
        reqs = sorted({m.requests for m in ok})
        lines.append(f"| {tool} | {wall:.2f} s | {limit_s / wall:.2f} | {cpu:.2f} | {rss:.0f} MB | "
                     f"{'/'.join(f'{r:,}' for r in reqs)}{'' if ok[0].code == 0 else ' (failed)'} |")
    return "\n".join(lines)


def start_bench_server(latency: float, max_tokens: int, prefix: str
                       ) -> tuple[multiprocessing.Process, Any, int, Path] | None:
    """The benchmark server in its own process and a work folder whose targets.toml names it as `bench`
    (shared by this script and whole_job.py); None, said on stderr, when the server did not start."""
    port = run_throughput._free_port()
    ready, counter = multiprocessing.Event(), multiprocessing.Value("q", 0)
    server = multiprocessing.Process(target=_serve, args=(port, latency, ready, counter), daemon=True)
    server.start()
    if not ready.wait(10):
        print("benchmark server did not start", file=sys.stderr)
        return None
    work = Path(tempfile.mkdtemp(prefix=prefix))
    (work / "targets.toml").write_text(
        f'[targets.bench]\nadapter = "openai"\nmodel = "bench"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        f'api_key_env = "BENCH_API_KEY"\nmax_tokens = {max_tokens}\n', encoding="utf-8")
    return server, counter, port, work


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=2, help="interleaved rounds; the table shows medians")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--lmeval", default=str(DEFAULT_LMEVAL), help="lm_eval executable in its own venv")
    parser.add_argument("--only", default="", help="comma-separated tool names to run (default: all found)")
    parser.add_argument("--profile", default="", help="run `harness run` once under cProfile, writing this file")
    args = parser.parse_args(argv)

    started = start_bench_server(args.latency, args.max_tokens, "harness-peers-")
    if started is None:
        return 3
    server, counter, port, work = started
    try:
        cmds = _commands(args, port, work, _prompts(args.probes, args.seed))
        if args.profile:  # where the harness's whole job spends its time (python -m pstats FILE)
            cmd = [sys.executable, "-m", "cProfile", "-o", str(Path(args.profile).resolve()), *cmds["harness run"]]
            print(_measured("harness run (profiled)", cmd, _fresh_env(work, 0), work, counter))
            return 0
        if args.only:
            wanted = set(args.only.split(","))  # a tool's name or its slug: harness, harness-no-report, lm-eval
            cmds = {k: v for k, v in cmds.items()
                    if k in wanted or k.replace(" run --no-report", "-no-report").replace(" run", "") in wanted}
            if not cmds:
                print(f"--only {args.only}: no such tool (harness, harness-no-report, lm-eval, ...)", file=sys.stderr)
                return 2
        results: dict[str, list[Measure]] = {tool: [] for tool in cmds}
        loads = []
        for run in range(args.rounds):
            for tool, cmd in cmds.items():
                loads.append(os.getloadavg()[0])
                m = _measured(tool, cmd, _fresh_env(work, run), work, counter)
                results[tool].append(m)
                print(f"round {run + 1}: {tool:26s} {m.wall_s:6.2f} s, {m.cpu_s:6.2f} CPU s, {m.rss_mb:5.0f} MB, "
                      f"{m.requests:,} requests, exit {m.code}", flush=True)
        limit_s = args.probes / args.concurrency * args.latency
        print(f"\n{args.probes:,} builtin-en prompts, concurrency {args.concurrency}, server answers after "
              f"{args.latency * 1000:g} ms: physical limit {limit_s:.2f} s; medians of {args.rounds} interleaved "
              f"rounds; load average {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} CPUs\n")
        print(_table(results, limit_s, args.probes))
    finally:
        server.terminate()
        server.join(5)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
