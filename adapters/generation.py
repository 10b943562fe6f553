"""Continuing a text with the probe's own sampling settings, on any target (harness.core.generation).

The run engine calls `answer_probe` / `answer_probes` instead of `adapter.ask` for a probe that carries a
GenerationRequest (the political-bias suites). Each target does what it can:
  * an adapter with its own `continue_text(requests) -> list[Completion]` method (a plugin, the calibrated
    model of harness.whitebox.calibration) is asked through it;
  * `hf` (in process): sampled with transformers at the request's temperature / top-k / top-p / length,
    seeded by the batch's first request; a base model (no chat template) continues the text itself, a chat
    model gets the one-line instruction then the text, in its chat template;
  * `llamacpp` (in process): the same, with llama.cpp's own seeded sampler, one request at a time;
  * `openai` (any OpenAI-compatible server): the instruction then the text as a chat message, with the
    request's temperature, top_p, max_tokens and seed; top_k is not part of the Chat Completions API
    (OpenAI rejects it), so the server's own applies (a target's `extra_body = {top_k = 50}` sets it on
    servers that take it, such as llama.cpp's);
  * any other adapter: `ask(instruction + text)` with the target's own settings (recorded in usage).
`usage["style"]` records how each generation was asked (continue / instruct) and `usage["sampling"]`
whether the request's sampling settings were applied.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from harness.adapters.base import Adapter, Completion, PermanentError
from harness.core.generation import STYLE_CONTINUE, STYLE_INSTRUCT, GenerationRequest, request_from_meta
from harness.core.records import Probe

SAMPLING_APPLIED, SAMPLING_TARGET = "applied", "the target's own settings"


def request_of(probe: Probe) -> GenerationRequest | None:
    return request_from_meta(probe.text, probe.meta)


def cache_text(probe: Probe) -> str:
    """The prompt part of the response-cache key: the text, plus the sampling settings and seed if any."""
    request = request_of(probe)
    return probe.text if request is None else request.cache_text()


async def answer_probe(adapter: Adapter, probe: Probe) -> Completion:
    """What the engine asks for one probe: a continuation if the probe requests one, else ask(text)."""
    request = request_of(probe)
    if request is None:
        return await adapter.ask(probe.text)
    return (await continue_texts(adapter, [request]))[0]


async def answer_probes(adapter: Adapter, probes: Sequence[Probe]) -> list[Completion]:
    """The batched form (adapters with supports_batch): continuations and questions may be mixed."""
    requests = [request_of(p) for p in probes]
    if all(r is None for r in requests):
        return await adapter.ask_batch([p.text for p in probes])
    if any(r is None for r in requests):
        return [await answer_probe(adapter, p) for p in probes]
    return await continue_texts(adapter, [r for r in requests if r is not None])


async def continue_texts(adapter: Adapter, requests: Sequence[GenerationRequest]) -> list[Completion]:
    own = getattr(adapter, "continue_text", None)
    if own is not None:
        return await asyncio.to_thread(own, list(requests))
    kind = getattr(adapter, "kind", "")
    if kind == "hf" and hasattr(adapter, "causal_lm"):
        return await asyncio.to_thread(_hf, adapter, list(requests))
    if kind == "llamacpp" and hasattr(adapter, "llama"):
        return await asyncio.to_thread(lambda: [_llamacpp(adapter, r) for r in requests])
    if kind == "openai" and hasattr(adapter, "post_chat"):
        return [await _openai(adapter, r) for r in requests]
    out = []
    for r in requests:
        if r.style == STYLE_CONTINUE:
            raise PermanentError(f"target kind '{kind}' can only be asked to continue a text by instruction "
                                 "(style: instruct or auto)")
        completion = await adapter.ask(r.chat_prompt())
        out.append(Completion(completion.text, {**completion.usage, "style": STYLE_INSTRUCT,
                                                "sampling": SAMPLING_TARGET}))
    return out


def wants_instruction(request: GenerationRequest, has_chat_template: bool) -> bool:
    """auto: instruct a chat model, continue on a base model; else as the request says."""
    if request.style == STYLE_INSTRUCT:
        return True
    if request.style == STYLE_CONTINUE:
        return False
    return has_chat_template


# --- in-process transformers ------------------------------------------------------------------------------

def hf_input_text(tokenizer: Any, request: GenerationRequest, system_prompt: str | None = None) -> tuple[str, bool]:
    """(the text the model sees, whether it is chat-templated) for one request."""
    chat = bool(getattr(tokenizer, "chat_template", None))
    if not wants_instruction(request, chat):
        return request.text, False
    if not chat:
        return request.chat_prompt(), False  # a base model told to "continue": the instruction as plain text
    messages = ([{"role": "system", "content": system_prompt}] if system_prompt else []) + [
        {"role": "user", "content": request.chat_prompt()}]
    return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True), True


def _hf(adapter: Any, requests: list[GenerationRequest]) -> list[Completion]:
    """Sample every request (grouped by settings, so one generate() call per group), seeded per group."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, r in enumerate(requests):
        groups.setdefault((r.max_new_tokens, r.temperature, r.top_k, r.top_p, r.style), []).append(i)
    out: list[Completion | None] = [None] * len(requests)
    for indices in groups.values():
        for i, completion in zip(indices, _hf_group(adapter, [requests[i] for i in indices]), strict=True):
            out[i] = completion
    return [c for c in out if c is not None]


