"""The probability of each label from any target: `await label_probs(adapter, messages, labels)`.

A judge (harness.judge, a political-bias judge, ...) asks a model to answer with one of a few label words
and wants more than the word: how sure the model was. Where the target exposes its next-token
distribution, the labels' probabilities are read from it; elsewhere the answer is generated and read as
a word, and there is no probability:
  * `openai` (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp's server): `logprobs` with
    `top_logprobs`, read at the first answer token. A server that rejects the parameter is asked again
    without it, once; the adapter is remembered as one without log-probabilities.
  * `llamacpp` (in process): the logits after the chat-templated prompt, taken while generating the answer
    (llama.cpp evaluates the prompt once), softmaxed over the whole vocabulary.
  * `hf` (in process): the first generation step's scores, softmaxed over the whole vocabulary.
  * every other adapter (tencent, http, plugins): the answer only (method "answer").

How tokens name labels: the answer's first token that is not blank or markup (" ", "**", "\"") is read;
each of its `top_k` alternatives names the label it is a prefix of, case-insensitively and without
surrounding punctuation ("Ag", "AGREES", " agrees" all name AGREES; "A." names A). A token that is a
prefix of two labels names neither. So labels should start with different characters (AGREES / DISAGREES
/ REFUSES / UNCLEAR), which also makes the first token decide. The probability of a label is the mass of
the tokens naming it, renormalised over the labels; `coverage` is that mass before renormalising (how much
of the model's first step went to any label at all: a low coverage means the model wanted to say
something else).

Temperature 0 and a fixed seed throughout: a judge should read the same reply the same way every time.
"""

from __future__ import annotations

import asyncio
import math
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.adapters.base import Adapter, Message, PermanentError

METHOD_LOGPROBS = "logprobs"
METHOD_LOGITS = "logits"
METHOD_ANSWER = "answer"
DEFAULT_TOP_K = 20  # OpenAI's maximum for top_logprobs
_MARKUP = " \t\r\n*\"'`“”‘’「」『』《》()（）[]【】#>:：-—_.,，。!！?？"

# openai-kind adapters whose server refused `logprobs` once: asked without it from then on
_NO_LOGPROBS: weakref.WeakSet[Adapter] = weakref.WeakSet()


@dataclass(frozen=True)
class LabelAnswer:
    """A target's answer to a label question.

    text      the answer as generated (stripped);
    probs     label -> probability, renormalised over the labels; None when the target gives no
              log-probabilities, {} when none of the first token's alternatives names a label;
    coverage  the first answer token's probability mass that named some label (None without probs);
    method    "logprobs", "logits" or "answer" (see the module docstring);
    usage     token counts as the target reported them.
    """

    text: str
    probs: dict[str, float] | None
    coverage: float | None
    method: str
    usage: dict[str, Any] = field(default_factory=dict)


def normalise_token(token: str) -> str:
    return token.strip(_MARKUP).upper()


def label_of_token(token: str, labels: Iterable[str]) -> str | None:
    """The one label `token` is a prefix of (see the module docstring), else None."""
    norm = normalise_token(token)
    if not norm:
        return None
    hits = [label for label in labels if label.upper().startswith(norm)]
    return hits[0] if len(hits) == 1 else None


def probs_from_top(top: Iterable[tuple[str, float]], labels: Sequence[str]) -> tuple[dict[str, float], float]:
    """(label -> renormalised probability, coverage) from one position's (token, logprob) alternatives."""
    mass: dict[str, float] = {}
    for token, logprob in top:
        label = label_of_token(token, labels)
        if label is not None and logprob is not None and math.isfinite(logprob):
            mass[label] = mass.get(label, 0.0) + math.exp(logprob)
    covered = sum(mass.values())
    if covered <= 0:
        return {}, 0.0
    return {label: round(m / covered, 6) for label, m in mass.items()}, round(min(1.0, covered), 6)


def first_answer_position(tokens: Sequence[str]) -> int | None:
    """Index of the first generated token that is not blank or markup, or None."""
    for i, token in enumerate(tokens):
        if normalise_token(token):
            return i
    return None


