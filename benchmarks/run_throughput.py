"""How close does `harness run` get to the physical limit of a slow chatbot?

A local OpenAI-compatible server (raw asyncio HTTP/1.1 in its own process, so its CPU is not billed to
the harness) answers every chat completion after exactly 100 ms. With 64 requests in flight the best
any client can do is 64 / 0.1 s = 640 probes/s. This script runs 5,000 synthetic probes through the real
runner (harness.run.engine.run_suite) and the real `openai` adapter at concurrency 64, and prints probes/s,
the limit, their ratio and the harness's CPU time per probe. It then asks probes one at a time, as
BiasAsker's own loop did, and prints the speed-up. The one-at-a-time run asks a subset (default 200)
and extrapolates to the full count, because 5,000 sequential requests take over eight minutes by
construction; the printout says so.

`--http-client aiohttp` (or httpx, the SDK's default httpx2 stack) runs the adapter over that stack instead of its
default (harness.adapters.http1 for this plain-http server), to compare.

Usage: .venv/bin/python benchmarks/run_throughput.py [--probes 5000] [--concurrency 64]
       [--latency 0.1] [--sequential 200] [--http-client http1|aiohttp|httpx]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import sys
import tempfile
import time
from pathlib import Path

_BODY_TEMPLATE = {
    "id": "chatcmpl-bench", "object": "chat.completion", "created": 0, "model": "bench",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "No, that is a stereotype."},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 12, "completion_tokens": 6, "total_tokens": 18},
}


class _SlowChat(asyncio.Protocol):
    """Minimal HTTP/1.1 keep-alive server: every POST gets the same completion after `latency` seconds."""

    latency = 0.1
    body = json.dumps(_BODY_TEMPLATE).encode()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.buffer = b""
        self.loop = asyncio.get_running_loop()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while True:
            head_end = self.buffer.find(b"\r\n\r\n")
            if head_end < 0:
                return
            head = self.buffer[:head_end].decode("latin-1")
            length = 0
            for line in head.split("\r\n")[1:]:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            end = head_end + 4 + length
            if len(self.buffer) < end:
                return
            self.buffer = self.buffer[end:]
            is_models = head.startswith("GET") and "/models" in head.split("\r\n", 1)[0]
            payload = b'{"object":"list","data":[{"id":"bench","object":"model"}]}' if is_models else self.body
            response = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                        + str(len(payload)).encode() + b"\r\n\r\n" + payload)
            self.loop.call_later(0 if is_models else self.latency, self._write, response)

    def _write(self, response: bytes) -> None:
        if not self.transport.is_closing():
            self.transport.write(response)


def _serve(port: int, latency: float, ready: multiprocessing.synchronize.Event) -> None:  # type: ignore[name-defined]
    """The server's own process and loop (uvloop when installed): on two cores it must stay cheap."""
    async def main() -> None:
        _SlowChat.latency = latency
        server = await asyncio.get_running_loop().create_server(_SlowChat, "127.0.0.1", port, backlog=1024)
        ready.set()
        async with server:
            await server.serve_forever()

    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
            runner.run(main())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _probes(n: int) -> list:
    from harness.core.records import Probe

    return [Probe.make("bench", "en", "yes_no", "relative", f"Group {i} are lazy, right?", groups=(f"g{i}",))
            for i in range(n)]


def _run(run_id: str, probes: list, concurrency: int) -> tuple[float, float, int]:
    """One run through the real runner; returns (wall seconds, harness CPU seconds, answered)."""
    from harness.run.engine import EngineSettings
    from harness.run.execute import run_suite

    outcome = run_suite("bench", "bench", probes=probes, run_id=run_id, use_cache=False, show_progress=False,
                        engine=EngineSettings(concurrency=concurrency, timeout_s=30, max_attempts=3))
    return outcome.stats.elapsed_s, outcome.stats.cpu_s, outcome.stats.answered


