"""The `llamacpp` adapter: a GGUF chat model run in this process by llama.cpp (llama-cpp-python).

Why a second local adapter beside `hf`: transformers dequantises a GGUF file to float32 and generates
with PyTorch, which is right for logits and white-box work but slow on a laptop CPU; llama.cpp runs the
quantised weights directly and answers a short chat turn several times faster. The offline `local`
targets therefore use this adapter for the main job, and `hf` stays for log-likelihoods.

Choices:
  * Greedy decoding (temperature 0) by default: a bias measurement should not change between runs.
  * One model per process per settings, shared by every adapter instance; generation runs in a worker
    thread under a lock (llama.cpp contexts are not thread-safe, and two CPU generations only fight
    over the same cores).
  * The chat template embedded in the GGUF file is used, so each model is asked the way it was trained.
  * Threads are chosen from the cores this process may use and the load found when the model is loaded
    (`choose_threads`), unless `n_threads` is set: llama.cpp's threads meet at a barrier after every
    operation and spin while they wait, so one thread more than there are free cores makes all of them
    wait for the slowest. On 2 cores at load 13 the default (2 threads) took 104 s per probe and one
    thread 3.0 s (1.0 s idle): a busy machine should slow a run in proportion, not by 100x.
"""

from __future__ import annotations

import asyncio
import math
import os
import statistics
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter, Completion, Message, PermanentError, settings_fingerprint
from harness.core.errors import ConfigError
from harness.core.model_files import describe_model_file

#: Most threads chosen automatically: a 135M-0.5B model gains little beyond four on a CPU.
MAX_AUTO_THREADS = 4
#: How long the run queue is sampled when choosing threads (a tenth of a second, once per model load).
_RUN_QUEUE_SAMPLES, _RUN_QUEUE_GAP_S = 9, 0.012

_MODELS: dict[tuple[str, int, int | None], tuple[Any, threading.Lock, ThreadChoice]] = {}
_LOAD_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class ThreadChoice:
    """How many threads llama.cpp runs, and why (shown by benchmarks and kept in the model's record)."""

    threads: int
    reason: str


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity: a container or `taskset` may allow fewer than exist)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def _run_queue() -> float | None:
    """Runnable tasks right now besides this one (/proc/loadavg's 4th field, median of a few reads), or None.

    Why besides the load average: the 1-minute average lags, so work that started a few seconds ago (the
    benchmark's busy processes, another job) is missing from it; the run queue sees it at once."""
    counts = []
    try:
        for i in range(_RUN_QUEUE_SAMPLES):
            with open("/proc/loadavg", encoding="ascii") as fh:
                counts.append(int(fh.read().split()[3].split("/")[0]) - 1)  # minus the reader itself
            if i + 1 < _RUN_QUEUE_SAMPLES:
                time.sleep(_RUN_QUEUE_GAP_S)
    except (OSError, ValueError, IndexError):
        return None
    return float(statistics.median(counts))


def current_load() -> float:
    """Other work competing for the CPU now: the larger of the 1-minute load average and the run queue."""
    try:
        average = os.getloadavg()[0]
    except (AttributeError, OSError):
        average = 0.0
    queue = _run_queue()
    return max(average, queue if queue is not None else 0.0)


def choose_threads(cores: int | None = None, load: float | None = None, *,
                   cap: int = MAX_AUTO_THREADS) -> ThreadChoice:
    """One thread per usable core that the load leaves free (rounded), at least one and at most `cap`.

    llama.cpp's threads meet at a barrier after every operation and spin while they wait, so a thread that
    the scheduler parks behind other work stalls all the others: on 2 cores at load 13, two threads took
    104 s per probe and one thread 3.0 s. Fewer threads than free cores costs little in comparison (idle,
    one thread is about 1.5x slower than two on this model), so the choice errs towards fewer.
    """
    cores = usable_cores() if cores is None else max(1, cores)
    load = current_load() if load is None else max(0.0, load)
    threads = max(1, min(cores, cap, math.floor(cores - load + 0.5)))
    return ThreadChoice(threads, f"{threads} thread(s): {cores} usable core(s), load {load:.1f} when loaded")


