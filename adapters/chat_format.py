"""A model's chat template as a function, read from the model's own files (for prompts sent as plain text).

Scoring a chat prompt on a served model goes through the legacy Completions endpoint, which applies no chat
template: the client must render it, exactly as the server would for a chat request. The template comes from
the model the server serves: a .gguf file's `tokenizer.chat_template` (rendered with llama-cpp-python's
Jinja2ChatFormatter, the same renderer the in-process llamacpp adapter uses, so both read the same text), or a
transformers tokenizer's (a model folder or hub id; `apply_chat_template`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError

Formatter = Callable[[Sequence[Mapping[str, str]]], str]


def gguf_formatter(llm: Any) -> Formatter | None:
    """The chat template of a loaded llama_cpp.Llama (vocab only is enough), or None when it has none."""
    template = (llm.metadata or {}).get("tokenizer.chat_template")
    if not template:
        return None
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    vocab = llm._model
    formatter = Jinja2ChatFormatter(template=template, eos_token=vocab.token_get_text(llm.token_eos()),
                                    bos_token=vocab.token_get_text(llm.token_bos()), add_generation_prompt=True)
    return lambda messages: formatter(messages=[dict(m) for m in messages]).prompt


@cache
def model_start_token(source: str) -> str:
    """The text of the start token the in-process targets read a text after, for the model `source` names
    (a .gguf file, a model folder or a hub id; only the vocabulary or tokenizer is loaded): a GGUF's BOS (as
    the llamacpp targets put it first, also when the file does not add it to prompts: SmolLM2's <|im_start|>,
    Qwen's <|endoftext|>), a transformers tokenizer's BOS, else its EOS (as the hf targets do); "" for a model
    with neither. ConfigError (one sentence) when it cannot be read."""
    from harness.adapters.registry import resolve_reference

    path = Path(resolve_reference(source)).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ConfigError(f"chat_template_from: the GGUF file {path} does not exist.")
        from llama_cpp import Llama

        llm = Llama(model_path=str(path), vocab_only=True, verbose=False)
        bos = llm.token_bos()
        return llm._model.token_get_text(bos) if bos != -1 else ""
    tokenizer = _tokenizer(source, path)
    return str(getattr(tokenizer, "bos_token", None) or getattr(tokenizer, "eos_token", None) or "")


def _tokenizer(source: str, path: Path) -> Any:
    try:
        from transformers import AutoTokenizer

        return AutoTokenizer.from_pretrained(str(path) if path.exists() else source)
    except (OSError, ValueError) as exc:
        raise ConfigError(f"chat_template_from: cannot load the tokenizer of '{source}' "
                          f"({' '.join(str(exc).split())[:160]}).") from None


def chat_formatter(source: str) -> Formatter:
    """A formatter for `source`: a .gguf path (or package:/callable: reference to one), a model folder or a
    hub id. ConfigError (one sentence) when it cannot be read or has no chat template."""
    from harness.adapters.registry import resolve_reference

    path = Path(resolve_reference(source)).expanduser()
    if path.suffix == ".gguf":
        if not path.is_file():
            raise ConfigError(f"chat_template_from: the GGUF file {path} does not exist.")
        from llama_cpp import Llama

        formatter = gguf_formatter(Llama(model_path=str(path), vocab_only=True, verbose=False))
        if formatter is None:
            raise ConfigError(f"chat_template_from: {path.name} has no chat template (tokenizer.chat_template).")
        return formatter
    tokenizer = _tokenizer(source, path)
    if not getattr(tokenizer, "chat_template", None):
        raise ConfigError(f"chat_template_from: the tokenizer of '{source}' has no chat template.")
    return lambda messages: tokenizer.apply_chat_template([dict(m) for m in messages], tokenize=False,
                                                          add_generation_prompt=True)
