"""The whole job after asking: what scoring, the report and its figures cost, beside the whole `harness run`.

One OpenAI-compatible server in its own process (benchmarks/peers.py's counting server: benchmarks/
run_throughput.py's raw asyncio HTTP/1.1 server) answers every chat completion after `--latency` seconds;
`harness run --suite builtin-en --sample N` asks it at `--concurrency` from a cold start (fresh transcripts and
cache directories), as benchmarks/peers.py does. Printed, medians of `--rounds`:

  whole        `harness run` (ask, score, report): wall, CPU s per 1,000 replies (user + system of the process
               and its children, from wait4), peak RSS, the requests the server saw (must be N);
  no warm-up   `harness run` with HARNESS_WARMUP=0 (harness.cli.warmup off: scoring pays its imports and
               declarations after the last reply) and with HARNESS_WARMUP=imports (no reading ahead: the rules
               read every reply after the last), interleaved with the default (imports, declarations and the
               rules' read-ahead worker process); for each harness run, its slices (start-up to the asking
               session's start, the asking session, from its end to report.html's write, from that to the
               process's exit; the session's times from manifest.json) and what the warm-up logged;
  no-report    `harness run --no-report`: the same, asking only;
  phases       in a fresh process over the last whole run's folder, each phase's wall and CPU s
               (time.process_time) and the process's peak RSS after it: importing the scoring and report
               modules, score_run (read the transcript, the oracle, every family), and write_report split
               into its parts (the markup figures, the PNGs of families without them, verdicts.csv,
               metrics.json, report.html, the terminal summary); with --plots, also the PNGs `harness report
               --plots` draws.

The load average is printed with the figures (the machine is shared; CPU seconds move less than walls).

Usage: .venv/bin/python benchmarks/whole_job.py [--probes 4000] [--concurrency 64] [--latency 0.1] [--rounds 3]
       [--phases-only RUN_DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # noqa: E402 - the counting server and the measured subprocess live there

HARNESS = Path(sys.executable).with_name("harness")
NO_WARMUP = "harness run, HARNESS_WARMUP=0"
IMPORTS_ONLY = "harness run, HARNESS_WARMUP=imports"
WARMED = ("harness run", NO_WARMUP, IMPORTS_ONLY)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phases(run_dir: Path) -> list[dict[str, Any]]:
    """Score and report `run_dir` in this process, timing each phase (wall, CPU, peak RSS after it)."""
    out: list[dict[str, Any]] = []

    def timed(name: str, fn: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        value = fn()
        out.append({"phase": name, "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu,
                    "rss_mb": _rss_mb()})
        return value

    def imports() -> Any:
        from harness.report import reporting
        from harness.score import scoring
        return reporting, scoring

    reporting, scoring = timed("import scoring + report", imports)
    result = timed("score_run", lambda: scoring.score_run(run_dir))
    from rich.console import Console

    figures = timed("figures (markup)", lambda: reporting.markup_figures(result))
    plots = timed("figures (PNG, families without markup)",
                  lambda: reporting.write_plots(result, run_dir / reporting.PLOTS_DIR, every=False))
    timed("verdicts.csv", lambda: reporting.write_verdicts_csv(result, run_dir / reporting.VERDICTS_FILE))
    timed("metrics.json", lambda: reporting.write_metrics_json(result, run_dir / reporting.METRICS_FILE))
    html = timed("report.html", lambda: reporting.render_html(result, plots, figures))
    (run_dir / reporting.REPORT_FILE).write_text(html, encoding="utf-8")
    with open(os.devnull, "w", encoding="utf-8") as sink:
        timed("terminal summary", lambda: reporting.print_summary(result, Console(file=sink, width=120)))
    out.append({"phase": "replies scored", "n": len(result.frame)})
    return out


def _slices(run_dir: Path, started: float, ended: float) -> dict[str, float]:
    """The whole `harness run`'s wall cut at the asking session's start and end (manifest.json), report.html's
    write, and the process's exit: start-up, asking, after the last reply, exit."""
    import datetime

    session = json.loads((run_dir / "manifest.json").read_text("utf-8"))["sessions"][-1]
    ask_start, ask_end = (datetime.datetime.fromisoformat(session[k]).timestamp() for k in ("started_at", "ended_at"))
    report = (run_dir / "report.html").stat().st_mtime
    return {"start-up": ask_start - started, "asking": ask_end - ask_start, "after the last reply": report - ask_end,
            "report to exit": ended - report}


def _warm_up_line(log: Path, run_dir: Path) -> tuple[str, float]:
    """What harness.cli.warmup logged (HARNESS_WARMUP_LOG): its thread's CPU s, its wall, how long before the
    asking session's end it was done (negative: scoring waited for it), and the verdicts read ahead and taken."""
    import datetime

    if not log.exists():
        return "no log", float("nan")
    lines = [json.loads(line) for line in log.read_text("utf-8").splitlines()]
    log.unlink()
    got = next((line for line in lines if "started" in line), None)
    read = next((line for line in lines if "taken" in line), {"read_ahead": 0, "taken": 0})
    session = json.loads((run_dir / "manifest.json").read_text("utf-8"))["sessions"][-1]
    ended = datetime.datetime.fromisoformat(session["ended_at"]).timestamp()
    warm = "no warm-up; " if got is None else (
        f"warm-up {got['thread_cpu_s']:.2f} CPU s over {got['ended'] - got['started']:.2f} s, done "
        f"{ended - got['ended']:.2f} s before the asking ended ({'+'.join(got['done']) or 'failed'}); ")
    after_cpu = float(read.get("after_cpu_s", float("nan")))
    return (warm + f"{read['read_ahead']:,} replies read ahead, {read['taken']:,} taken by score_run; "
            f"{after_cpu:.2f} CPU s from the last reply to the report"), after_cpu


