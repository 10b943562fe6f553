"""How close does the harness's asking loop get to the physical limit, and what does one request cost it?

One command, one table (issue 38). An OpenAI-compatible server that is never the bottleneck (`--server-procs`
processes sharing one port through SO_REUSEPORT, each a raw asyncio protocol on uvloop answering from a
prebuilt response) answers every chat completion after `--latency` seconds (100 ms). For each concurrency c
(16, 64, 256) a fresh client process asks `--probes` builtin-en prompts (4,000) through the real run engine
(harness.run.execute.run_suite: the openai adapter over its default wire client, the engine, the transcript
writes, the response cache and a live progress bar drawn to /dev/null as a terminal would see it). The
physical limit is c / latency requests per second; its share is what the run reached. A last row asks
`--ceiling-probes` (20,000) at c=256 from a server that answers at once: what one client core can do.

Per row: the asking interval's wall and CPU (the engine's own clock: the probes are generated before it, so
suite generation is not in it), requests per second, the share of the limit, the client's CPU seconds per
1,000 requests (process CPU over the asking interval, every thread: aiohttp, engine, transcript, cache,
progress), the server's CPU per 1,000 requests (from /proc, its own processes, so it is never billed to the
client), the requests the server counted (each must equal the probes) and the client process's peak RSS.
On a busy machine the wall figures move with the load (printed beside them); CPU per request moves less,
and `1000 / CPU` is the rate one core to itself would reach.

Usage: .venv/bin/python benchmarks/saturation.py [--probes 4000] [--latency 0.1] [--concurrency 16,64,256]
       [--ceiling-probes 20000] [--server-procs 2] [--no-progress-bar] [--no-cache] [--warmup] [--wire-alone N]

`--wire-alone N` adds one line: N requests at c=256, 0 ms through the wire client alone (the HTTP client the
target's default picks, harness.adapters.http1 for this plain-http server, and the JSON of the body and the answer,
from plain tasks: no engine, transcript, cache or progress), so the last row splits into the HTTP client's share
and the harness's own. `--http-client aiohttp` (or httpx) measures every row over that stack instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_BODY = json.dumps({
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "bench",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "No, that is a stereotype."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18}}).encode()
_RESPONSE = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
             + str(len(_BODY)).encode() + b"\r\n\r\n" + _BODY)
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


class _Chat(asyncio.Protocol):
    """HTTP/1.1 keep-alive: every request gets the same completion after `delay` seconds; as little Python per
    request as a server can do, so the client is what is measured."""

    delay = 0.1
    counts: Any = None  # a shared array, one slot per server process
    slot = 0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport: asyncio.Transport = transport  # type: ignore[assignment]
        self.buffer = b""
        self.loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        buffer = self.buffer + data if self.buffer else data
        while (end := buffer.find(b"\r\n\r\n")) >= 0:
            head = buffer[:end].lower()
            at = head.find(b"content-length:")
            stop = head.find(b"\r\n", at) if at >= 0 else -1
            length = int(head[at + 15:stop if stop >= 0 else len(head)]) if at >= 0 else 0
            if len(buffer) < end + 4 + length:
                break
            buffer = buffer[end + 4 + length:]
            self.counts[self.slot] += 1
            if self.delay > 0:
                self.loop.call_later(self.delay, self._write)
            else:
                self.transport.write(_RESPONSE)
        self.buffer = buffer

    def _write(self) -> None:
        if not self.transport.is_closing():
            self.transport.write(_RESPONSE)


def _serve(port: int, slot: int, counts: Any, delay: Any, ready: Any) -> None:
    """One server process on the shared port (SO_REUSEPORT: the kernel spreads connections over them)."""
    import uvloop

    async def main() -> None:
        _Chat.counts, _Chat.slot = counts, slot
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(("127.0.0.1", port))
        server = await asyncio.get_running_loop().create_server(_Chat, sock=sock, backlog=2048)
        ready.release()
        while True:  # the delay of the row being measured, set by the parent between rows
            _Chat.delay = delay.value
            await asyncio.sleep(0.05)
        await server.wait_closed()

    uvloop.run(main())


def _cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process so far (/proc/PID/stat fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Row:
    concurrency: int
    latency: float
    probes: int
    answered: int
    wall_s: float
    cpu_s: float
    server_cpu_s: float
    served: int
    rss_mb: float
    load: float

    @property
    def rate(self) -> float:
        return self.answered / self.wall_s

    @property
    def limit(self) -> float | None:
        return self.concurrency / self.latency if self.latency > 0 else None


def _wire_alone(spec: dict[str, Any], prompts: list[str]) -> None:
    """The HTTP client's share alone: the same requests through the wire client (its HTTP client, the body's and
    the answer's JSON) from `concurrency` plain tasks, with no engine, transcript, cache or progress around it."""
    import asyncio

    from harness.adapters.openai_wire import WireClient

    async def ask_all() -> tuple[int, float, float]:
        client = WireClient(os.environ["BENCH_BASE_URL"], "bench-key-not-secret", 60.0,
                            use_http1=spec.get("http_client", "http1") == "http1")
        todo = iter(prompts)
        answered = 0

        async def worker() -> None:
            nonlocal answered
            for prompt in todo:
                body = {"model": "bench", "messages": [{"role": "user", "content": prompt}], "temperature": 0.0,
                        "max_tokens": 16}
                answer = await client.post_json("/chat/completions", body)
                answered += bool(answer["choices"][0]["message"]["content"])

        started, cpu = time.monotonic(), time.process_time()
        await asyncio.gather(*(worker() for _ in range(spec["concurrency"])))
        wall, used = time.monotonic() - started, time.process_time() - cpu
        await client.close()
        return answered, wall, used

    from harness.run.session import run_loop  # uvloop, as a run asks

    answered, wall, used = run_loop(ask_all())
    print(json.dumps({"answered": answered, "errors": 0, "wall_s": wall, "cpu_s": used}))


