"""One training objective per method: lm_hyp * LM + debias_hyp * bias term (CADA/CTDA: the LM loss alone).

The objective holds what it needs from the specification in the model's own vocabulary (token ids of
the target terms, and for HD the bias subspace computed once from the model before any update).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from harness.core.errors import ConfigError
from harness.whitebox.debias import losses
from harness.whitebox.debias.batches import Batch
from harness.whitebox.debias.spec import BiasSpec

LOSS_METHODS = ("lmd", "add", "hd")
DATA_METHODS = ("cada", "ctda")
METHODS = (*LOSS_METHODS, *DATA_METHODS)


def check_method(method: str) -> str:
    key = method.strip().lower()
    if key not in METHODS:
        raise ConfigError(f"Unknown debiasing method '{method}'; choose one of {', '.join(METHODS)}.")
    return key


def output_weight(model) -> Tensor:
    """The output embedding matrix [V, H] of a (possibly wrapped: DDP, peft) causal LM."""
    inner = getattr(model, "module", model)  # DistributedDataParallel keeps the model in .module
    head = inner.get_output_embeddings()
    if head is None:
        head = inner.get_input_embeddings()
    return head.weight


@dataclass
class Losses:
    total: Tensor
    lm: Tensor
    bias: Tensor


class Objective:
    def __init__(self, method: str, model, tokenizer, spec: BiasSpec, *, lm_hyp: float = 1.0,
                 debias_hyp: float = 10.0) -> None:
        self.method = check_method(method)
        self.lm_hyp, self.debias_hyp = float(lm_hyp), float(debias_hyp)
        if self.method in ("add", "hd") and not spec.attributes:
            raise ConfigError(f"{self.method.upper()} needs attribute terms; the specification '{spec.name}' has none.")
        self.t1 = losses.term_ids(tokenizer, [a for a, _ in spec.target_pairs])
        self.t2 = losses.term_ids(tokenizer, [b for _, b in spec.target_pairs])
        self.basis: Tensor | None = None
        if self.method == "hd":
            with torch.no_grad():
                weight = output_weight(model)
                self.basis = losses.bias_subspace(losses.term_embeddings(weight, self.t1.to(weight.device)),
                                                  losses.term_embeddings(weight, self.t2.to(weight.device)))

    @property
    def needs_hidden(self) -> bool:
        return self.method in ("add", "hd")

    def __call__(self, model, batch: Batch) -> Losses:
        out = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, labels=batch.labels,
                    output_hidden_states=self.needs_hidden)
        lm = out.loss
        if self.method in DATA_METHODS:
            return Losses(lm, lm, lm.detach() * 0.0)
        device = out.logits.device
        t1, t2 = self.t1.to(device), self.t2.to(device)
        if self.method == "lmd":
            bias = losses.lmd_loss(out.logits, batch.attention_mask, t1, t2, batch.pair_mask)
        elif self.method == "add":
            weight = output_weight(model)
            bias = losses.add_loss(out.hidden_states[-1], batch.occurrences, losses.term_embeddings(weight, t1),
                                   losses.term_embeddings(weight, t2))
        else:
            bias = losses.hd_loss(out.hidden_states[-1], batch.occurrences, self.basis.to(device))
        return Losses(self.lm_hyp * lm + self.debias_hyp * bias, lm, bias)