def _phases_in_child(run_dir: Path, env: dict[str, str]) -> list[dict[str, Any]]:
    cmd = [sys.executable, __file__, "--phases-only", str(run_dir)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"the phase run failed: {done.stderr.strip().splitlines()[-1:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _print_slices(slices: dict[str, list[dict[str, float]]]) -> None:
    """The whole run's slices per variant, medians with every round in brackets."""
    if not slices:
        return
    names = list(next(iter(slices.values()))[0])
    print("\nslices of the whole `harness run` (medians; the rounds in brackets):")
    print("| run | " + " | ".join(names) + " |\n|---|" + "---|" * len(names))
    for tool, rounds in slices.items():
        cells = [f"{statistics.median(r[n] for r in rounds):.2f} s ({', '.join(f'{r[n]:.2f}' for r in rounds)})"
                 for n in names]
        print(f"| {tool} | " + " | ".join(cells) + " |")


def _print_phases(rounds: list[list[dict[str, Any]]]) -> None:
    n = next((p["n"] for p in rounds[0] if p["phase"] == "replies scored"), 0)
    print(f"\nphases (fresh process over the run folder, {n:,} replies scored; medians of {len(rounds)}):")
    print("| phase | wall | CPU s | CPU s per 1,000 replies | peak RSS after |\n|---|---|---|---|---|")
    names = [p["phase"] for p in rounds[0] if "wall_s" in p]
    total_wall = total_cpu = 0.0
    for name in names:
        rows = [next(p for p in r if p["phase"] == name) for r in rounds]
        wall = statistics.median(p["wall_s"] for p in rows)
        cpu = statistics.median(p["cpu_s"] for p in rows)
        total_wall, total_cpu = total_wall + wall, total_cpu + cpu
        rss = statistics.median(p["rss_mb"] for p in rows)
        print(f"| {name} | {wall:.3f} s | {cpu:.3f} | {cpu / max(n, 1) * 1000:.3f} | {rss:.0f} MB |")
    print(f"| all | {total_wall:.3f} s | {total_cpu:.3f} | {total_cpu / max(n, 1) * 1000:.3f} | |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each measure; the tables show medians")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--phases-only", default="", help="time the phases over this run folder and print JSON")
    parser.add_argument("--keep", default="", help="copy the last whole run's folder here")
    parser.add_argument("--no-whole", action="store_true", help="skip the whole-process runs (phases only)")
    args = parser.parse_args(argv)
    if args.phases_only:
        print(json.dumps(phases(Path(args.phases_only))))
        return 0

    started = peers.start_bench_server(args.latency, args.max_tokens, "harness-whole-job-")
    if started is None:
        return 3
    server, counter, port, work = started
    try:
        cmds = peers._commands(argparse.Namespace(**vars(args), lmeval="/nonexistent"), port, work, [])
        cmds = {"harness run": cmds["harness run"], NO_WARMUP: cmds["harness run"],
                IMPORTS_ONLY: cmds["harness run"], **cmds}  # interleaved
        slices: dict[str, list[dict[str, float]]] = {}
        results: dict[str, list[peers.Measure]] = {tool: [] for tool in cmds}
        loads, phase_rounds, env = [], [], {}
        for run in range(args.rounds):
            for tool, cmd in cmds.items():
                if args.no_whole and tool == "harness run --no-report":
                    continue
                env = peers._fresh_env(work, run)
                if tool in (NO_WARMUP, IMPORTS_ONLY):  # off: scoring pays its fixed costs itself; imports: the
                    env["HARNESS_WARMUP"] = "0" if tool == NO_WARMUP else "imports"  # rules read after asking
                warm_log = work / f"warmup-{run}.jsonl"
                env["HARNESS_WARMUP_LOG"] = str(warm_log)
                loads.append(os.getloadavg()[0])
                started = time.time()
                m = peers._measured(tool, cmd, env, work, counter)
                results[tool].append(m)
                print(f"round {run + 1}: {tool:26s} {m.wall_s:6.2f} s, {m.cpu_s:6.2f} CPU s, {m.rss_mb:5.0f} MB, "
                      f"{m.requests:,} requests, exit {m.code}", flush=True)
                if tool in WARMED:
                    run_dir = next(Path(env["HARNESS_TRANSCRIPTS_DIR"]).iterdir())
                    cut = _slices(run_dir, started, started + m.wall_s)
                    line, cut["CPU s after the last reply"] = _warm_up_line(warm_log, run_dir)
                    slices.setdefault(tool, []).append(cut)
                    print("         " + ", ".join(f"{k} {v:.2f} s" for k, v in cut.items()) + f"; {line}", flush=True)
                if tool == "harness run":
                    loads.append(os.getloadavg()[0])
                    try:
                        phase_rounds.append(_phases_in_child(run_dir, env))
                    except SystemExit as exc:  # a phase's failure costs its table, not the whole-run figures
                        print(exc, flush=True)
                    if args.keep:
                        shutil.rmtree(args.keep, ignore_errors=True)
                        shutil.copytree(run_dir, args.keep)
        limit_s = args.probes / args.concurrency * args.latency
        print(f"\n{args.probes:,} builtin-en replies, concurrency {args.concurrency}, server answers after "
              f"{args.latency * 1000:g} ms: physical limit {limit_s:.2f} s; medians of {args.rounds} rounds; "
              f"load average {min(loads):.2f}-{max(loads):.2f} on {os.cpu_count()} CPUs\n")
        print(peers._table({k: v for k, v in results.items() if v}, limit_s, args.probes))
        _print_slices(slices)
        if phase_rounds:
            _print_phases(phase_rounds)
    finally:
        server.terminate()
        server.join(5)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