async def label_probs(adapter: Adapter, messages: Sequence[Message], labels: Sequence[str], *,
                      max_tokens: int = 8, top_k: int = DEFAULT_TOP_K, seed: int = 0) -> LabelAnswer:
    """Ask `adapter` the label question `messages` (system + user) and read the labels' probabilities.

    Transport failures propagate as the adapter raises them (TransientError / PermanentError), so a run
    engine retries and records them like any other call.
    """
    if not labels:
        raise ValueError("label_probs needs at least one label")
    kind = getattr(adapter, "kind", "")
    if kind == "openai":
        return await _openai(adapter, messages, labels, max_tokens=max_tokens, top_k=top_k, seed=seed)
    if kind == "llamacpp" and hasattr(adapter, "llama"):
        return await asyncio.to_thread(_llamacpp, adapter, messages, labels, max_tokens, top_k)
    if kind == "hf" and hasattr(adapter, "causal_lm"):
        return await asyncio.to_thread(_hf, adapter, messages, labels, max_tokens, top_k)
    *history, last = list(messages)
    completion = await adapter.ask(last.content, history=history)
    return LabelAnswer(completion.text.strip(), None, None, METHOD_ANSWER, dict(completion.usage))


# --- OpenAI-compatible servers ----------------------------------------------------------------------------

async def _openai(adapter: Any, messages: Sequence[Message], labels: Sequence[str], *, max_tokens: int,
                  top_k: int, seed: int) -> LabelAnswer:
    s = adapter.settings
    body: dict[str, Any] = {"model": s["model"], "messages": [{"role": m.role, "content": m.content} for m in messages],
                            "temperature": 0.0, "seed": seed}
    body["max_completion_tokens" if s.get("max_completion_tokens") is not None else "max_tokens"] = max_tokens
    if s.get("extra_body"):
        body.update(s["extra_body"])
    want = adapter not in _NO_LOGPROBS
    if want:
        body.update(logprobs=True, top_logprobs=max(1, min(int(top_k), DEFAULT_TOP_K)))
    try:
        doc = await adapter.post_chat(body)
    except PermanentError as exc:
        if not (want and _rejects_logprobs(exc.reason)):
            raise
        _NO_LOGPROBS.add(adapter)
        body.pop("logprobs", None)
        body.pop("top_logprobs", None)
        doc = await adapter.post_chat(body)
    from harness.adapters.openai_chat import parse_chat_completion

    completion = parse_chat_completion(doc)
    content = (((doc.get("choices") or [{}])[0] or {}).get("logprobs") or {}).get("content")
    if not isinstance(content, list) or not content:
        return LabelAnswer(completion.text.strip(), None, None, METHOD_ANSWER, dict(completion.usage))
    tokens = [str(t.get("token", "")) if isinstance(t, Mapping) else "" for t in content]
    pos = first_answer_position(tokens)
    if pos is None:
        return LabelAnswer(completion.text.strip(), {}, 0.0, METHOD_LOGPROBS, dict(completion.usage))
    entry = content[pos]
    top = [(str(t.get("token", "")), float(t["logprob"])) for t in entry.get("top_logprobs") or []
           if isinstance(t, Mapping) and isinstance(t.get("logprob"), int | float)]
    if not top and isinstance(entry.get("logprob"), int | float):
        top = [(tokens[pos], float(entry["logprob"]))]
    probs, coverage = probs_from_top(top, labels)
    return LabelAnswer(completion.text.strip(), probs, coverage, METHOD_LOGPROBS, dict(completion.usage))


def _rejects_logprobs(reason: str) -> bool:
    """A 400 that names the parameter: the server does not do log-probabilities (not a malformed call)."""
    low = reason.lower()
    return "logprob" in low and ("400" in low or "not support" in low or "unsupported" in low or "invalid" in low)


# --- in-process models ------------------------------------------------------------------------------------

def _top_of_logits(logits: Any, k: int) -> list[int]:
    import numpy as np

    k = min(k, logits.shape[-1])
    idx = np.argpartition(-logits, k - 1)[:k]
    return [int(i) for i in idx[np.argsort(-logits[idx])]]