def _load(model_path: str, n_ctx: int, n_threads: int | None) -> tuple[Any, threading.Lock, ThreadChoice]:
    """The model for these settings, loaded once per process; n_threads None chooses threads now."""
    key = (model_path, n_ctx, n_threads)
    with _LOAD_LOCK:
        if key not in _MODELS:
            try:
                from llama_cpp import Llama
            except ImportError as exc:  # pragma: no cover - the setup script installs it
                raise ConfigError("The llamacpp adapter needs llama-cpp-python; run scripts/setup.sh.") from exc
            choice = (ThreadChoice(n_threads, f"{n_threads} thread(s): the target's n_threads setting")
                      if n_threads else choose_threads())
            # n_threads for the prompt too: llama.cpp's default batch threads is every core, and on a busy
            # machine those spin-wait against each other (a 130-token prompt: 52 s on 2 threads, 20 s on 1)
            llm = Llama(model_path=model_path, n_ctx=n_ctx, n_threads=choice.threads,
                        n_threads_batch=choice.threads, verbose=False, seed=0)
            _MODELS[key] = (llm, threading.Lock(), choice)
        return _MODELS[key]


class LlamaCppAdapter(Adapter):
    """Settings: model (a .gguf path or a package:/callable: reference), max_tokens (or
    max_new_tokens), temperature, system_prompt, n_ctx, n_threads (a positive integer, or "auto", the
    default: chosen from the usable cores and the load when the model is loaded, see choose_threads)."""

    kind = "llamacpp"

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, settings)
        from harness.adapters.registry import resolve_reference

        model = str(self.settings.get("model") or "")
        path = Path(resolve_reference(model)).expanduser() if model else Path()
        if not model or not path.is_file():
            raise ConfigError(f"Target '{name}': the model '{model}' is not a GGUF file.")
        self._path = str(path)
        # `max_new_tokens` is accepted too, so a targets.toml written for the hf adapter keeps working.
        self._max_tokens = int(self.settings.get("max_tokens") or self.settings.get("max_new_tokens") or 96)
        self._temperature = float(self.settings.get("temperature", 0.0))
        self._system = self.settings.get("system_prompt")
        self._n_ctx = int(self.settings.get("n_ctx", 2048))
        self._n_threads = _thread_setting(name, self.settings.get("n_threads"))

    def _messages(self, prompt: str, history: Sequence[Message]) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": str(self._system)}] if self._system else []
        messages += [{"role": m.role, "content": m.content} for m in history]
        messages.append({"role": "user", "content": prompt})
        return messages

    def _generate(self, prompt: str, history: Sequence[Message]) -> Completion:
        llm, lock, _choice = _load(self._path, self._n_ctx, self._n_threads)
        with lock:
            try:
                out = llm.create_chat_completion(messages=self._messages(prompt, history),
                                                 temperature=self._temperature, max_tokens=self._max_tokens,
                                                 seed=0)
            except ValueError as exc:  # e.g. the prompt does not fit in the context window
                raise PermanentError(f"llama.cpp rejected the prompt: {exc}") from exc
        text = (out["choices"][0]["message"].get("content") or "").strip()
        usage = dict(out.get("usage") or {})
        if out["choices"][0].get("finish_reason"):  # "length" when max_tokens cut the reply (Reply.was_cut)
            usage["finish_reason"] = out["choices"][0]["finish_reason"]
        return Completion(text=text, usage=usage)

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        return await asyncio.to_thread(self._generate, prompt, history)

    def llama(self) -> tuple[Any, threading.Lock]:
        """The loaded model and the lock that serialises its use: harness.adapters.label_probs reads the
        logits of the first answer token, which the chat API hides unless the model keeps every position's."""
        llm, lock, _choice = _load(self._path, self._n_ctx, self._n_threads)
        return llm, lock

    def thread_choice(self) -> ThreadChoice:
        """The threads llama.cpp runs for this target (loads the model if it is not loaded yet)."""
        return _load(self._path, self._n_ctx, self._n_threads)[2]

    def chat_text(self, messages: Sequence[Mapping[str, str]]) -> str | None:
        """`messages` rendered by the GGUF's own chat template, generation prompt added; None without one."""
        llm, _lock = self.llama()
        from harness.adapters.chat_format import gguf_formatter

        formatter = gguf_formatter(llm)
        return formatter(messages) if formatter is not None else None

    def chat_tokens(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        """`messages` as the model was trained to see them (the GGUF's own chat template, generation prompt
        added), tokenised; plain text joined by blank lines for a model without a template."""
        llm, _lock = self.llama()
        text = self.chat_text(messages)
        if text is not None:
            return llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        text = "\n\n".join(str(m["content"]) for m in messages)
        return llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)

    # -- prompt log-probabilities from the model's own logits (the quantised weights, never dequantised) ----
    def engine_tokens(self, text: str) -> list[int]:
        """`text` as scored: the model's start token (BOS, also when the GGUF does not add it to prompts:
        SmolLM2's <|im_start|>, Qwen's <|endoftext|>; not doubled when the text begins with it), then the text
        with special tokens parsed, as llama.cpp's server reads a Completions prompt. A server over the same
        GGUF given the start token's text first (the harness learns it: harness.adapters.served_logprobs) scores
        the same tokens (docs/big_models.md)."""
        llm, _lock = self.llama()
        tokens = llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        bos = llm.token_bos()
        return ([bos] if bos != -1 and tokens[:1] != [bos] else []) + tokens

    @property
    def start_token_text(self) -> str:
        """The text of the start token every scored text is read after (engine_tokens), "" for a model with none;
        recorded with each CHBias reply, as a served target records the one it learned."""
        llm, _lock = self.llama()
        bos = llm.token_bos()
        return llm._model.token_get_text(bos) if bos != -1 else ""

    def score_continuations_sync(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        """ScoredText of each continuation after its context (harness.adapters.prompt_logprobs: the tokens of
        context + continuation past the context's own count), from this model's logits. Blocking."""
        from harness.adapters.prompt_logprobs import PromptTokens, continuation_tokens, score_tail

        llm, lock = self.llama()
        out = []
        with lock:
            for context, continuation in pairs:
                whole = self.engine_tokens(context + continuation)
                n_cont = continuation_tokens(len(self.engine_tokens(context)), len(whole))
                if len(whole) > llm.n_ctx():
                    raise PermanentError(f"{len(whole)} tokens, longer than the model's context of {llm.n_ctx()}")
                values = _token_logprobs(llm, whole, first=max(1, len(whole) - n_cont))
                out.append(score_tail(PromptTokens([""] * len(whole), values), n_cont, what=repr(continuation[:40])))
        return out

    async def score_continuations(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        return await asyncio.to_thread(self.score_continuations_sync, pairs)

    def loglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """CBBQ's log-likelihood answers: each continuation's summed log-probability after the chat-templated
        prompt (the same text a server over this GGUF is sent; harness.adapters.served_logprobs). Blocking."""
        from harness.adapters.prompt_logprobs import split_context

        messages = self._messages(prompt, ())
        context = self.chat_text(messages) or "\n\n".join(m["content"] for m in messages)
        return [s.logprob for s in self.score_continuations_sync([split_context(context, c) for c in continuations])]

    async def aloglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        return await asyncio.to_thread(self.loglikelihoods, prompt, continuations)

    def model_info(self) -> dict[str, Any]:
        """The name in the GGUF file's own header (a label in targets.toml can be wrong), and the threads
        llama.cpp runs with and why (a run's speed depends on them: see choose_threads)."""
        return {**describe_model_file(self._path), "threads": self.thread_choice().reason}

    def fingerprint(self) -> str:
        # The file name, not the path: the same model answers the same wherever it is installed.
        return settings_fingerprint(self.kind, {**self.settings, "model": Path(self._path).name})


def _thread_setting(name: str, value: Any) -> int | None:
    """n_threads as set in targets.toml: None for automatic (unset, 0 or "auto"), else a positive integer."""
    if value in (None, 0, "", "auto"):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"Target '{name}': n_threads must be a positive integer or \"auto\", not {value!r}.")
    return value


def _token_logprobs(llm: Any, tokens: Sequence[int], *, first: int = 1) -> list[float | None]:
    """The log-probability of each token given those before it (None before `first`), from llama.cpp's logits
    of every position: the tokens are decoded in batches of n_batch with every position's logits kept, which
    the `Llama` object otherwise keeps only with logits_all=True (n_ctx x vocabulary floats for the model's
    life: 1.2 GB for Qwen's 151,936 words). Call under the model's lock; leaves the context empty."""
    import numpy as np

    n_vocab = llm.n_vocab()
    values: list[float | None] = [None] * len(tokens)
    llm.reset()
    llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    try:
        for start in range(0, len(tokens), llm.n_batch):
            chunk = list(tokens[start:start + llm.n_batch])
            llm._batch.set_batch(batch=chunk, n_past=start, logits_all=True)
            llm._ctx.decode(llm._batch)
            logits = np.ctypeslib.as_array(llm._ctx.get_logits(), shape=(len(chunk), n_vocab))
            for row in range(len(chunk)):
                target = start + row + 1  # the logits after token i predict token i + 1
                if first <= target < len(tokens):
                    scores = logits[row].astype(np.float64)
                    top = scores.max()
                    values[target] = float(scores[tokens[target]] - top - np.log(np.exp(scores - top).sum()))
    finally:
        llm.reset()
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
    return values

