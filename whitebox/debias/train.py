"""Fine-tuning with a debiasing objective: the paper's settings, on one CPU or many GPUs alike.

Defaults are the paper's (section 5.2) and upstream's run script: AdamW with lr 5e-5, weight decay 0,
betas (0.9, 0.999), eps 1e-8, 2 epochs, one line per example cut to 36 tokens, and the learning rate
decaying linearly to 0 (the schedule of the transformers Trainer upstream used).

The loop is written against accelerate's Accelerator, never against a device: `accelerate launch -m
harness.cli debias ...` runs the same code on several GPUs (data parallel; gradient accumulation through
`accelerator.accumulate`), and a plain `harness debias` runs it on the CPU. The progress bar (rich,
with ETA) is drawn by the main process only.

LoRA (`lora_rank > 0`, through peft) trains low-rank adapters on every linear layer instead of all the
weights, for models too big to fine-tune whole; the adapters are merged before saving, so the output is
a plain transformers model directory either way.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import torch

from harness.whitebox.debias.batches import Collator
from harness.whitebox.debias.objective import Objective


@dataclass(frozen=True)
class TrainSettings:
    batch_size: int = 8
    grad_accum: int = 1
    lm_hyp: float = 1.0
    debias_hyp: float = 10.0
    epochs: float = 2.0
    learning_rate: float = 5e-5
    weight_decay: float = 0.0
    adam_betas: tuple[float, float] = (0.9, 0.999)
    adam_eps: float = 1e-8
    block_size: int = 36
    max_steps: int | None = None  # optimizer steps; caps the epochs (for smoke runs)
    lora_rank: int = 0  # 0: train every weight
    seed: int = 42

    def point(self) -> dict[str, Any]:
        """The grid coordinates of this run (what model selection varies)."""
        return {"batch_size": self.batch_size, "grad_accum": self.grad_accum, "lm_hyp": self.lm_hyp,
                "debias_hyp": self.debias_hyp}


@dataclass
class TrainLog:
    steps: int = 0
    examples: int = 0
    seconds: float = 0.0
    losses: list[dict[str, float]] = field(default_factory=list)  # one row per logged optimizer step

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def planned_steps(n_examples: int, settings: TrainSettings, processes: int = 1) -> int:
    """Optimizer steps the run will take (what the progress bar counts)."""
    per_epoch = math.ceil(math.ceil(n_examples / (settings.batch_size * processes)) / settings.grad_accum)
    steps = math.ceil(per_epoch * settings.epochs)
    return min(steps, settings.max_steps) if settings.max_steps else steps


def apply_lora(model, rank: int):
    """Wrap the model with LoRA adapters (rank r, alpha 2r) on all linear layers but the output head."""
    from peft import LoraConfig, get_peft_model

    config = LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0, target_modules="all-linear",
                        task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def merge_lora(model):
    """The plain model with the adapters folded into its weights (what gets saved)."""
    return model.merge_and_unload() if hasattr(model, "merge_and_unload") else model


def train(model, tokenizer, sentences: Sequence[str], objective: Objective, collator: Collator,
          settings: TrainSettings, *, progress: Callable[[int, int, dict[str, float]], None] | None = None,
          log_every: int = 10) -> tuple[Any, TrainLog]:
    """Fine-tune `model` on `sentences` with `objective`; returns the trained (unwrapped) model and its log.

    `progress(done, total, losses)` is called after every optimizer step on the main process.
    """
    import time

    from accelerate import Accelerator
    from accelerate.utils import set_seed
    from transformers import get_linear_schedule_with_warmup

    accelerator = Accelerator(gradient_accumulation_steps=settings.grad_accum)
    set_seed(settings.seed)
    if settings.lora_rank > 0:
        model = apply_lora(model, settings.lora_rank)
    model.train()
    order = list(sentences)
    loader = torch.utils.data.DataLoader(order, batch_size=settings.batch_size, shuffle=True,
                                         collate_fn=collator, generator=torch.Generator().manual_seed(settings.seed))
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate, betas=settings.adam_betas,
                                  eps=settings.adam_eps, weight_decay=settings.weight_decay)
    total = planned_steps(len(order), settings, accelerator.num_processes)
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, max(total, 1))
    model, optimizer, loader, scheduler = accelerator.prepare(model, optimizer, loader, scheduler)
    log = TrainLog()
    started = time.monotonic()
    running = {"total": 0.0, "lm": 0.0, "bias": 0.0}
    micro = 0
    epochs = math.ceil(settings.epochs)
    for _epoch in range(epochs):
        for batch in loader:
            with accelerator.accumulate(model):
                parts = objective(model, batch.to(accelerator.device))
                accelerator.backward(parts.total)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            micro += 1
            for key, value in (("total", parts.total), ("lm", parts.lm), ("bias", parts.bias)):
                running[key] += float(value.detach()) / settings.grad_accum
            log.examples += int(batch.input_ids.shape[0])
            if not accelerator.sync_gradients:
                continue
            log.steps += 1
            row = {k: v for k, v in running.items()}
            running = dict.fromkeys(running, 0.0)
            if log.steps % log_every == 0 or log.steps == 1 or log.steps >= total:
                log.losses.append({"step": log.steps, **row})
            if progress is not None and accelerator.is_main_process:
                progress(log.steps, total, row)
            if log.steps >= total:
                break
        if log.steps >= total:
            break
    log.seconds = time.monotonic() - started
    accelerator.wait_for_everyone()
    trained = merge_lora(accelerator.unwrap_model(model))
    trained.eval()
    return trained, log
