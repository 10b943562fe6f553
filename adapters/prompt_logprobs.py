"""Prompt log-probabilities: what a model gives each token of a text it reads, from any engine.

White-box measurements (CHBias perplexity, CBBQ's log-likelihood answers) need, for a text, the
log-probability of each of its tokens given those before it. This module holds what every engine shares:

* `ScoredText`: the summed log-probability of a continuation's tokens after a context, and how many tokens.
* `continuation_tokens`: which tokens are the continuation's (lm-evaluation-harness's rule: the tokens of
  context + continuation past the count of the context's own tokens, so a token merging across the
  boundary is counted once, with the continuation).
* Parsers for the two forms an OpenAI-compatible server returns prompt log-probabilities in:
    - the legacy Completions form, `echo: true` with `logprobs: N` (OpenAI's original API; vLLM and
      llama.cpp's Python server accept it): `choices[i].logprobs = {tokens, token_logprobs, top_logprobs,
      text_offset}` over the prompt's tokens then the generated ones, the first prompt token's logprob null;
    - vLLM's `prompt_logprobs: N` extension: `choices[i].prompt_logprobs` is a list with one entry per
      prompt token, None for the first, else `{token_id: {"logprob", "rank", "decoded_token"}}` holding
      the prompt token itself first (vLLM builds the dict with it, then the top N), so the first key is the
      token that was read. Token ids are JSON object keys, so strings.
* `agreement`: the trust check. An engine must give a token the same log-probability when it generates it
  and when it reads it back in a prompt; a server whose prompt log-probabilities are shifted by a position,
  or otherwise wrong, fails it and is refused with one sentence (harness.adapters.served_logprobs).

Engines differ at the first position (no context: null in both forms; llama.cpp's server also nulls the
first token after BOS): a continuation is therefore always scored after a context, and a null inside the
scored span is an error, never a silent 0.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.adapters.base import PermanentError
from harness.adapters.transport import no_answer

#: What a sentence is read after when it is scored alone (CHBias): the engine's start (BOS when the model
#: adds one) and a newline, so every token of the sentence, its first included, is scored given a context on
#: every engine, and no engine's handling of the very first position matters.
SENTENCE_CONTEXT = "\n"


@dataclass(frozen=True, slots=True)
class ScoredText:
    """Summed natural-log probability of a continuation's tokens after its context, and their count."""

    logprob: float
    tokens: int


@dataclass(frozen=True, slots=True)
class PromptTokens:
    """A prompt as an engine tokenised and scored it: token texts and each one's log-probability (None where
    the engine gave none, e.g. the first token)."""

    tokens: list[str]
    logprobs: list[float | None]

    def __len__(self) -> int:
        return len(self.tokens)


def split_context(context: str, continuation: str) -> tuple[str, str]:
    """(context, continuation) with the context's trailing spaces moved onto the continuation, as
    lm-evaluation-harness does (a word's leading space belongs to the word's token)."""
    stripped = len(context) - len(context.rstrip(" "))
    if stripped:
        return context[:-stripped], context[-stripped:] + continuation
    return context, continuation


def continuation_tokens(context_count: int, whole_count: int) -> int:
    """How many trailing tokens of context + continuation are the continuation's (lm-eval's rule)."""
    return whole_count - context_count


def score_tail(whole: PromptTokens, n_cont: int, *, what: str = "the continuation") -> ScoredText:
    """The summed log-probability of the last `n_cont` tokens of `whole`; PermanentError when the engine
    gave a token of them no log-probability (a failure is never a number)."""
    if n_cont <= 0:
        raise PermanentError(f"{what} adds no token to its context")
    if n_cont > len(whole):
        raise PermanentError(f"{what} has {n_cont} tokens but the engine returned {len(whole)}")
    tail = whole.logprobs[len(whole) - n_cont:]
    if any(lp is None or not math.isfinite(lp) for lp in tail):
        raise PermanentError(f"the engine gave no log-probability for a token of {what}")
    return ScoredText(float(sum(tail)), n_cont)  # type: ignore[arg-type]


# --- the legacy Completions form (echo) ------------------------------------------------------------------

def _choice(body: Any, index: int = 0) -> Mapping[str, Any]:
    if not isinstance(body, Mapping):
        raise PermanentError("response is not a completion object")
    choices = body.get("choices")
    if not isinstance(choices, list) or len(choices) <= index or not isinstance(choices[index], Mapping):
        error = body.get("error")
        if isinstance(error, Mapping) and error.get("message"):
            raise no_answer(f"server error: {' '.join(str(error['message']).split())[:200]}")
        raise no_answer("response has no choices")  # a lost answer: the same retries as a 503
    return choices[index]