def _client(spec: dict[str, Any]) -> None:
    """The measured process: builtin-en probes, generated first, asked through the real run engine."""
    from rich.console import Console

    from harness.question_gen.suites import load_suite, select_probes
    from harness.run.engine import EngineSettings
    from harness.run.execute import run_suite

    probes = list(select_probes(load_suite("builtin-en"), sample=spec["probes"], seed=0, limit=None, overrides={}))
    if spec.get("wire_alone"):
        _wire_alone(spec, [p.text for p in probes])
        return
    console = Console(file=open(os.devnull, "w"), force_terminal=True) if spec["bar"] else None  # noqa: SIM115
    if spec.get("warmup"):  # as `harness run` does before it asks: scoring's imports in a thread (its CPU billed)
        from harness.cli import warmup

        warmup.start("default", False)  # the read-ahead too, as `harness run` starts it
    outcome = run_suite("builtin-en", "bench", probes=probes, run_id=spec["run_id"], show_progress=spec["bar"],
                        console=console, use_cache=spec["cache"],
                        engine=EngineSettings(concurrency=spec["concurrency"], timeout_s=60))
    stats = outcome.stats
    print(json.dumps({"answered": stats.answered, "errors": stats.errors, "wall_s": stats.elapsed_s,
                      "cpu_s": stats.cpu_s}))


def _measure(args: argparse.Namespace, work: Path, servers: list[multiprocessing.Process], counts: Any,
             delay: Any, concurrency: int, latency: float, probes: int, wire_alone: bool = False) -> Row:
    delay.value = latency
    time.sleep(0.2)  # every server has read the new delay
    spec = {"probes": probes, "concurrency": concurrency, "bar": not args.no_progress_bar, "cache": not args.no_cache,
            "warmup": args.warmup, "run_id": f"c{concurrency}-l{latency:g}-n{probes}", "wire_alone": wire_alone,
            "http_client": args.http_client or "http1"}
    served_before = sum(counts)
    server_before = sum(_cpu_s(p.pid) for p in servers)  # type: ignore[arg-type]
    env = {**os.environ, "HARNESS_CACHE_DIR": str(work / f"cache-{spec['run_id']}")}  # every row asks anew
    with (work / "client.out").open("wb") as out, (work / "client.err").open("wb") as err:
        proc = subprocess.Popen([sys.executable, __file__, "--client", json.dumps(spec)], cwd=work, env=env,
                                stdout=out, stderr=err)
        _pid, status, usage = os.wait4(proc.pid, 0)  # its own rusage: the peak RSS of this client alone
    text = (work / "client.out").read_text().strip()
    if os.waitstatus_to_exitcode(status) != 0 or not text:
        raise SystemExit(f"client c={concurrency} failed:\n{(work / 'client.err').read_text(errors='replace')[-3000:]}")
    got = json.loads(text.splitlines()[-1])
    return Row(concurrency, latency, probes, got["answered"], got["wall_s"], got["cpu_s"],
               sum(_cpu_s(p.pid) for p in servers) - server_before, sum(counts) - served_before,  # type: ignore[arg-type]
               usage.ru_maxrss / 1024, os.getloadavg()[0])


