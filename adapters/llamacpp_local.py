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
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter, Completion, Message, PermanentError, settings_fingerprint
from harness.core.errors import ConfigError
from harness.core.model_files import describe_model_file

_MODELS: dict[tuple[str, int, int], tuple[Any, threading.Lock]] = {}
_LOAD_LOCK = threading.Lock()


def _load(model_path: str, n_ctx: int, n_threads: int) -> tuple[Any, threading.Lock]:
    key = (model_path, n_ctx, n_threads)
    with _LOAD_LOCK:
        if key not in _MODELS:
            try:
                from llama_cpp import Llama
            except ImportError as exc:  # pragma: no cover - the setup script installs it
                raise ConfigError("The llamacpp adapter needs llama-cpp-python; run scripts/setup.sh.") from exc
            # n_threads for the prompt too: llama.cpp's default batch threads is every core, and on a busy
            # machine those spin-wait against each other (a 130-token prompt: 52 s on 2 threads, 20 s on 1)
            llm = Llama(model_path=model_path, n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
                        verbose=False, seed=0)
            _MODELS[key] = (llm, threading.Lock())
        return _MODELS[key]


class LlamaCppAdapter(Adapter):
    """Settings: model (a .gguf path or a package:/callable: reference), max_tokens (or
    max_new_tokens), temperature, system_prompt, n_ctx, n_threads."""

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
        self._n_threads = int(self.settings.get("n_threads") or max(1, min(4, os.cpu_count() or 1)))

    def _messages(self, prompt: str, history: Sequence[Message]) -> list[dict[str, str]]:
        messages = [{"role": "system", "content": str(self._system)}] if self._system else []
        messages += [{"role": m.role, "content": m.content} for m in history]
        messages.append({"role": "user", "content": prompt})
        return messages

    def _generate(self, prompt: str, history: Sequence[Message]) -> Completion:
        llm, lock = _load(self._path, self._n_ctx, self._n_threads)
        with lock:
            try:
                out = llm.create_chat_completion(messages=self._messages(prompt, history),
                                                 temperature=self._temperature, max_tokens=self._max_tokens,
                                                 seed=0)
            except ValueError as exc:  # e.g. the prompt does not fit in the context window
                raise PermanentError(f"llama.cpp rejected the prompt: {exc}") from exc
        text = (out["choices"][0]["message"].get("content") or "").strip()
        usage = dict(out.get("usage") or {})
        return Completion(text=text, usage=usage)

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        return await asyncio.to_thread(self._generate, prompt, history)

    def llama(self) -> tuple[Any, threading.Lock]:
        """The loaded model and the lock that serialises its use: harness.adapters.label_probs reads the
        logits of the first answer token, which the chat API hides unless the model keeps every position's."""
        return _load(self._path, self._n_ctx, self._n_threads)

    def chat_tokens(self, messages: Sequence[Mapping[str, str]]) -> list[int]:
        """`messages` as the model was trained to see them (the GGUF's own chat template, generation prompt
        added), tokenised; plain text joined by blank lines for a model without a template."""
        llm, _lock = self.llama()
        template = (llm.metadata or {}).get("tokenizer.chat_template")
        if template:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            vocab = llm._model
            formatter = Jinja2ChatFormatter(template=template, eos_token=vocab.token_get_text(llm.token_eos()),
                                            bos_token=vocab.token_get_text(llm.token_bos()),
                                            add_generation_prompt=True)
            text = formatter(messages=[dict(m) for m in messages]).prompt
            return llm.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        text = "\n\n".join(str(m["content"]) for m in messages)
        return llm.tokenize(text.encode("utf-8"), add_bos=True, special=False)

    def model_info(self) -> dict[str, Any]:
        """The name in the GGUF file's own header (a label in targets.toml can be wrong)."""
        return describe_model_file(self._path)

    def fingerprint(self) -> str:
        # The file name, not the path: the same model answers the same wherever it is installed.
        return settings_fingerprint(self.kind, {**self.settings, "model": Path(self._path).name})
