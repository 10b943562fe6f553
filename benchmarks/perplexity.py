"""Sentences per second: batched perplexity (harness.whitebox.perplexity) vs CHBias's one-at-a-time loop.

CHBias (the RedditBias evaluation script it copies) scores each sentence alone:
    ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence))
    ppl = exp(model(ids, labels=ids).loss)
This script runs that loop and the harness's batched scorer on the same model and the same sentences (the
CHBias test pairs of one category, both sides), checks that the perplexities are equal (the harness with
prefix=None, i.e. no start token, which is upstream's definition), and prints sentences per second for:
  * upstream's loop (torch.no_grad, one sentence per forward pass);
  * the harness at batch size 1 (its own loop);
  * the harness batched (default 16; sorted by length, padded, masked);
  * the harness batched with its default start token (BOS, else EOS: the first token is scored too).

With --sweep it measures instead where the time goes: this CPU's matrix-multiply peak (GFLOP/s of a
1024x1024 float32 product on the same threads), and the GFLOP/s each way of scoring reaches (real tokens x
2 x the parameters of the model's linear layers, per CPU second): CHBias's loop, then the harness at batch
sizes 1, 4, 16 and 64. The speed-up batching can give is bounded by peak / the loop's rate.

With --llamacpp it compares instead the two in-process ways to score a GGUF model: transformers (the `-hf`
targets: the file dequantised to float32, the harness's batched scorer) and llama.cpp (the `local` targets:
the quantised weights' own logits, harness.adapters.llamacpp_local), in sentences per second, and the values:
each sentence's mean NLL on the very same tokens (the start token, a newline, the sentence: what the llama.cpp
targets score), float32 against quantised arithmetic.

Usage: .venv/bin/python benchmarks/perplexity.py [--model local-hf] [--category gender] [--n 400]
       [--batch-size 16] [--threads 2] [--sweep | --llamacpp]
--model takes an hf target name (local-hf: SmolLM2-135M GGUF; local-zh-hf: Qwen2.5-Coder-0.5B GGUF), a model
directory, a .gguf file or a hub name. Needs $HARNESS_DATA_DIR/chbias (harness data pull chbias).
"""

from __future__ import annotations

import argparse
import math
import statistics
import time
from collections.abc import Callable
from typing import Any


def upstream_loop(model: Any, tokenizer: Any, sentences: list[str]) -> list[float | None]:
    """CHBias's evaluation loop: one sentence per forward pass, no start token (a one-token sentence has no
    perplexity there; upstream crashed into its 0-on-error branch, here it is None)."""
    import torch

    out: list[float | None] = []
    for sentence in sentences:
        ids = tokenizer.convert_tokens_to_ids(tokenizer.tokenize(sentence))
        if len(ids) < 2:
            out.append(None)
            continue
        tensor = torch.tensor([ids], device=model.device)
        with torch.no_grad():
            loss = model(tensor, labels=tensor)[0]
        out.append(math.exp(float(loss)))
    return out


