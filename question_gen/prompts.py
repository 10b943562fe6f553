"""The `prompts` generator: a user's own prompts, one probe each, e.g. to ask them perturbed.

    harness run -s prompts -p file=my_prompts.txt -p perturb=gender -t my-bot

`file` is a text file (one prompt per line) or JSONL (one object per line with "prompt" or "text", and
optionally "id" and "lang"). The probes are free text (kind "prompts"): the oracle reads no stance from the
replies, only refusals (oracles.reference.read_open); with `-p perturb=AXIS` the counterfactual family
compares each reply with its perturbed counterpart (similarity, refusal shift).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.core.records import Probe
from harness.perturb.text import is_chinese

#: the kind these probes are (a user's own prompt: free text, read for refusals only); the name is the contract
#: with the kind's declaration
KIND = "prompts"
SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "file"})


def _prompts(spec: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ConfigError(f"Unknown prompts suite key(s) {', '.join(unknown)}; known: file, lang.")
    if not spec.get("file"):
        raise ConfigError("The prompts suite needs your file of prompts: -p file=PATH (one prompt per line, or "
                          "JSONL with 'prompt').")
    path = Path(str(spec["file"])).expanduser()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise ConfigError(f"Cannot read the prompts file {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"The prompts file {path} is not UTF-8 text (bad byte at position {exc.start}).") from None
    out = []
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        key, lang = str(n), spec.get("lang")
        if path.suffix == ".jsonl":
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                raise ConfigError(f"{path}: line {n} is not JSON (a .jsonl file holds one object per line).") from None
            text = obj.get("prompt", obj.get("text")) if isinstance(obj, dict) else None
            if not isinstance(text, str) or not text.strip():
                raise ConfigError(f"{path}: line {n} has no 'prompt' text.")
            key, lang, line = str(obj.get("id", n)), obj.get("lang", lang), text
        out.append((key, line.strip(), str(lang or ("zh" if is_chinese(line) else "en"))))
    if not out:
        raise ConfigError(f"The prompts file {path} holds no prompt.")
    return out


def generate(spec: Mapping[str, Any], name: str) -> Iterator[Probe]:
    for key, text, lang in _prompts(spec):
        yield Probe.make(name, lang, KIND, "open", text, meta={"prompt_id": key})


def count(spec: Mapping[str, Any]) -> int:
    return len(_prompts(spec))
