"""f_debias of MODE 2: a classifier head on the language model's own hidden states.

The paper trained a GPT-2-medium encoder plus dense(1024, 1024) - tanh - dense(1024, 2) on Media Cloud
news. Here the LM stays frozen and only the head (dense(d, d) - tanh - dense(d, 2)) is trained, on the mean
of the LM's final hidden states over a text's tokens (the "accumulated" h_{1:t} of eq. 8). During generation
the same mean is taken over the tokens generated so far, so the head reads what it was trained on, and its
gradient reaches the current step's hidden state.

Training data: texts with P(conservative) targets in [0, 1], from a judge (the probability itself, a soft
target) or a user's corpus (0 / 1 labels). A seeded fifth of the texts is held out: the head is kept at the
epoch with the best held-out loss, and its held-out accuracy (against target >= 0.5) is reported beside the
majority-class baseline, so a head that learnt nothing says so. Saved as a .pt file with a .json of what it
was trained on, beside the model (head_path()).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from harness.core.errors import ConfigError
from harness.core.paths import cache_dir


class DebiasHead(nn.Module):
    def __init__(self, dim: int, hidden: int | None = None) -> None:
        super().__init__()
        hidden = hidden or dim
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, 2))

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)

    def p_conservative(self, features: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.forward(features), dim=-1)[..., 1]


def base_model(model: Any) -> Any:
    """The decoder without its LM head (GPT-2's `transformer`, Llama's `model`): its last_hidden_state is
    the final-norm output the LM head reads."""
    return model.base_model


@torch.no_grad()
def text_features(model: Any, tokenizer: Any, texts: Sequence[str],
                  prompts: Sequence[str] | None = None) -> torch.Tensor:
    """(n, d) mean final hidden state over each text's tokens, read after its prompt when one is given."""
    rows = []
    device = model.device
    for i, text in enumerate(texts):
        prompt = prompts[i] if prompts else ""
        p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"] if prompt else []
        t_ids = tokenizer((" " if prompt and not text.startswith(" ") else "") + text,
                          add_special_tokens=False)["input_ids"] or [tokenizer.eos_token_id]
        ids = torch.tensor([p_ids + t_ids], device=device)
        hidden = base_model(model)(input_ids=ids).last_hidden_state[0, len(p_ids):]
        rows.append(hidden.float().mean(0))
    return torch.stack(rows).cpu()


@dataclass
class HeadReport:
    n_train: int
    n_validation: int
    validation_accuracy: float
    majority_baseline: float
    validation_loss: float
    epochs: int
    conservative_share: float  # of all targets >= 0.5


def train_head(features: torch.Tensor, targets: Sequence[float], *, seed: int = 0, epochs: int = 200,
               lr: float = 1e-3, validation_share: float = 0.2) -> tuple[DebiasHead, HeadReport]:
    """Fit the head with soft cross-entropy; the best epoch on the held-out texts is kept (module docstring)."""
    y = torch.tensor([float(t) for t in targets])
    n = len(y)
    labels = (y >= 0.5).long()
    if n < 10 or labels.sum() == 0 or labels.sum() == n:
        raise ConfigError(f"f_debias needs texts of both leanings to learn from (got {n} texts, "
                          f"{int(labels.sum())} leaning conservative); label more or other texts.")
    gen = torch.Generator().manual_seed(seed)
    order = torch.randperm(n, generator=gen)
    n_val = max(2, int(round(n * validation_share)))
    val, train = order[:n_val], order[n_val:]
    x = features.float()
    mean, std = x[train].mean(0), x[train].std(0).clamp_min(1e-6)
    torch.manual_seed(seed)
    head = Standardised(DebiasHead(x.shape[1]), mean, std)
    opt = torch.optim.Adam(head.parameters(), lr=lr, weight_decay=1e-4)
    soft = torch.stack([1 - y, y], dim=1)
    best: tuple[float, dict[str, torch.Tensor], int] = (float("inf"), {}, 0)
    for epoch in range(1, epochs + 1):
        head.train()
        opt.zero_grad()
        loss = -(soft[train] * torch.log_softmax(head(x[train]), -1)).sum(-1).mean()
        loss.backward()
        opt.step()
        head.eval()
        with torch.no_grad():
            val_loss = float(-(soft[val] * torch.log_softmax(head(x[val]), -1)).sum(-1).mean())
        if val_loss < best[0]:
            best = (val_loss, {k: v.clone() for k, v in head.state_dict().items()}, epoch)
    head.load_state_dict(best[1])
    head.eval()
    with torch.no_grad():
        predicted = (head.p_conservative(x[val]) >= 0.5).long()
    share = float(labels[val].float().mean())
    report = HeadReport(n_train=len(train), n_validation=n_val,
                        validation_accuracy=float((predicted == labels[val]).float().mean()),
                        majority_baseline=max(share, 1 - share), validation_loss=best[0], epochs=best[2],
                        conservative_share=float(labels.float().mean()))
    return head, report


class Standardised(nn.Module):
    """The head behind a fixed standardisation of its input (the training features' mean and std)."""

    def __init__(self, head: DebiasHead, mean: torch.Tensor, std: torch.Tensor) -> None:
        super().__init__()
        self.head = head
        self.register_buffer("mean", mean.clone())
        self.register_buffer("std", std.clone())

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        return self.head((features - self.mean) / self.std)

    def p_conservative(self, features: torch.Tensor) -> torch.Tensor:
        return torch.softmax(self.forward(features), dim=-1)[..., 1]


def head_path(model_name: str, labeller: str) -> Path:
    """Where a model's head trained from `labeller` (a judge fingerprint or a corpus hash) is kept."""
    slug = re.sub(r"[^\w.-]+", "_", Path(model_name).name or model_name).strip("_")[:80]
    key = hashlib.sha256(f"{model_name}\x1f{labeller}".encode()).hexdigest()[:10]
    return cache_dir() / "calibration" / slug / f"f_debias-{key}.pt"


def save_head(head: Standardised, path: Path, info: dict[str, Any], report: HeadReport) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    dim = head.mean.shape[0]
    torch.save({"dim": dim, "state": head.state_dict()}, path)
    path.with_suffix(".json").write_text(json.dumps({**info, "report": asdict(report)}, indent=2), "utf-8")
    return path


def load_head(path: Path | str, dim: int) -> Standardised:
    """A saved head for a model of hidden size `dim` (ConfigError when missing or made for another model)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"No f_debias head at {path}; train one with `harness calibrate --mode 2 --judge J`.")
    blob = torch.load(path, map_location="cpu", weights_only=True)
    if int(blob["dim"]) != dim:
        raise ConfigError(f"The f_debias head {path} was trained for hidden size {blob['dim']}, not {dim}.")
    head = Standardised(DebiasHead(dim), torch.zeros(dim), torch.ones(dim))
    head.load_state_dict(blob["state"])
    return head.eval()