def timed(fn: Callable[[], Any]) -> tuple[Any, tuple[float, float]]:
    """fn's result and (wall seconds, CPU seconds of this process). On a shared machine the wall clock
    measures the neighbours too; the CPU time is the work done (with one torch thread, no spin-waiting)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = fn()
    return result, (time.perf_counter() - started, time.process_time() - cpu)


def sentences_of(category: str, n: int) -> list[str]:
    from harness.question_gen.suites import select_probes

    probes = list(select_probes(f"chbias-{category}"))
    sentences = [s for p in probes for s in p.options]
    return sentences[:n]


def load(model: str) -> Any:
    from harness.adapters.hf_local import load_model
    from harness.adapters.registry import load_targets

    targets = load_targets()
    if model in targets and targets[model].adapter == "hf":
        settings = targets[model].settings
        return load_model(str(settings["model"]), settings.get("gguf_file"))
    return load_model(model)


def linear_flops_per_token(model: Any) -> int:
    """2 x the weights of every linear layer (the LM head included; GPT-2's Conv1D is one too): a forward
    pass's FLOPs per token, leaving out attention scores (small for sentences of tens of tokens)."""
    return sum(2 * m.weight.numel() for m in model.modules()
               if type(m).__name__ in ("Linear", "Conv1D") and getattr(m, "weight", None) is not None)


def matmul_gflops(seconds: float = 3.0) -> tuple[float, float]:
    """(wall, CPU) GFLOP/s of repeated 1024x1024 float32 products: what this CPU does at best."""
    import torch

    a, b = torch.randn(1024, 1024), torch.randn(1024, 1024)
    torch.mm(a, b)
    reps, (wall, cpu) = 0, (0.0, 0.0)
    while wall < seconds:
        _, (w, c) = timed(lambda: [torch.mm(a, b) for _ in range(10)])
        reps, wall, cpu = reps + 10, wall + w, cpu + c
    flops = reps * 2 * 1024**3
    return flops / wall / 1e9, flops / cpu / 1e9


def sweep(model: Any, tok: Any, sentences: list[str], threads: int) -> None:
    """Where the time goes: GFLOP/s of the loop and of each batch size against the matmul peak."""
    from harness.whitebox.perplexity import encode, sentence_perplexities

    per_token = linear_flops_per_token(model)
    lengths = [len(r) for r in encode(tok, sentences, None)]
    tokens = sum(lengths)
    peak_wall, peak_cpu = matmul_gflops()
    print(f"{len(sentences)} sentences, {tokens:,} tokens (mean {tokens / len(sentences):.1f}, max {max(lengths)}); "
          f"{per_token / 2e6:.0f}M linear weights = {per_token / 1e9:.2f} GFLOP per token; {threads} thread(s)")
    print(f"matmul peak (1024x1024 float32): {peak_wall:.1f} GFLOP/s wall, {peak_cpu:.1f} per CPU second",
          flush=True)
    print(f"{'':28s} {'wall s':>7s} {'CPU s':>7s} {'GFLOP/s wall':>12s} {'GFLOP/s CPU':>11s} {'% of peak':>9s}")

    def show(label: str, t: tuple[float, float]) -> None:
        wall, cpu = t
        rate_wall, rate_cpu = tokens * per_token / wall / 1e9, tokens * per_token / cpu / 1e9
        print(f"{label:28s} {wall:7.1f} {cpu:7.1f} {rate_wall:12.1f} {rate_cpu:11.1f} "
              f"{100 * rate_cpu / peak_cpu:8.0f}%", flush=True)

    _, t_up = timed(lambda: upstream_loop(model, tok, sentences))
    show("CHBias loop", t_up)
    for size in (1, 4, 16, 64):
        _, t = timed(lambda size=size: sentence_perplexities(model, tok, sentences, batch_size=size, prefix=None,
                                                            max_batch_tokens=10**9))
        show(f"harness, batch size {size}", t)


LLAMACPP_TWIN = {"local-hf": "local", "local-zh-hf": "local-zh"}


def llamacpp_comparison(model_name: str, model: Any, tok: Any, sentences: list[str], threads: int,
                        batch_size: int) -> None:
    """Sentences per second and values: transformers (dequantised, batched) vs llama.cpp (quantised)."""
    import torch

    from harness.adapters.prompt_logprobs import SENTENCE_CONTEXT
    from harness.adapters.registry import create_adapter
    from harness.whitebox.perplexity import sentence_perplexities

    twin = LLAMACPP_TWIN.get(model_name)
    if twin is None:
        raise SystemExit(f"--llamacpp compares an hf preset with its llama.cpp twin: {', '.join(LLAMACPP_TWIN)}")
    cpp = create_adapter(twin, n_threads=threads)
    pairs = [(SENTENCE_CONTEXT, s) for s in sentences]
    cpp.score_continuations_sync(pairs[:4])  # warm-up (loads the GGUF)
    n = len(sentences)
    hf_scores, (hf_wall, hf_cpu) = timed(lambda: sentence_perplexities(model, tok, sentences, batch_size=batch_size))
    cpp_scores, (cpp_wall, cpp_cpu) = timed(lambda: cpp.score_continuations_sync(pairs))
    print(f"{'':44s} {'wall s':>7s} {'sent/s':>7s} {'CPU s':>7s} {'sent/CPU-s':>10s}")
    print(f"{'transformers, float32, batch ' + str(batch_size):44s} {hf_wall:7.1f} {n / hf_wall:7.2f} {hf_cpu:7.1f} "
          f"{n / hf_cpu:10.2f}")
    print(f"{'llama.cpp, quantised GGUF, one at a time':44s} {cpp_wall:7.1f} {n / cpp_wall:7.2f} {cpp_cpu:7.1f} "
          f"{n / cpp_cpu:10.2f}", flush=True)
    # values on identical tokens: llama.cpp's own token ids, through the dequantised model, one at a time
    diffs, rel_ppl = [], []
    for (context, sentence), score in zip(pairs, cpp_scores, strict=True):
        ids = cpp.engine_tokens(context + sentence)
        n_cont = len(ids) - len(cpp.engine_tokens(context))
        with torch.inference_mode():
            logits = model(torch.tensor([ids], device=model.device)).logits[0].double()
        logprobs = torch.log_softmax(logits, dim=-1)
        positions = torch.arange(len(ids) - n_cont, len(ids))
        hf_sum = float(logprobs[positions - 1, torch.tensor(ids)[positions]].sum())
        diffs.append(abs(hf_sum - score.logprob) / score.tokens)
        rel_ppl.append(abs(math.exp(-hf_sum / score.tokens) / math.exp(-score.logprob / score.tokens) - 1))
    print(f"the same {sum(s.tokens for s in cpp_scores):,} tokens, float32 (dequantised) vs llama.cpp (quantised): "
          f"mean NLL per token differs by {statistics.mean(diffs):.4f} nats on average (max {max(diffs):.4f}); "
          f"perplexity by {100 * statistics.median(rel_ppl):.2f}% median, {100 * max(rel_ppl):.2f}% max")
    hf_ppl = [x.perplexity for x in hf_scores if x.ok]
    print(f"(the hf targets' own definition, BOS then the sentence, no newline: median perplexity "
          f"{statistics.median(hf_ppl):.1f}; llama.cpp's: "
          f"{statistics.median(math.exp(-x.logprob / x.tokens) for x in cpp_scores):.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="local-hf")
    parser.add_argument("--category", default="gender")
    parser.add_argument("--n", type=int, default=400, help="sentences (default: the 200 pairs, both sides)")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    parser.add_argument("--sweep", action="store_true", help="GFLOP/s per batch size against the matmul peak")
    parser.add_argument("--llamacpp", action="store_true",
                        help="transformers (dequantised) vs llama.cpp (quantised) on the same GGUF")
    args = parser.parse_args()

    import torch

    from harness.whitebox.perplexity import sentence_perplexities

    torch.set_num_threads(args.threads)
    sentences = sentences_of(args.category, args.n)
    started = time.perf_counter()
    loaded = load(args.model)
    print(f"model {args.model}: loaded in {time.perf_counter() - started:.1f} s; {len(sentences)} sentences of "
          f"CHBias {args.category} (test); {args.threads} thread(s); machine load {_load():.1f}", flush=True)
    model, tok = loaded.model, loaded.tokenizer
    sentence_perplexities(model, tok, sentences[:4], batch_size=4)  # warm-up, both ways: neither pays for
    upstream_loop(model, tok, sentences[:4])  # first-call costs in the timed pass
    if args.sweep:
        sweep(model, tok, sentences, args.threads)
        return
    if args.llamacpp:
        llamacpp_comparison(args.model, model, tok, sentences, args.threads, args.batch_size)
        return

    n = len(sentences)
    print(f"{'':40s} {'wall s':>7s} {'sent/s':>7s} {'speed-up':>8s} {'CPU s':>7s} {'sent/CPU-s':>10s} "
          f"{'speed-up':>8s}", flush=True)
    upstream, t_up = timed(lambda: upstream_loop(model, tok, sentences))

    def row(label: str, t: tuple[float, float]) -> None:
        (wall, cpu), (wall_up, cpu_up) = t, t_up
        print(f"{label:40s} {wall:7.1f} {n / wall:7.2f} {wall_up / wall:7.1f}x {cpu:7.1f} {n / cpu:10.2f} "
              f"{cpu_up / cpu:7.1f}x", flush=True)

    row("CHBias loop (one at a time)", t_up)
    ours_b, t_b = timed(lambda: sentence_perplexities(model, tok, sentences, batch_size=args.batch_size,
                                                      prefix=None))
    row(f"harness, batch size {args.batch_size}", t_b)
    ours_1, t_1 = timed(lambda: sentence_perplexities(model, tok, sentences, batch_size=1, prefix=None))
    row("harness, batch size 1", t_1)
    with_bos, t_bos = timed(lambda: sentence_perplexities(model, tok, sentences, batch_size=args.batch_size))
    row(f"harness, batch size {args.batch_size}, start token", t_bos)

    rel = [abs(s.perplexity - u) / u for s, u in zip(ours_b, upstream, strict=True)
           if u is not None and s.perplexity is not None]
    rel_1 = [abs(s.perplexity - u) / u for s, u in zip(ours_1, upstream, strict=True)
             if u is not None and s.perplexity is not None]
    print(f"perplexities equal to the CHBias loop's: batched max relative difference {max(rel):.2e} "
          f"(median {statistics.median(rel):.1e}) over {len(rel)} sentences; batch size 1: {max(rel_1):.2e}")
    scored = sum(1 for s in with_bos if s.ok)
    print(f"with the start token every token is scored: {sum(s.tokens for s in with_bos if s.ok):,} tokens in "
          f"{scored} sentences vs {sum(s.tokens for s in ours_b if s.ok):,} without")


def _load() -> float:
    try:
        import os

        return os.getloadavg()[0]
    except (OSError, AttributeError):
        return float("nan")


if __name__ == "__main__":
    main()