def _hf_group(adapter: Any, requests: list[GenerationRequest]) -> list[Completion]:
    import torch

    loaded = adapter.causal_lm()
    tok, model = loaded.tokenizer, loaded.model
    first = requests[0]
    rendered = [hf_input_text(tok, r, adapter.settings.get("system_prompt")) for r in requests]
    templated = rendered[0][1]
    # a chat template writes its own BOS; plain text gets the tokenizer's usual special tokens
    enc = tok([t for t, _ in rendered], return_tensors="pt", padding=True, add_special_tokens=not templated)
    enc = enc.to(model.device)
    kwargs: dict[str, Any] = {"max_new_tokens": first.max_new_tokens, "pad_token_id": tok.pad_token_id}
    if first.temperature and first.temperature > 0:
        kwargs.update(do_sample=True, temperature=first.temperature, top_k=first.top_k or 0,
                      top_p=first.top_p if first.top_p is not None else 1.0)
    else:
        kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
    with loaded.lock, torch.inference_mode():
        torch.manual_seed(first.seed)
        output = model.generate(**enc, **kwargs)
    eos = {tok.eos_token_id} if tok.eos_token_id is not None else set()
    eos |= _as_set(getattr(model.generation_config, "eos_token_id", None))
    style = STYLE_INSTRUCT if templated or wants_instruction(first, False) else STYLE_CONTINUE
    completions = []
    for row, mask in zip(output[:, enc["input_ids"].shape[1]:].tolist(), enc["attention_mask"].tolist(), strict=True):
        length = next((i for i, t in enumerate(row) if t in eos), len(row))
        completions.append(Completion(tok.decode(row[:length], skip_special_tokens=True).strip(), {
            "prompt_tokens": int(sum(mask)), "completion_tokens": length, "style": style,
            "sampling": SAMPLING_APPLIED, "finish_reason": "stop" if length < len(row) else "length"}))
    return completions


def _as_set(value: Any) -> set[int]:
    if isinstance(value, int):
        return {value}
    if isinstance(value, list | tuple):
        return {int(v) for v in value}
    return set()


# --- in-process llama.cpp ---------------------------------------------------------------------------------

def _llamacpp(adapter: Any, request: GenerationRequest) -> Completion:
    llm, lock = adapter.llama()
    has_template = bool((llm.metadata or {}).get("tokenizer.chat_template"))
    sampling = {"temperature": request.temperature, "top_k": request.top_k or 0,
                "top_p": request.top_p if request.top_p is not None else 1.0, "max_tokens": request.max_new_tokens,
                "seed": request.seed}
    instruct = wants_instruction(request, has_template)
    with lock:
        try:
            if instruct and has_template:
                system = adapter.settings.get("system_prompt")
                messages = ([{"role": "system", "content": str(system)}] if system else []) + [
                    {"role": "user", "content": request.chat_prompt()}]
                out = llm.create_chat_completion(messages=messages, **sampling)
                text = out["choices"][0]["message"].get("content") or ""
            else:
                out = llm.create_completion(prompt=request.chat_prompt() if instruct else request.text, **sampling)
                text = out["choices"][0].get("text") or ""
        except ValueError as exc:  # the prompt does not fit the context window
            raise PermanentError(f"llama.cpp rejected the prompt: {exc}") from exc
    usage = dict(out.get("usage") or {})
    usage.update(style=STYLE_INSTRUCT if instruct else STYLE_CONTINUE, sampling=SAMPLING_APPLIED,
                 finish_reason=out["choices"][0].get("finish_reason"))
    return Completion(text.strip(), usage)


# --- OpenAI-compatible servers ----------------------------------------------------------------------------

async def _openai(adapter: Any, request: GenerationRequest) -> Completion:
    if request.style == STYLE_CONTINUE:
        raise PermanentError("a Chat Completions target cannot continue raw text; use style instruct or auto")
    from harness.adapters.openai_chat import parse_chat_completion

    s = adapter.settings
    messages = ([{"role": "system", "content": str(s["system_prompt"])}] if s.get("system_prompt") else []) + [
        {"role": "user", "content": request.chat_prompt()}]
    body: dict[str, Any] = {"model": s["model"], "messages": messages, "temperature": request.temperature,
                            "seed": request.seed}
    body["max_completion_tokens" if s.get("max_completion_tokens") is not None
         else "max_tokens"] = request.max_new_tokens
    if request.top_p is not None:
        body["top_p"] = request.top_p
    if s.get("extra_body"):
        body.update(s["extra_body"])
    completion = parse_chat_completion(await adapter.post_chat(body))
    return Completion(completion.text.strip(), {**completion.usage, "style": STYLE_INSTRUCT,
                                                "sampling": SAMPLING_APPLIED})