def _print(rows: list[Row], server_procs: int) -> None:
    print(f"{'c':>4} {'latency':>8} {'requests':>8} {'asking s':>9} {'req/s':>8} {'limit':>7} {'of limit':>8} "
          f"{'client CPU s/1k':>15} {'server CPU s/1k':>15} {'served':>7} {'peak RSS':>9} {'load':>5}")
    for r in rows:
        limit = f"{r.limit:7.0f}" if r.limit else f"{'-':>7}"
        share = f"{r.rate / r.limit:8.2f}" if r.limit else f"{'-':>8}"
        print(f"{r.concurrency:>4} {r.latency * 1000:>6.0f}ms {r.answered:>8,} {r.wall_s:>9.2f} {r.rate:>8.0f} "
              f"{limit} {share} {r.cpu_s / r.answered * 1000:>15.3f} {r.server_cpu_s / r.served * 1000:>15.3f} "
              f"{r.served:>7,} {r.rss_mb:>7.0f}MB {r.load:>5.2f}")
    last = rows[-1]
    print(f"one client core to itself at the last row's CPU cost: {1000 / (last.cpu_s / last.answered * 1000):,.0f} "
          f"requests/s (c={last.concurrency}); server: {server_procs} processes; {os.cpu_count()} CPUs")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=4000)
    parser.add_argument("--latency", type=float, default=0.1, help="server answer delay in seconds")
    parser.add_argument("--concurrency", default="16,64,256", help="comma-separated concurrencies")
    parser.add_argument("--ceiling-probes", type=int, default=20000, help="c=256 at no latency; 0 skips the row")
    parser.add_argument("--server-procs", type=int, default=2)
    parser.add_argument("--wire-alone", type=int, default=0, metavar="N",
                        help="also ask N requests at c=256, 0 ms through the wire client alone (the HTTP share)")
    parser.add_argument("--no-progress-bar", action="store_true", help="ask without drawing the live bar")
    parser.add_argument("--no-cache", action="store_true", help="ask without the response cache (as --no-cache)")
    parser.add_argument("--warmup", action="store_true", help="start harness run's warm-up thread as it asks")
    parser.add_argument("--http-client", choices=("http1", "aiohttp", "httpx"),
                        help="the target's http_client (default: the adapter's own default)")
    parser.add_argument("--client", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        _client(json.loads(args.client))
        return 0
    port = _free_port()
    counts = multiprocessing.RawArray("q", args.server_procs)
    delay = multiprocessing.RawValue("d", args.latency)
    ready = multiprocessing.Semaphore(0)
    servers = [multiprocessing.Process(target=_serve, args=(port, i, counts, delay, ready), daemon=True)
               for i in range(args.server_procs)]
    for server in servers:
        server.start()
    for _ in servers:
        if not ready.acquire(timeout=20):
            print("benchmark server did not start", file=sys.stderr)
            return 3
    work = Path(tempfile.mkdtemp(prefix="harness-saturation-"))
    os.environ.update({"HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"), "HARNESS_CACHE_DIR": str(work / "cache"),
                       "BENCH_API_KEY": "bench-key-not-secret", "BENCH_BASE_URL": f"http://127.0.0.1:{port}/v1"})
    (work / "targets.toml").write_text(
        f'[targets.bench]\nadapter = "openai"\nmodel = "bench"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key_env = "BENCH_API_KEY"\nmax_tokens = 16\n'
        + (f'http_client = "{args.http_client}"\n' if args.http_client else ""), encoding="utf-8")
    print(f"load average {os.getloadavg()[0]:.2f} at start; each row a fresh client process", flush=True)
    try:
        plan = [(int(c), args.latency, args.probes) for c in args.concurrency.split(",") if c.strip()]
        if args.ceiling_probes:
            plan.append((256, 0.0, args.ceiling_probes))
        rows = [_measure(args, work, servers, counts, delay, c, lat, n) for c, lat, n in plan]
        alone = (_measure(args, work, servers, counts, delay, 256, 0.0, args.wire_alone, wire_alone=True)
                 if args.wire_alone else None)
    finally:
        for server in servers:
            server.terminate()
    _print(rows, args.server_procs)
    if alone is not None:
        ms, engine = alone.cpu_s / alone.answered * 1000, rows[-1].cpu_s / rows[-1].answered * 1000
        print(f"wire client alone ({args.http_client or 'default'} client and JSON, no engine), c=256, 0 ms: "
              f"{alone.answered:,} requests, "
              f"{ms:.3f} ms CPU per request ({1000 / ms:,.0f} requests/s on one core), {alone.rate:,.0f} requests/s "
              f"here, load {alone.load:.2f}; the rest of the last row, {engine - ms:.3f} ms, is the harness's own")
    bad = [r for r in rows if r.served != r.probes or r.answered != r.probes]
    if bad:
        print(f"not every probe was asked once and answered: {[(r.concurrency, r.served, r.answered) for r in bad]}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