def _llamacpp(adapter: Any, messages: Sequence[Message], labels: Sequence[str], max_tokens: int,
              top_k: int) -> LabelAnswer:
    """Generate greedily with llama.cpp; the logits after the prompt are read at the first step."""
    import numpy as np
    from llama_cpp import llama_vocab_is_eog

    llm, lock = adapter.llama()
    with lock:
        tokens = adapter.chat_tokens([{"role": m.role, "content": m.content} for m in messages])
        if len(tokens) + max_tokens > llm.n_ctx():
            raise PermanentError(f"the prompt ({len(tokens)} tokens) does not fit the model's context of {llm.n_ctx()}")
        generated: list[int] = []
        steps: list[Any] = []  # logits at each step until the first answer token is known
        eos = llm.token_eos()
        pieces: list[str] = []
        answer_at: int | None = None
        for token in llm.generate(tokens, temp=0.0, top_k=1, reset=True):
            if answer_at is None:
                steps.append(np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(llm.n_vocab(),)).copy())
            if token == eos or llama_vocab_is_eog(llm._model.vocab, token):
                break
            generated.append(token)
            pieces.append(llm.detokenize([token]).decode("utf-8", errors="ignore"))
            if answer_at is None and normalise_token(pieces[-1]):
                answer_at = len(pieces) - 1
            if len(generated) >= max_tokens:
                break
        text = llm.detokenize(generated).decode("utf-8", errors="ignore").strip()  # a cut character is dropped
        usage = {"prompt_tokens": len(tokens), "completion_tokens": len(generated)}
        if answer_at is None:
            return LabelAnswer(text, {}, 0.0, METHOD_LOGITS, usage)
        logits = steps[answer_at].astype("float64")
        logprobs = logits - np.logaddexp.reduce(logits)
        top = [(llm.detokenize([i]).decode("utf-8", errors="ignore"), float(logprobs[i]))
               for i in _top_of_logits(logits, top_k)]
    probs, coverage = probs_from_top(top, labels)
    return LabelAnswer(text, probs, coverage, METHOD_LOGITS, usage)


def _hf(adapter: Any, messages: Sequence[Message], labels: Sequence[str], max_tokens: int,
        top_k: int) -> LabelAnswer:
    """Greedy generation with transformers, keeping each step's scores until the first answer token."""
    import torch

    loaded = adapter.causal_lm()
    tok = loaded.tokenizer
    chat = [{"role": m.role, "content": m.content} for m in messages]
    if getattr(tok, "chat_template", None):
        text_in = tok.apply_chat_template(chat, tokenize=False, add_generation_prompt=True)
    else:
        text_in = "\n\n".join(m["content"] for m in chat)
    enc = tok(text_in, return_tensors="pt", add_special_tokens=False)
    with loaded.lock, torch.inference_mode():
        out = loaded.model.generate(**enc, max_new_tokens=max_tokens, do_sample=False, temperature=None,
                                    top_p=None, top_k=None, output_scores=True, return_dict_in_generate=True,
                                    pad_token_id=tok.pad_token_id)
    new = out.sequences[0, enc["input_ids"].shape[1]:].tolist()
    eos = {tok.eos_token_id} if tok.eos_token_id is not None else set()
    if eos & set(new):
        new = new[:min(i for i, t in enumerate(new) if t in eos)]
    pieces = [tok.decode([t], skip_special_tokens=True) for t in new]
    usage = {"prompt_tokens": int(enc["input_ids"].shape[1]), "completion_tokens": len(new)}
    text = tok.decode(new, skip_special_tokens=True).strip()
    pos = first_answer_position(pieces)
    if pos is None:
        return LabelAnswer(text, {}, 0.0, METHOD_LOGITS, usage)
    logits = out.scores[pos][0].double()
    logprobs = torch.log_softmax(logits, dim=-1)
    k = min(top_k, logits.shape[-1])
    values, ids = torch.topk(logprobs, k)
    top = [(tok.decode([int(i)], skip_special_tokens=True), float(v)) for v, i in zip(values, ids, strict=True)]
    probs, coverage = probs_from_top(top, labels)
    return LabelAnswer(text, probs, coverage, METHOD_LOGITS, usage)
