"""The `hf` adapter: a local transformers model in this process (a model directory or a GGUF file).

This is what makes the harness useful offline and free: the `local` / `local-zh` targets run small chat
models that ship inside PyPI wheels. GGUF files are dequantised by transformers (`gguf_file=`), so the
same loaded model also gives logits, which CBBQ's log-likelihood answer mode and the white-box tools use.

Choices:
  * Greedy decoding by default (temperature 0): a bias measurement should not change between two runs.
  * Batched generation with *left* padding (the new tokens of every row start at the same column);
    `supports_batch = True` tells the run engine to send batches rather than concurrent single calls.
  * Generation runs in a worker thread (asyncio.to_thread) so the event loop keeps writing transcripts
    and drawing progress; one lock per loaded model serialises generations, because two concurrent
    CPU generations only fight over the same cores.
  * A model is loaded once per process and shared by every adapter with the same settings (loading the
    SmolLM2 GGUF takes ~17 s, Qwen2.5-Coder-0.5B ~41 s).
  * An empty generation is returned as an empty answer, not an error: an in-process model has no
    transport that could have failed, and asking again greedily would give the same text.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import re
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter, Completion, Message
from harness.core.errors import ConfigError
from harness.core.model_files import describe_model_file

DEFAULT_MAX_NEW_TOKENS = 128
DEFAULT_BATCH_SIZE = 8
#: Rows per batch on a GPU when the target sets none: a GPU is idle with one sentence; the tokens of a
#: batch are capped further by the memory found (harness.whitebox.perplexity.default_batch_tokens).
GPU_BATCH_SIZE = 64


@dataclass
class LoadedModel:
    model: Any  # transformers PreTrainedModel
    tokenizer: Any  # transformers PreTrainedTokenizerBase, padding_side="left"
    lock: threading.Lock


_LOADED: dict[tuple[str, str, str], LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


#: A Hugging Face hub model id: "org/name" (letters, digits, '.', '_', '-'), as from_pretrained takes it.
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]*[\w-]$")


def is_hub_name(text: str) -> bool:
    """Whether `text` reads as a hub id ("Qwen/Qwen2.5-0.5B") rather than a local path ("./x", "/x", "a.gguf")."""
    return bool(_HUB_ID.match(text)) and ".." not in text and not text.lower().endswith(".gguf")


def model_location(model: str, gguf_file: str | None = None) -> tuple[str, str | None]:
    """(directory or hub id, gguf file name or None) for a model setting: a directory, a .gguf path, a
    reference, or a Hugging Face hub name (loaded from the hub, or its cache, by transformers)."""
    from harness.adapters.registry import resolve_reference

    path = Path(resolve_reference(model)).expanduser()
    if path.is_file() and path.suffix == ".gguf":
        return str(path.parent), path.name
    if not path.is_dir():
        if not path.exists() and is_hub_name(model):
            return model, gguf_file or None
        raise ConfigError(f"The model '{model}' does not exist: it is neither a model directory nor a .gguf file "
                          "(nor a Hugging Face hub name such as Qwen/Qwen2.5-0.5B).")
    if gguf_file and not (path / gguf_file).is_file():
        raise ConfigError(f"The GGUF file {gguf_file} is not in {path}.")
    return str(path), gguf_file or None


def gpu_count() -> int:
    """CUDA devices torch can use here (0 without torch's CUDA build or a GPU)."""
    import torch

    return torch.cuda.device_count() if torch.cuda.is_available() else 0


def default_placement(device_map: str | None = None, dtype: str | None = None) -> tuple[str | None, str]:
    """(device_map, dtype) for a load: with a GPU, "auto" (accelerate spreads the layers over every GPU, then
    the CPU) and bfloat16 (float16 on GPUs without bfloat16); on a CPU, one device and float32 (bfloat16
    matmuls are slower than float32 on most CPUs). "none" asks for a plain load on the CPU."""
    if device_map in ("none", ""):
        device_map = None
    elif device_map is None and gpu_count():
        device_map = "auto"
    if not dtype or dtype == "auto":
        if gpu_count():
            import torch

            dtype = "bfloat16" if torch.cuda.is_bf16_supported() else "float16"
        else:
            dtype = "float32"
    return device_map, dtype


def free_memory_bytes(model: Any) -> int | None:
    """Free memory on the device holding the model's output layer (where the logits are made): CUDA's own
    count on a GPU, the system's available memory on a CPU; None when it cannot be read."""
    device = getattr(model, "device", None)
    try:
        import torch

        if device is not None and getattr(device, "type", "") == "cuda":
            free, _total = torch.cuda.mem_get_info(device)
            return int(free)
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # noqa: BLE001 - no reading: the caller keeps its fixed default
        return None


def load_model(model: str, gguf_file: str | None = None, dtype: str = "float32",
               device_map: str | None = None) -> LoadedModel:
    """Load (once per process) a causal LM and its tokenizer; later calls return the same objects.

    `device_map` is passed to transformers (accelerate places the model: "auto" over every GPU then the CPU,
    or a dict); None loads it whole on the CPU. A model placed by accelerate takes its inputs on
    `model.device`, which every caller uses, so the numbers are the same either way (tested on CPU)."""
    directory, gguf = model_location(model, gguf_file)
    key = (directory, gguf or "", f"{dtype}|{device_map or ''}")
    with _LOAD_LOCK:
        if key in _LOADED:
            return _LOADED[key]
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs: dict[str, Any] = {"gguf_file": gguf} if gguf else {}
        placement: dict[str, Any] = {"device_map": device_map} if device_map else {}
        try:
            with _quiet_loading():
                tokenizer = AutoTokenizer.from_pretrained(directory, **kwargs)
                lm = AutoModelForCausalLM.from_pretrained(directory, dtype=getattr(torch, dtype), **kwargs,
                                                          **placement)
        except ImportError as exc:  # device_map needs accelerate
            raise ConfigError(f"Loading '{directory}' with device_map={device_map!r} needs accelerate "
                              f"(pip install accelerate): {' '.join(str(exc).split())[:160]}") from None
        except (OSError, ValueError) as exc:  # not a model, not on the hub, offline: one sentence, not a traceback
            where = ("" if Path(directory).is_dir()
                     else " (not a local directory, so it was looked up on the Hugging Face hub)")
            reason = " ".join(str(exc).split()).split(". ")[0][:240].rstrip(".")  # its first sentence
            raise ConfigError(f"Cannot load the model '{directory}'{where}: {reason}.") from None
        tokenizer.padding_side = "left"
        if tokenizer.pad_token is None:
            tokenizer.pad_token = tokenizer.eos_token
        lm.eval()
        loaded = LoadedModel(lm, tokenizer, threading.Lock())
        _LOADED[key] = loaded
        return loaded


@contextlib.contextmanager
def _quiet_loading() -> Iterator[None]:
    """Hide transformers' loading progress bars: they would tear through the run's own progress display."""
    from transformers.utils import logging as hf_logging

    gguf_utils = sys.modules.get("transformers.modeling_gguf_pytorch_utils")
    if gguf_utils is None:
        with contextlib.suppress(ImportError):
            import transformers.modeling_gguf_pytorch_utils as gguf_utils
    original = getattr(gguf_utils, "tqdm", None)
    if original is not None:
        gguf_utils.tqdm = functools.partial(original, disable=True)
    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if original is not None:
            gguf_utils.tqdm = original
        if was_enabled:
            hf_logging.enable_progress_bar()


class HFLocalAdapter(Adapter):
    """Settings: model (dir, .gguf path, or "package:"/"callable:" reference), gguf_file, max_new_tokens
    (128), temperature (0 = greedy), top_p, system_prompt, batch_size (8; 64 on a GPU), dtype ("auto":
    bfloat16 on a GPU, float32 on a CPU), device_map ("auto" with a GPU: accelerate spreads the model over
    every GPU then the CPU; "none" for a plain load), threads (torch intra-op threads; default: torch's choice)."""

    kind = "hf"
    supports_batch = True

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        if not self.settings.get("model"):
            raise ConfigError(f"Target '{name}' (hf adapter) needs model = a model directory or .gguf file.")
        self.settings.setdefault("max_new_tokens", DEFAULT_MAX_NEW_TOKENS)
        self.settings.setdefault("temperature", 0.0)
        # Resolve the location now so a missing model is reported when the target is created, but load
        # the weights only on first use (listing or dry-running a target must stay instant).
        self._location = model_location(str(self.settings["model"]), self.settings.get("gguf_file"))
        self._loaded: LoadedModel | None = None

    def model_info(self) -> dict[str, Any]:
        """A GGUF file's own name from its header; else the hub id or folder the weights come from."""
        directory, gguf = self._location
        if gguf:
            return describe_model_file(Path(directory) / gguf)
        return {"name": directory, "source": "the target's model setting (a hub id or a model folder)"}

    @property
    def loaded(self) -> LoadedModel:
        if self._loaded is None:
            if self.settings.get("threads"):
                # Process-wide. On a busy or shared CPU, fewer intra-op threads avoid OpenMP spin-waiting:
                # measured here (2 cores, load 14) one thread ran 4.5x faster than two, at 1/8 the CPU.
                import torch

                torch.set_num_threads(int(self.settings["threads"]))
            directory, gguf = self._location
            device_map, dtype = default_placement(self.settings.get("device_map"), self.settings.get("dtype"))
            self._loaded = load_model(directory, gguf, dtype, device_map)
            if not self.settings.get("batch_size") and gpu_count():
                self.settings["batch_size"] = GPU_BATCH_SIZE  # logits are capped in bytes by free memory anyway
        return self._loaded

    def causal_lm(self) -> LoadedModel:
        """White-box access: the loaded model, tokenizer and the lock that serialises their use.

        The capability the perplexity answer mode asks of a target (harness.run.perplexity, the CHBias
        suites): only an in-process model can give the log-probability of every token of a sentence.
        """
        return self.loaded

    # ------------------------------------------------------------------------------------ prompting

    def chat_text(self, prompt: str, history: Sequence[Message] = ()) -> str:
        """The prompt as the model was trained to see it: its chat template, generation prompt added.

        A tokenizer without a chat template (a base model) gets the system prompt and the prompt as
        plain text, which is what such a model can continue.
        """
        tokenizer = self.loaded.tokenizer
        system = self.settings.get("system_prompt")
        messages = ([{"role": "system", "content": str(system)}] if system else []) + [
            {"role": m.role, "content": m.content} for m in history] + [{"role": "user", "content": prompt}]
        if getattr(tokenizer, "chat_template", None):
            return tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return "\n\n".join(m["content"] for m in messages)

    # ----------------------------------------------------------------------------------- generation

    def generate(self, texts: Sequence[str]) -> list[Completion]:
        """Generate for already-templated texts, in batches of `batch_size` (blocking; call in a thread)."""
        batch_size = max(1, int(self.settings.get("batch_size") or DEFAULT_BATCH_SIZE))
        out: list[Completion] = []
        for start in range(0, len(texts), batch_size):
            out.extend(self._generate_batch(list(texts[start:start + batch_size])))
        return out

    def _generate_batch(self, texts: list[str]) -> list[Completion]:
        import torch

        loaded = self.loaded
        tok = loaded.tokenizer
        s = self.settings
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        temperature = float(s.get("temperature") or 0.0)
        gen_kwargs: dict[str, Any] = {"max_new_tokens": int(s["max_new_tokens"]), "pad_token_id": tok.pad_token_id}
        if temperature > 0:
            gen_kwargs.update(do_sample=True, temperature=temperature, top_p=float(s.get("top_p") or 1.0))
        else:
            gen_kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        with loaded.lock, torch.inference_mode():
            output = loaded.model.generate(**enc, **gen_kwargs)
        new_tokens = output[:, enc["input_ids"].shape[1]:]
        eos_ids = _eos_ids(loaded)
        completions = []
        for row, mask in zip(new_tokens.tolist(), enc["attention_mask"].tolist(), strict=True):
            length = len(row)
            stopped = False
            for i, token in enumerate(row):
                if token in eos_ids:
                    length, stopped = i, True
                    break
            text = tok.decode(row[:length], skip_special_tokens=True).strip()
            completions.append(Completion(text=text, usage={
                "prompt_tokens": int(sum(mask)), "completion_tokens": length,
                "finish_reason": "stop" if stopped else "length"}))
        return completions

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        text = await asyncio.to_thread(self.chat_text, prompt, history)
        return (await asyncio.to_thread(self.generate, [text]))[0]

    async def ask_batch(self, prompts: Sequence[str]) -> list[Completion]:
        def work() -> list[Completion]:
            return self.generate([self.chat_text(p) for p in prompts])

        return await asyncio.to_thread(work)

    # ------------------------------------------------------------------------------ log-likelihoods

    def loglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """Sum of log-probabilities of each continuation right after the chat-templated prompt.

        Used by CBBQ's log-likelihood answer mode (score " A" / " B" / " C" or the option texts instead
        of parsing free text). Tokenised as lm-evaluation-harness does: the pair is encoded as one string
        and the continuation's tokens are those past the prompt's own encoding, so a token that merges
        across the boundary is still counted once. Blocking; use `aloglikelihoods` from async code.
        """
        import torch

        if not continuations:
            return []
        loaded = self.loaded
        tok = loaded.tokenizer
        context = self.chat_text(prompt)
        rows: list[tuple[list[int], int]] = []  # (token ids, number of continuation tokens)
        for continuation in continuations:
            ctx, cont = context, continuation
            stripped = len(ctx) - len(ctx.rstrip(" "))  # move trailing spaces onto the continuation
            if stripped:
                ctx, cont = ctx[:-stripped], ctx[-stripped:] + cont
            context_ids = tok(ctx, add_special_tokens=False)["input_ids"]
            whole_ids = tok(ctx + cont, add_special_tokens=False)["input_ids"]
            n_cont = len(whole_ids) - len(context_ids)
            if n_cont <= 0 or whole_ids[:len(context_ids)] != context_ids:
                # Boundary merged into the prompt's last token: fall back to separate encodings.
                cont_ids = tok(cont, add_special_tokens=False)["input_ids"]
                whole_ids, n_cont = context_ids + cont_ids, len(cont_ids)
            if n_cont == 0:
                raise ValueError(f"continuation {continuation!r} encodes to no tokens")
            rows.append((whole_ids, n_cont))
        width = max(len(ids) for ids, _ in rows)
        pad = tok.pad_token_id if tok.pad_token_id is not None else 0
        input_ids = torch.tensor([ids + [pad] * (width - len(ids)) for ids, _ in rows])
        attention = torch.tensor([[1] * len(ids) + [0] * (width - len(ids)) for ids, _ in rows])
        # Only the positions that predict a continuation token need logits: over a 150,000-token vocabulary the
        # whole prompt's logits were most of the memory (3 rows of 250 tokens: 0.9 GB with the log-softmax).
        keep = ({"logits_to_keep": width - min(len(ids) - n_cont - 1 for ids, n_cont in rows)}
                if "logits_to_keep" in inspect.signature(loaded.model.forward).parameters else {})
        with loaded.lock, torch.inference_mode():
            logits = loaded.model(input_ids=input_ids, attention_mask=attention, **keep).logits.float()
        first = width - logits.shape[1]  # the position of the first logit returned
        logprobs = torch.log_softmax(logits, dim=-1)
        scores = []
        for i, (ids, n_cont) in enumerate(rows):
            positions = torch.arange(len(ids) - n_cont, len(ids))
            targets = torch.tensor(ids[len(ids) - n_cont:])
            scores.append(float(logprobs[i, positions - 1 - first, targets].sum()))
        return scores

    async def aloglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        return await asyncio.to_thread(self.loglikelihoods, prompt, continuations)


def _eos_ids(loaded: LoadedModel) -> set[int]:
    ids: set[int] = set()
    for source in (loaded.tokenizer.eos_token_id, getattr(loaded.model.generation_config, "eos_token_id", None)):
        if isinstance(source, int):
            ids.add(source)
        elif isinstance(source, list | tuple):
            ids.update(int(x) for x in source)
    return ids
