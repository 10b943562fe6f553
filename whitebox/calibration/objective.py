"""The quantities of Algorithm 1 (Liu et al., AAAI 2021, section 4), as functions of one step's hidden state.

Notation: h is the step's final hidden state (after the model's last norm, what the LM head reads), h_d =
h + delta the calibrated one, pi = softmax(lm_head(h)) the vanilla policy, pi_d = softmax(lm_head(h_d)).

* eq. 6  dist(x, w) = -log softmax(h_d . emb(w))[w], the softmax over the whole vocabulary of the hidden
         state's inner products with the input embeddings (the LM's own logits for a tied model).
* eq. 5  D1 = (sum_{w in L} dist)^2 + (sum_{w in C} dist)^2 - |sum_{w in L} dist - sum_{w in C} dist|:
         each sum is one number, so the squared L2 norms are squares and the L1 norm an absolute value.
* eq. 8  r_i = -[y log P(y=1 | h_i) + (1 - y) log P(y=0 | h_i)], y = 1 when P(y=1) > 0.5 (a constant, not
         differentiated): the cross-entropy against the side the classifier leans to, largest at 0.5.
* eq. 7  D2 = 1/(tau+1) sum_{i=t-tau}^{t} gamma^(t-i) r_i; in the first tau steps the window holds fewer
         terms and is divided by their number (the paper's exact 1/t form for t <= tau + 1).
* eq. 4  R = pi_d(a_t) / pi(a_t) * D, a_t the vanilla policy's action at this step.
* KL     KL(pi || pi_d) = sum pi (log pi - log pi_d), the constraint of eq. 9.
* Alg. 1 lambda_{t+1} = lambda_t / 2 if KL >= 2 sigma, 2 lambda_t if KL <= sigma / 2, else unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
import torch.nn.functional as F


def log_policy(h: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
    """log softmax of the LM head's logits for hidden states h (..., d)."""
    return torch.log_softmax(F.linear(h, weight, bias), dim=-1)


def word_distance_sums(h: torch.Tensor, embeddings: torch.Tensor, liberal: Sequence[int],
                       conservative: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    """(sum of dist to the liberal words, to the conservative words), eq. 6 summed per side."""
    logp = torch.log_softmax(h @ embeddings.T, dim=-1)
    lib = -logp[..., list(liberal)].sum(-1)
    con = -logp[..., list(conservative)].sum(-1)
    return lib, con


def gain_mode1(h: torch.Tensor, embeddings: torch.Tensor, liberal: Sequence[int],
               conservative: Sequence[int]) -> torch.Tensor:
    """D1 of eq. 5 for hidden states h (..., d)."""
    lib, con = word_distance_sums(h, embeddings, liberal, conservative)
    return lib ** 2 + con ** 2 - (lib - con).abs()


def step_gain_mode2(p_conservative: torch.Tensor) -> torch.Tensor:
    """r of eq. 8 from the classifier's P(y=1); y is read from the value and held constant."""
    p = p_conservative.clamp(1e-7, 1 - 1e-7)
    y = (p.detach() > 0.5).to(p.dtype)
    return -(y * torch.log(p) + (1 - y) * torch.log(1 - p))


def gain_mode2(past: Sequence[float], current: torch.Tensor, *, gamma: float, tau: int) -> torch.Tensor:
    """D2 of eq. 7: the current step's r (a tensor) and the window's earlier ones (numbers, oldest first)."""
    window = list(past)[-tau:] if tau > 0 else []
    total = current.clone()
    for age, r in enumerate(reversed(window), start=1):  # age = t - i
        total = total + (gamma ** age) * r
    return total / (len(window) + 1)


def reward(logp_d_action: torch.Tensor, logp_action: torch.Tensor, gain: torch.Tensor) -> torch.Tensor:
    """R of eq. 4: the probability ratio of the vanilla action under the calibrated and vanilla policies,
    times the debias gain."""
    return torch.exp(logp_d_action - logp_action) * gain


def kl_divergence(logp: torch.Tensor, logp_d: torch.Tensor) -> torch.Tensor:
    """KL(pi || pi_d) over the last axis, from log-probabilities."""
    return (logp.exp() * (logp - logp_d)).sum(-1)


def adapt_lambda(lam: float, kl: float, sigma: float) -> float:
    """Algorithm 1's rule: halve lambda at or above 2 sigma, double it at or below sigma / 2."""
    if kl >= 2 * sigma:
        return lam / 2
    if kl <= sigma / 2:
        return lam * 2
    return lam