def choices_by_index(body: Any, n: int) -> list[Mapping[str, Any]]:
    """The `n` choices of a batched request (one prompt per choice), in prompt order (`index`)."""
    _choice(body)
    choices = [c for c in body["choices"] if isinstance(c, Mapping)]
    if len(choices) != n:
        raise PermanentError(f"asked for {n} prompts' log-probabilities and the server returned {len(choices)}")
    return sorted(choices, key=lambda c: int(c.get("index") or 0))


def parse_echo(choice: Mapping[str, Any], *, generated: int = 0) -> PromptTokens:
    """Prompt tokens from a legacy `logprobs` object of an echoed completion; the last `generated`
    entries (the tokens the request generated after the prompt) are dropped."""
    logprobs = choice.get("logprobs")
    if not isinstance(logprobs, Mapping):
        raise PermanentError("the server returned no logprobs for an echoed prompt")
    tokens, values = logprobs.get("tokens"), logprobs.get("token_logprobs")
    if not isinstance(tokens, list) or not isinstance(values, list) or len(tokens) != len(values):
        raise PermanentError("the server's logprobs have no tokens/token_logprobs lists of one length")
    keep = len(tokens) - max(0, generated)
    return PromptTokens([str(t) for t in tokens[:keep]], [_number(v) for v in values[:keep]])


def generated_tokens(choice: Mapping[str, Any]) -> PromptTokens:
    """The generated tokens and their log-probabilities from a (not echoed) legacy completion."""
    return parse_echo(choice)


# --- vLLM's prompt_logprobs extension ----------------------------------------------------------------------

def parse_vllm_prompt_logprobs(choice: Mapping[str, Any]) -> PromptTokens:
    """Prompt tokens from vLLM's `prompt_logprobs` list (see the module docstring for its format)."""
    entries = choice.get("prompt_logprobs")
    if not isinstance(entries, list):
        raise PermanentError("the server returned no prompt_logprobs")
    tokens: list[str] = []
    values: list[float | None] = []
    for entry in entries:
        if entry is None:  # the first prompt token: nothing before it to predict it from
            tokens.append("")
            values.append(None)
            continue
        if not isinstance(entry, Mapping) or not entry:
            raise PermanentError("a prompt_logprobs entry is neither null nor a token map")
        token_id, info = next(iter(entry.items()))  # the prompt token comes first, then the top N
        if isinstance(info, Mapping):
            tokens.append(str(info.get("decoded_token") if info.get("decoded_token") is not None else token_id))
            values.append(_number(info.get("logprob")))
        else:  # older vLLM: {token_id: logprob}
            tokens.append(str(token_id))
            values.append(_number(info))
    return PromptTokens(tokens, values)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


# --- the trust check -------------------------------------------------------------------------------------

#: Largest difference (nats) allowed between a token's log-probability when generated and when read back.
#: The same engine computes the two differently: a generated token is decoded alone (a matrix-vector product),
#: a prompt in one batch (matrix-matrix, other kernels, other rounding of the quantised activations).
#: Measured in process, 6 greedy tokens after 2 prompts: SmolLM2 Q4_1 up to 0.077 nats, Qwen2.5-Coder Q4_K_M
#: up to 0.121; vLLM in bfloat16 differs by batch shape too. An echo shifted by a position was 1.5-17 nats off
#: (llama.cpp's server, docs/big_models.md), so 0.25 separates the two.
AGREEMENT_TOLERANCE = 0.25


def agreement(generated: PromptTokens, read_back: PromptTokens, *, tolerance: float = AGREEMENT_TOLERANCE
              ) -> str | None:
    """None when the tokens read back agree with the same tokens as generated; else what differs, as a
    clause for the refusal sentence. `read_back` holds the generated tokens' entries only (aligned)."""
    compared = 0
    # Same count: position by position (an engine may spell a token differently in the two forms, as vLLM's
    # older releases did: "ĠParis" vs " Paris"); else the leading tokens read back with the same text.
    same_count = len(generated) == len(read_back)
    for token, lp_gen, token_back, lp_back in zip(generated.tokens, generated.logprobs, read_back.tokens,
                                                  read_back.logprobs, strict=False):
        if token != token_back and not same_count:
            break  # re-tokenised differently from here on: nothing more to compare
        if lp_gen is None:
            continue
        if lp_back is None:
            return f"it gave no log-probability for {token!r} read back in a prompt"
        if abs(lp_gen - lp_back) > tolerance:
            return (f"it gave {token!r} the log-probability {lp_gen:.3f} when generating it and {lp_back:.3f} "
                    "when reading the same token back in a prompt")
        compared += 1
    if not compared:
        shown = [t for t in generated.tokens[:3]]
        return (f"its generated tokens {shown!r} came back as {read_back.tokens[:3]!r}, so the two could not be "
                "compared")
    return None


def refusal_sentence(name: str, what: str) -> str:
    return (f"Target '{name}' is refused for log-probability work: {what}; its prompt log-probabilities cannot "
            "be trusted (see docs/big_models.md).")


def tokens_text(tokens: Sequence[str]) -> str:
    return "".join(tokens)
