"""A toy completions engine on a real HTTP server (tests/adapter_servers.py): prompt log-probabilities from a
known character-level "model", correct, or shifted by a position when echoed (llama.cpp's server does that
for models without BOS). Shared by tests/adapters/test_prompt_logprobs.py and tests/whitebox/test_served_*.py."""

from __future__ import annotations

import json
from collections.abc import Callable

from adapter_servers import Reply, Request


def char_logprob(before: str, char: str) -> float:
    """The toy model: log-probability of `char` after `before` (deterministic, depends on both)."""
    return -0.05 - ((ord(char) * 7 + len(before) * 3) % 23) / 10


def toy_server_handler(*, shift: bool = False, vllm: bool = False) -> Callable[[Request], Reply]:
    """Completions as a character-level engine would answer: greedy generation with logprobs, echo, and
    (vllm=True) prompt_logprobs. shift=True reads echoed tokens one position late (llama.cpp's bug for
    models without BOS)."""

    def answer(request: Request) -> Reply:
        if not request.path.rstrip("/").endswith("/completions"):  # no tokenizer endpoint: the start is unknown
            return Reply(404, b'{"detail": "Not Found"}')
        body = json.loads(request.body)
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        choices = []
        for index, prompt in enumerate(prompts):
            generated = "".join("xyzw"[i % 4] for i in range(int(body.get("max_tokens") or 0)))
            choice: dict = {"index": index, "text": generated, "finish_reason": "length"}
            if vllm and body.get("prompt_logprobs") is not None:
                choice["prompt_logprobs"] = [None] + [
                    {str(ord(c)): {"logprob": char_logprob(prompt[:i], c), "rank": 1, "decoded_token": c}}
                    for i, c in enumerate(prompt) if i > 0]
            if body.get("logprobs") is not None:
                text = (prompt if body.get("echo") else "") + generated
                start = 0 if body.get("echo") else len(prompt)
                full = prompt + generated
                values = [char_logprob(full[:start + i + (1 if shift and body.get("echo") else 0)], c)
                          for i, c in enumerate(text)]
                if body.get("echo"):
                    values[0] = None
                choice["logprobs"] = {"tokens": list(text), "token_logprobs": values,
                                      "text_offset": list(range(len(text))), "top_logprobs": None}
            choices.append(choice)
        usage = {"prompt_tokens": len(prompts[0]), "completion_tokens": int(body.get("max_tokens") or 0)}
        return Reply(200, json.dumps({"object": "text_completion", "choices": choices, "usage": usage}).encode())

    return answer


def by_hand(context: str, continuation: str) -> float:
    """The toy model's summed log-probability of `continuation` after `context`."""
    whole = context + continuation
    return sum(char_logprob(whole[:i], whole[i]) for i in range(len(context), len(whole)))


# --- a correct engine over the real model ------------------------------------------------------------------

def model_engine_handler(*, adds_bos: bool = False, tokenize: bool = True) -> Callable[[Request], Reply]:
    """An OpenAI-compatible engine whose numbers are right: the packaged SmolLM2 GGUF, run in this process by
    llama.cpp, answers Completions as vLLM does. A prompt is tokenised with its special tokens parsed and,
    as SmolLM2's own tokenizer does, no BOS added (adds_bos=True: the engine puts BOS first, as vLLM does for
    Llama); `prompt_logprobs` gives every prompt token's log-probability given those before it (null for the
    first), `echo` with `logprobs` the legacy form, and `max_tokens` tokens are generated greedily with their
    log-probabilities. /tokenize (tokenize=True) answers vLLM's request: the empty text's tokens with BOS when
    the engine adds it, and their texts."""
    import threading

    import numpy as np

    from harness.adapters.llamacpp_local import _token_logprobs
    from harness.adapters.registry import create_adapter

    llm, lock = create_adapter("local", n_threads=1).llama()
    bos = llm.token_bos()
    guard = threading.Lock()

    def tokens_of(text: str) -> list[int]:
        ids = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return ([bos] if adds_bos else []) + ids

    def piece(token: int, before: list[int]) -> str:
        return llm.detokenize([token], prev_tokens=before, special=True).decode("utf-8", errors="replace")

    def next_logprobs(ids: list[int]) -> np.ndarray:
        """log softmax of the logits after the last of `ids` (greedy generation)."""
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        try:
            llm._batch.set_batch(batch=ids, n_past=0, logits_all=True)
            llm._ctx.decode(llm._batch)
            row = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(ids), llm.n_vocab()))[-1]
            row = row.astype(np.float64)
            return row - row.max() - np.log(np.exp(row - row.max()).sum())
        finally:
            llm.reset()
            llm._ctx.kv_cache_seq_rm(-1, 0, -1)

    def complete(prompt: str, body: dict, index: int) -> dict:
        ids = tokens_of(prompt)
        with lock:
            prompt_values = _token_logprobs(llm, ids, first=1)
            generated: list[tuple[int, float]] = []
            for _ in range(int(body.get("max_tokens") or 0)):
                row = next_logprobs(ids + [t for t, _ in generated])
                token = int(row.argmax())
                generated.append((token, float(row[token])))
        text = "".join(piece(t, ids + [g for g, _ in generated[:i]]) for i, (t, _) in enumerate(generated))
        choice: dict = {"index": index, "text": text, "finish_reason": "length"}
        if body.get("prompt_logprobs") is not None:
            choice["prompt_logprobs"] = [None] + [
                {str(t): {"logprob": v, "rank": 1, "decoded_token": piece(t, ids[:i])}}
                for i, (t, v) in enumerate(zip(ids, prompt_values, strict=True)) if i > 0]
        if body.get("logprobs") is not None:
            shown = ([(t, v, piece(t, ids[:i])) for i, (t, v) in enumerate(zip(ids, prompt_values, strict=True))]
                     if body.get("echo") else [])
            shown += [(t, v, piece(t, ids + [g for g, _ in generated[:i]])) for i, (t, v) in enumerate(generated)]
            choice["logprobs"] = {"tokens": [p for _, _, p in shown], "token_logprobs": [v for _, v, _ in shown],
                                  "text_offset": list(range(len(shown))), "top_logprobs": None}
        return choice

    def answer(request: Request) -> Reply:
        body = json.loads(request.body)
        if request.path.rstrip("/").endswith("/tokenize"):
            if not tokenize or "/v1/" in request.path or "/extras/" in request.path:
                return Reply(404, b'{"detail": "Not Found"}')
            ids = tokens_of(str(body.get("prompt") or "")) if body.get("add_special_tokens", True) else \
                llm.tokenize(str(body.get("prompt") or "").encode("utf-8"), add_bos=False, special=True)
            strs = [piece(t, ids[:i]) for i, t in enumerate(ids)] if body.get("return_token_strs") else None
            return Reply(200, json.dumps({"count": len(ids), "max_model_len": llm.n_ctx(), "tokens": ids,
                                          "token_strs": strs}).encode())
        if not request.path.rstrip("/").endswith("/completions"):
            return Reply(404, b'{"detail": "Not Found"}')
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        with guard:
            choices = [complete(p, body, i) for i, p in enumerate(prompts)]
        usage = {"prompt_tokens": sum(len(tokens_of(p)) for p in prompts),
                 "completion_tokens": int(body.get("max_tokens") or 0) * len(prompts)}
        return Reply(200, json.dumps({"object": "text_completion", "choices": choices, "usage": usage}).encode())

    return answer
