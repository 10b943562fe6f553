"""The main job on the offline `local` model: the harness's time per probe against llama.cpp's own generation.

The same builtin-en prompts, the same chat messages and the same max_tokens, asked twice in interleaved rounds:
  engine   `Llama.create_chat_completion` called directly on the model the adapter loaded, one prompt after
           another (what llama.cpp itself costs: prompt processing and decoding);
  harness  `run_suite` with that adapter (the run engine, transcript, retries bookkeeping; no scoring), at
           the local target's concurrency.
The overhead is harness / engine - 1 per probe (goal: under 5%). Both decode the same tokens (temperature 0,
seed 0), which the script checks by comparing the completion token counts. Printed with the load average:
on a shared machine both figures move together, so the ratio is the figure to read.

`--sequences 1,2,4` measures llama.cpp's multi-sequence decoding instead: the same prompts decoded greedily k at
a time in one context (llama-cpp-python's low-level batch API, one seq_id per prompt, n_seq_max = k), against
`create_chat_completion` one prompt after another; tokens per second and per CPU second, and how many replies
are the same text as the one-at-a-time ones, with the KV cache split per sequence (also with the prompts' common
start decoded once and copied into each) and unified (one buffer for all). The adapter keeps one sequence at a
time: see docs/benchmarks.md for the figures and why.

Usage: .venv/bin/python benchmarks/local_overhead.py [--probes 8] [--rounds 2] [--max-tokens 96]
       .venv/bin/python benchmarks/local_overhead.py --sequences 1,2,4 [--probes 8] [--max-tokens 16]
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


def decode_sequences(llm, prompts: list[list[int]], max_tokens: int, k: int, *,  # noqa: ANN001 - llama_cpp.Llama
                     unified: bool = False, shared_prefix: bool = False) -> list[list[int]]:
    """Greedy completions of the tokenised prompts, decoded k at a time in one llama.cpp context.

    Each group of k prompts is one batch with one seq_id per prompt (prompt tokens first, then one token per
    live sequence per llama_decode), so the weights are read once per step for all k. unified=False gives
    each sequence its own KV cache (the replies match one-at-a-time decoding token for token); unified=True
    shares one buffer, whose attention over every sequence's cells changes the rounding (docs/benchmarks.md).
    shared_prefix decodes the prompts' common start (the chat template and system prompt) once and copies it
    into every sequence, as the chat API's prompt cache reuses it between calls.
    """
    import llama_cpp
    from llama_cpp import _internals

    params = type(llm.context_params).from_buffer_copy(llm.context_params)  # the adapter's own settings
    params.n_ctx *= k  # n_ctx per sequence, as the one-sequence context has
    params.n_seq_max, params.kv_unified = k, unified
    ctx = _internals.LlamaContext(model=llm._model, params=params, verbose=False)
    batch = _internals.LlamaBatch(n_tokens=max(params.n_batch, sum(map(len, prompts))), embd=0, n_seq_max=k,
                                  verbose=False)
    memory, out = llama_cpp.llama_get_memory(ctx.ctx), []
    keep = _common_prefix(prompts) if shared_prefix else 0
    try:
        llama_cpp.llama_memory_clear(memory, True)
        if keep:
            _decode_step(ctx, batch, [(0, list(enumerate(prompts[0][:keep])))])
            for seq in range(1, k):
                llama_cpp.llama_memory_seq_cp(memory, 0, seq, -1, -1)
        for start in range(0, len(prompts), k):
            group = prompts[start:start + k]
            for seq in range(k):
                llama_cpp.llama_memory_seq_rm(memory, seq, keep, -1)  # the last group's tokens past the prefix
            out.extend(_greedy_group(llm, ctx, batch, group, keep, max_tokens))
    finally:
        batch.close()
        ctx.close()
    return out


def _common_prefix(prompts: list[list[int]]) -> int:
    """Tokens every prompt starts with, one fewer than the shortest prompt at most (each needs its own last)."""
    keep = 0
    while keep < min(map(len, prompts)) - 1 and all(p[keep] == prompts[0][keep] for p in prompts):
        keep += 1
    return keep


def _greedy_group(llm, ctx, batch, group: list[list[int]], keep: int, max_tokens: int) -> list[list[int]]:  # noqa: ANN001
    """Decode one group's prompts past `keep` tokens, then greedy tokens for every live sequence per step."""
    import llama_cpp
    import numpy as np

    vocab = llm.n_vocab()
    steps = [(seq, list(enumerate(tokens))[keep:]) for seq, tokens in enumerate(group)]
    made: list[list[int]] = [[] for _ in group]
    while steps:
        rows = _decode_step(ctx, batch, steps)
        steps = []
        for seq, row in rows.items():
            token = int(np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(ctx.ctx, row), shape=(vocab,)).argmax())
            if llama_cpp.llama_vocab_is_eog(llm._model.vocab, token):
                continue
            made[seq].append(token)
            if len(made[seq]) < max_tokens:
                steps.append((seq, [(len(group[seq]) + len(made[seq]) - 1, token)]))
    return made