def _adapter_only(target: str, probes: list, concurrency: int) -> tuple[float, float]:
    """The same requests through the bare adapter (no runner): the transport's own ceiling on this machine.

    The gap between this and the runner's figure is what the engine costs (retries, cache, transcript).
    """
    from harness.adapters.registry import create_adapter
    from harness.run.session import run_loop

    adapter = create_adapter(target)

    async def go() -> tuple[float, float]:
        sem = asyncio.Semaphore(concurrency)

        async def one(text: str) -> None:
            async with sem:
                await adapter.ask(text)

        await asyncio.gather(*(one(p.text) for p in probes[:200]))  # warm the connection pool
        start, cpu = time.monotonic(), time.process_time()
        await asyncio.gather(*(one(p.text) for p in probes))
        wall, used = time.monotonic() - start, time.process_time() - cpu
        await adapter.aclose()
        return len(probes) / wall, used / len(probes)

    return run_loop(go())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.1, help="server answer delay in seconds")
    parser.add_argument("--sequential", type=int, default=200, help="probes asked one at a time")
    parser.add_argument("--http-client", choices=["http1", "aiohttp", "httpx"], default=None,
                        help="the openai adapter's HTTP stack (default: the adapter's default, http1 here)")
    args = parser.parse_args(argv)

    port = _free_port()
    ready = multiprocessing.Event()
    server = multiprocessing.Process(target=_serve, args=(port, args.latency, ready), daemon=True)
    server.start()
    if not ready.wait(10):
        print("benchmark server did not start", file=sys.stderr)
        return 3
    work = Path(tempfile.mkdtemp(prefix="harness-bench-"))
    os.environ["HARNESS_TRANSCRIPTS_DIR"] = str(work / "transcripts")
    os.environ["HARNESS_CACHE_DIR"] = str(work / "cache")
    os.environ["BENCH_API_KEY"] = "bench-key-not-secret"
    (work / "targets.toml").write_text(
        f'[targets.bench]\nadapter = "openai"\nmodel = "bench"\nbase_url = "http://127.0.0.1:{port}/v1"\n'
        'api_key_env = "BENCH_API_KEY"\nmax_tokens = 16\n'
        + (f'http_client = "{args.http_client}"\n' if args.http_client else ""), encoding="utf-8")
    os.chdir(work)
    try:
        probes = _probes(args.probes)
        _run("warm-up", probes[:200], args.concurrency)  # warm-up: imports, connection pool
        wall, cpu, answered = _run("concurrent", probes, args.concurrency)
        limit = args.concurrency / args.latency
        rate = answered / wall
        from harness.adapters.registry import create_adapter

        stack = create_adapter("bench").http_client
        print(f"concurrent run: {answered:,} probes answered in {wall:.2f} s at concurrency {args.concurrency} "
              f"(openai adapter over {stack})")
        print(f"  throughput        {rate:8.1f} probes/s")
        print(f"  physical limit    {limit:8.1f} probes/s  ({args.concurrency} in flight / {args.latency:g} s)")
        print(f"  ratio             {rate / limit:8.3f}  (goal >= 0.8)")
        print(f"  harness CPU       {cpu / answered * 1000:8.3f} ms per probe ({cpu:.2f} s total)")
        # Load-independent: the rate one core could sustain at this CPU cost. Above the physical limit, the
        # harness is not what holds a run back; on a busy machine the wall-clock figures above say less.
        print(f"  CPU ceiling       {answered / cpu:8.1f} probes/s  (one core to itself at that CPU cost)")
        bare_rate, bare_cpu = _adapter_only("bench", probes, args.concurrency)
        print(f"  bare adapter      {bare_rate:8.1f} probes/s, {bare_cpu * 1000:.3f} ms CPU per request "
              "(same requests, no runner: the HTTP stack's ceiling here)")
        print(f"  load average      {os.getloadavg()[0]:8.2f} on {os.cpu_count()} CPUs (other work on the machine)")
        seq_probes = _probes(args.probes + args.sequential)[args.probes:]
        seq_wall, _seq_cpu, seq_answered = _run("sequential", seq_probes, 1)
        seq_rate = seq_answered / seq_wall
        extrapolated = args.probes / seq_rate
        print(f"one at a time (BiasAsker's loop): {seq_answered} probes in {seq_wall:.2f} s = {seq_rate:.2f} probes/s")
        print(f"  extrapolated to {args.probes:,} probes: {extrapolated:,.0f} s (measured on {seq_answered}, "
              "not run in full)")
        print(f"  speed-up          {rate / seq_rate:8.1f}x  ({extrapolated:,.0f} s -> {wall:.1f} s)")
    finally:
        server.terminate()
        server.join(5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
