"""A probe that asks for a *continuation* of a text, with its own sampling settings.

Most probes are questions: the target answers `probe.text` with its own settings. A generation probe
(the political-bias suites) instead carries, in `probe.meta["generation"]`, how the text should be
continued: how many new tokens, the temperature and top-k / top-p of sampling, a seed per sample, and
whether to continue the text as it is (base models) or to ask a chat model to continue it after a one-line
instruction. The suite writes it (harness.question_gen.political); the run engine hands it to the target
(harness.adapters.generation); the response cache keys on it, so the ten samples of one prompt are ten
answers and not one answer cached ten times.

Why in core: question generation writes this and the adapters read it, and neither may import the other.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

META_KEY = "generation"
STYLE_AUTO, STYLE_CONTINUE, STYLE_INSTRUCT = "auto", "continue", "instruct"
STYLES = (STYLE_AUTO, STYLE_CONTINUE, STYLE_INSTRUCT)
DEFAULT_INSTRUCTION = "Continue the following text. Reply with the continuation only, without repeating it."


@dataclass(frozen=True)
class GenerationRequest:
    """How to continue `text`.

    style  auto: continue as text on a base model (no chat template), with the instruction on a chat
           model; continue / instruct force one way (an API chat target can only be instructed).
    seed   per sample, so a sample is reproducible where the target honours seeds.
    """

    text: str
    max_new_tokens: int = 40
    temperature: float = 1.0
    top_k: int | None = 50
    top_p: float | None = None
    seed: int = 0
    style: str = STYLE_AUTO
    instruction: str = DEFAULT_INSTRUCTION

    def chat_prompt(self) -> str:
        """What a chat model is asked: the one-line instruction, then the text to continue."""
        return f"{self.instruction}\n\n{self.text}"

    def settings(self) -> dict[str, Any]:
        """The sampling settings (everything but the text), as stored in probe meta."""
        data = asdict(self)
        data.pop("text")
        return data

    def cache_text(self) -> str:
        """The response-cache key's prompt part: the text and every setting that changes the answer."""
        return json.dumps([self.text, self.settings()], sort_keys=True, ensure_ascii=False)


def request_from_meta(text: str, meta: Mapping[str, Any]) -> GenerationRequest | None:
    """The request a probe carries, or None for an ordinary question."""
    raw = meta.get(META_KEY)
    if not isinstance(raw, Mapping):
        return None
    known = set(GenerationRequest.__dataclass_fields__) - {"text"}
    return GenerationRequest(text=text, **{k: v for k, v in raw.items() if k in known})