def sequence_text(llm, tokens: list[int]) -> str:  # noqa: ANN001 - llama_cpp.Llama
    """A decoded sequence's text as the chat API returns it (stripped, as the adapter records it)."""
    return llm.detokenize(tokens).decode("utf-8", "replace").strip()


def _decode_step(ctx, batch, steps: list[tuple[int, list[tuple[int, int]]]]) -> dict[int, int]:  # noqa: ANN001
    """One llama_decode of (seq, [(position, token)]) runs; the batch row of each sequence's last token."""
    raw, last = batch.batch, {}
    raw.n_tokens = 0
    for seq, run in steps:
        for pos, token in run:
            i = raw.n_tokens
            raw.token[i], raw.pos[i], raw.n_seq_id[i], raw.logits[i] = token, pos, 1, False
            raw.seq_id[i][0] = seq
            raw.n_tokens += 1
        raw.logits[raw.n_tokens - 1] = True
        last[seq] = raw.n_tokens - 1
    ctx.decode(batch)
    return last


def _sequences(adapter, prompts: list[str], ks: list[int], rounds: int) -> None:  # noqa: ANN001
    """One-at-a-time chat completions against k-at-a-time decoding: tokens/s, tokens/CPU s, same replies."""
    from harness.adapters.llamacpp_local import _load

    llm, _lock, choice = _load(adapter._path, adapter._n_ctx, adapter._n_threads)
    tokenised = [adapter.chat_tokens(adapter._messages(p, ())) for p in prompts]
    print(f"{len(prompts)} builtin-en prompts ({sum(map(len, tokenised))} prompt tokens), max_tokens "
          f"{adapter._max_tokens}, greedy, {choice.reason}")
    for rnd in range(rounds):
        wall, cpu = time.monotonic(), time.process_time()
        ref = [llm.create_chat_completion(messages=adapter._messages(p, ()), temperature=0.0,
                                          max_tokens=adapter._max_tokens, seed=0) for p in prompts]
        wall, cpu = time.monotonic() - wall, time.process_time() - cpu
        texts = [(r["choices"][0]["message"].get("content") or "").strip() for r in ref]
        n = sum(int(r["usage"]["completion_tokens"]) for r in ref)
        print(f"round {rnd + 1}: one at a time (create_chat_completion): {n / wall:6.1f} tokens/s, "
              f"{n / cpu:6.1f} per CPU s, load {os.getloadavg()[0]:.1f}", flush=True)
        for k in ks:
            for unified, prefix, label in ((False, False, "split KV       "), (False, True, "split, prefix  "),
                                           (True, False, "unified KV     ")):
                wall, cpu = time.monotonic(), time.process_time()
                made = decode_sequences(llm, tokenised, adapter._max_tokens, k, unified=unified, shared_prefix=prefix)
                wall, cpu = time.monotonic() - wall, time.process_time() - cpu
                n = sum(map(len, made))
                same = sum(sequence_text(llm, m) == t for m, t in zip(made, texts, strict=True))
                print(f"  k={k} {label}{n / wall:6.1f} tokens/s, "
                      f"{n / cpu:6.1f} per CPU s, {same}/{len(texts)} replies the same", flush=True)


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
    parser.add_argument("--sequences", default="", help="e.g. 1,2,4: measure multi-sequence decoding instead")
    parser.add_argument("--threads", type=int, default=0, help="llama.cpp threads (default: chosen from the load)")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="harness-local-overhead-")
    os.environ["HARNESS_TRANSCRIPTS_DIR"] = os.path.join(work, "transcripts")
    os.environ["HARNESS_CACHE_DIR"] = os.path.join(work, "cache")

    from harness.adapters.registry import create_adapter
    from harness.run.plan import select_any

    threads = {"n_threads": args.threads} if args.threads else {}
    adapter = create_adapter("local", max_tokens=args.max_tokens, **threads)
    probes = list(select_any("builtin-en", sample=args.probes, seed=args.seed, limit=None, overrides={}))
    prompts = [p.text for p in probes]
    if args.sequences:
        _sequences(adapter, prompts, [int(k) for k in args.sequences.split(",")], args.rounds)
        return 0
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
