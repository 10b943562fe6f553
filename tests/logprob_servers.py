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
