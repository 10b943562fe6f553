"""The main job on the offline `local` model: the harness's time per probe against llama.cpp's own generation.

The same builtin-en prompts, the same chat messages and the same max_tokens, asked twice in interleaved rounds:
  engine   `Llama.create_chat_completion` called directly on the model the adapter loaded, one prompt after
           another (what llama.cpp itself costs: prompt processing and decoding);
  harness  `run_suite` with that adapter (the run engine, transcript, retries bookkeeping; no scoring), at
           the local target's concurrency.
The overhead is harness / engine - 1 per probe (goal: under 5%). Both decode the same tokens (temperature 0,
seed 0), which the script checks by comparing the completion token counts. Printed with the load average:
on a shared machine both figures move together, so the ratio is the figure to read.

llama-cpp-python's high-level API decodes one sequence per call; several sequences at once would need its
low-level batch API and a sampler of our own, which this script does not try (see docs/benchmarks.md).

Usage: .venv/bin/python benchmarks/local_overhead.py [--probes 8] [--rounds 2] [--max-tokens 96]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time


def _engine(adapter, prompts: list[str]) -> tuple[float, list[int]]:  # noqa: ANN001 - LlamaCppAdapter
    """Seconds and completion tokens for the prompts through llama.cpp alone, as the adapter would call it."""
    from harness.adapters.llamacpp_local import _load

    llm, lock, _choice = _load(adapter._path, adapter._n_ctx, adapter._n_threads)
    tokens = []
    started = time.monotonic()
    for prompt in prompts:
        with lock:
            out = llm.create_chat_completion(messages=adapter._messages(prompt, ()), temperature=adapter._temperature,
                                             max_tokens=adapter._max_tokens, seed=0)
        tokens.append(int((out.get("usage") or {}).get("completion_tokens") or 0))
    return time.monotonic() - started, tokens


def _harness(adapter, probes: list, run: int) -> tuple[float, list[int]]:  # noqa: ANN001
    """Seconds and completion tokens for the same probes through the harness's run engine."""
    from harness.run.execute import run_suite
    from harness.run.transcript import latest_by_probe

    started = time.monotonic()
    outcome = run_suite("builtin-en", adapter, probes=probes, run_id=f"overhead-{run}", use_cache=False,
                        show_progress=False)
    wall = time.monotonic() - started
    latest = latest_by_probe(outcome.transcript_path)
    return wall, [int(latest[p.id].reply.usage.get("completion_tokens") or 0) for p in probes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--probes", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="harness-local-overhead-")
    os.environ["HARNESS_TRANSCRIPTS_DIR"] = os.path.join(work, "transcripts")
    os.environ["HARNESS_CACHE_DIR"] = os.path.join(work, "cache")

    from harness.adapters.registry import create_adapter
    from harness.run.plan import select_any

    adapter = create_adapter("local", max_tokens=args.max_tokens)
    probes = list(select_any("builtin-en", sample=args.probes, seed=args.seed, limit=None, overrides={}))
    prompts = [p.text for p in probes]
    _engine(adapter, prompts[:1])  # load the model and warm it once, outside every timing
    engine_s, harness_s = [], []
    for run in range(args.rounds):
        wall, tokens = _engine(adapter, prompts)
        engine_s.append(wall)
        h_wall, h_tokens = _harness(adapter, probes, run)
        harness_s.append(h_wall)
        same = "same tokens" if tokens == h_tokens else f"TOKENS DIFFER: {tokens} vs {h_tokens}"
        print(f"round {run + 1}: llama.cpp {wall / len(prompts):.3f} s per probe, harness {h_wall / len(probes):.3f}"
              f" s per probe ({sum(tokens)} completion tokens; {same})", flush=True)
    engine, harness = statistics.median(engine_s), statistics.median(harness_s)
    print(f"{len(probes)} builtin-en probes, max_tokens {args.max_tokens}, medians of {args.rounds} interleaved "
          f"rounds, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    print(f"  llama.cpp alone   {engine / len(probes):8.3f} s per probe")
    print(f"  through harness   {harness / len(probes):8.3f} s per probe")
    print(f"  overhead          {100 * (harness / engine - 1):+8.1f} %  (goal < 5%)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
