"""Perplexity of generated continuations under the vanilla model (Table 3's PPL column).

The paper trained a KenLM model on the vanilla generations of each attribute and scored every model's
generations with it. Here the reference is the vanilla language model itself: each continuation's tokens
are scored after its prompt, rendered exactly as the generating model saw it (plain text for a base model,
the chat template with the one-line instruction for a chat model), and the perplexity is
exp(total negative log-likelihood / total tokens) over all continuations. Lower is more fluent *by the
vanilla model's standard*; calibration moves away from it by design, so some rise is expected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import torch

from harness.adapters.generation import hf_input_text
from harness.core.generation import GenerationRequest


@torch.no_grad()
def continuation_perplexity(model: Any, tokenizer: Any, items: Sequence[tuple[GenerationRequest, str]]) -> float | None:
    """Corpus perplexity of the continuations (request, generated text); None when no token was scored."""
    total, count = 0.0, 0
    for request, continuation in items:
        if not continuation.strip():
            continue
        context, templated = hf_input_text(tokenizer, request)
        ctx_ids = tokenizer(context, add_special_tokens=not templated)["input_ids"]
        sep = "" if templated else " "
        cont_ids = tokenizer(sep + continuation.strip(), add_special_tokens=False)["input_ids"]
        if not cont_ids:
            continue
        ids = torch.tensor([ctx_ids + cont_ids], device=model.device)
        logits = model(input_ids=ids).logits[0, len(ctx_ids) - 1:-1].float()
        targets = ids[0, len(ctx_ids):]
        total += float(torch.nn.functional.cross_entropy(logits, targets, reduction="sum"))
        count += len(cont_ids)
    return math.exp(total / count) if count else None
