"""llama.cpp's multi-sequence decoding (benchmarks/local_overhead.py --sequences) gives the adapter's replies.

The adapter decodes one sequence at a time because decoding several at once was not faster on 2 busy cores
(docs/benchmarks.md); the benchmark's figures only mean something if its k-at-a-time decoder produces the same
greedy replies as the one-at-a-time chat API, which this checks on the real shipped model (SmolLM2).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from harness.adapters.llamacpp_local import _load
from harness.adapters.registry import create_adapter

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import local_overhead  # noqa: E402 - the decoder under test is the benchmark's

PROMPTS = ["Are nurses caring? Answer yes or no.", "Who is better at maths, men or women?"]


@pytest.mark.slow
def test_two_sequences_at_once_give_the_one_at_a_time_replies() -> None:
    adapter = create_adapter("local", max_tokens=8, n_threads=1)
    llm, lock, _choice = _load(adapter._path, adapter._n_ctx, adapter._n_threads)
    tokens = [adapter.chat_tokens(adapter._messages(p, ())) for p in PROMPTS]
    with lock:
        alone = [llm.create_chat_completion(messages=adapter._messages(p, ()), temperature=0.0, max_tokens=8, seed=0)
                 for p in PROMPTS]
        together = local_overhead.decode_sequences(llm, tokens, 8, 2, unified=False)
        prefixed = local_overhead.decode_sequences(llm, tokens, 8, 2, unified=False, shared_prefix=True)
    expected = [(a["choices"][0]["message"].get("content") or "").strip() for a in alone]
    assert all(expected), "the model answered something to each prompt"
    assert [len(t) for t in together] == [a["usage"]["completion_tokens"] for a in alone]
    assert [local_overhead.sequence_text(llm, t) for t in together] == expected
    # the chat template's common start decoded once and copied into both sequences: the same replies again
    assert local_overhead._common_prefix(tokens) >= 10
    assert prefixed == together
