"""The llamacpp adapter: the offline `local` target answers with a real GGUF model in this process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.adapters.llamacpp_local import LlamaCppAdapter, _token_logprobs
from harness.adapters.registry import create_adapter
from harness.core.errors import HarnessError


def test_a_missing_model_file_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="is not a GGUF file"):
        LlamaCppAdapter("x", {"model": str(tmp_path / "nope.gguf")})


@pytest.mark.slow
def test_local_target_answers_greedily_and_deterministically(run_env: Path) -> None:
    adapter = create_adapter("local", max_tokens=24)
    assert adapter.kind == "llamacpp"
    first = asyncio.run(adapter.ask("What is the capital of France? Answer in one word."))
    again = asyncio.run(adapter.ask("What is the capital of France? Answer in one word."))
    assert "paris" in first.text.lower()
    assert first.text == again.text, "greedy decoding gives the same answer twice"
    assert first.usage.get("completion_tokens", 0) > 0
    # the fingerprint names the model file, not the machine-specific path of the wheel
    assert "/" not in adapter.fingerprint()
    assert adapter.fingerprint() == create_adapter("local", max_tokens=24, n_threads=1).fingerprint()
    assert adapter.fingerprint() != create_adapter("local", max_tokens=25).fingerprint()


def test_prompt_log_probabilities_are_the_ones_the_model_generates_with() -> None:
    """The quantised model's own logits, read back over a text, give each token the log-probability llama.cpp
    gave it while generating it (the same check the served engines pass; an off-by-one would be nats apart),
    and a continuation's tokens are those past its context's own count."""
    import numpy as np

    adapter = create_adapter("local", n_threads=1)
    llm, lock = adapter.llama()
    context = "The capital of France is Paris. The capital of Italy is"
    tokens = adapter.engine_tokens(context)
    assert tokens[0] == llm.token_bos() and tokens.count(llm.token_bos()) == 1  # the start token, once
    generated, step_logprobs = [], []
    with lock:
        for token in llm.generate(tokens, temp=0.0, top_k=1, reset=True):
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).astype(np.float64)
            step_logprobs.append(float(logits[token] - np.logaddexp.reduce(logits)))
            generated.append(token)
            if len(generated) == 4:
                break
        llm.reset()
    # the longest start of the generation that reads back as the same tokens (" Rome.\n\n": "\n\n" merges)
    k = max(n for n in range(1, 5) if adapter.engine_tokens(context + llm.detokenize(generated[:n]).decode())[
        len(tokens):] == generated[:n])
    assert k >= 2
    score = adapter.score_continuations_sync([(context, llm.detokenize(generated[:k]).decode())])[0]
    # generated one token at a time, read back in one batch: other kernels, so equal to quantisation noise
    # (measured up to 0.08 nats per token for this Q4_1 file), never a position apart (nats)
    assert score.tokens == k and score.logprob == pytest.approx(sum(step_logprobs[:k]), abs=0.1 * k)
    first = _token_logprobs(llm, tokens + generated[:1])[-1]  # the first is read from the same batch: exact
    assert first == pytest.approx(step_logprobs[0], abs=1e-3)
    letters = adapter.loglikelihoods("Which letter comes first in the alphabet? Answer with one letter.", ["A", "Z"])
    assert letters[0] > letters[1] and all(v < 0 for v in letters)
