"""Load a causal LM to fine-tune: a directory, a .gguf file, an hf target name, or a hub name.

The hf adapter caches one shared, frozen copy of each model for generation and scoring; debiasing
changes the weights, so it loads its own float32 copy here (GGUF files are dequantised by transformers).
A name that is not on disk is tried on the Hugging Face hub only when it looks like one (`owner/name`);
anything else that does not exist is a one-sentence error, before any time is spent.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.hf_local import _quiet_loading
from harness.adapters.registry import load_targets, resolve_reference
from harness.core.errors import ConfigError

_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


@dataclass
class Located:
    source: str  # a directory or a hub name
    gguf_file: str | None
    label: str


def locate(model: str) -> Located:
    """Where a --model value points, or a ConfigError saying why it points nowhere."""
    value = model.strip()
    if not value:
        raise ConfigError("The model is empty; give a model directory, a .gguf file, an hf target or a hub name.")
    targets = load_targets()
    if value in targets and targets[value].adapter == "hf":
        value = targets[value].model
    path = Path(resolve_reference(value)).expanduser()
    if path.is_file():
        if path.suffix != ".gguf":
            raise ConfigError(f"The model file {path} is not a .gguf file; give its directory instead.")
        return Located(str(path.parent), path.name, path.name)
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise ConfigError(f"The directory {path} holds no config.json: it is not a transformers model.")
        return Located(str(path), None, path.name)
    if _HUB_NAME.match(model.strip()) and not model.strip().startswith((".", "~")):
        return Located(model.strip(), None, model.strip())
    raise ConfigError(f"The model path {model} does not exist.")


def load(located: Located, dtype: str = "float32") -> tuple[Any, Any]:
    """(model, tokenizer) in train-ready form: float32 by default, a pad id set for generation."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.set_verbosity_error()  # the command draws its own progress; loading bars would break it up
    hf_logging.disable_progress_bar()

    kwargs: dict[str, Any] = {"gguf_file": located.gguf_file} if located.gguf_file else {}
    try:
        with _quiet_loading():  # GGUF dequantisation draws its own tqdm bar
            tokenizer = AutoTokenizer.from_pretrained(located.source, **kwargs)
            model = AutoModelForCausalLM.from_pretrained(located.source, dtype=getattr(torch, dtype), **kwargs)
    except (OSError, ValueError) as exc:  # not a model, not on the hub, offline
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ConfigError(f"The model {located.label} could not be loaded ({first}).") from None
    if located.gguf_file:
        _drop_gguf_quantizer(model)
    if tokenizer.pad_token_id is None and tokenizer.eos_token_id is not None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def _drop_gguf_quantizer(model) -> None:
    """transformers dequantises a GGUF file to plain float tensors but leaves its GGUF "quantizer" on the
    model, and save_pretrained refuses such a model ("not serializable"). The weights are ordinary
    tensors, so the debiased model is saved as a plain safetensors checkpoint without that mark."""
    model.hf_quantizer = None
    if getattr(model, "is_quantized", False):
        with contextlib.suppress(AttributeError):  # a read-only property in some versions (reads hf_quantizer)
            model.is_quantized = False
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
