"""Algorithm 1 of Liu et al. (AAAI 2021), one token at a time, for a Hugging Face causal LM.

Per step t:
  1. the model reads the last token (its keys and values kept in a transformers DynamicCache) and gives the
     step's final hidden state h; the vanilla policy pi = softmax(lm_head(h)) and its action a_t = argmax pi
     (the trajectory the reward's ratio is taken on);
  2. a perturbation delta of h (zero at first) is optimised by K Adam steps to maximise
     lambda_t * R(h + delta) - KL(pi || pi_d) (eq. 9), R the reward of eq. 4 with MODE 1's or MODE 2's gain;
  3. the token is taken from pi_d = softmax(lm_head(h + delta)): argmax (greedy) or sampled (temperature,
     top-k, seeded);
  4. lambda_{t+1} follows the KL of the final delta (halved at >= 2 sigma, doubled at <= sigma / 2).
What is perturbed: the step's final hidden state, i.e. the policy of this step; the keys and values already
cached are the vanilla model's, so nothing about the cache object is touched (PPLM, which perturbs the
past keys and values, broke when transformers replaced tuples with cache classes). The calibrated state
h + delta enters the next steps through the token it chose and, in MODE 2, through the running mean of
hidden states f_debias reads.
With lambda 0 the objective is -KL, minimal at delta = 0 with a zero gradient, so the calibrated policy is
the vanilla one; the K steps are then skipped, because Adam divides each gradient by its own running size
and would turn float round-off (~1e-9) into full steps of size lr. The output is then the vanilla model's,
token for token (a test holds it to greedy decoding), and lambda stays 0 (doubling 0 is 0).

Scale (a choice, said here): MODE 1's gain is a square of sums of 250 negative log-probabilities (~10^7);
beside a KL of ~0.02 the constraint would have no weight, so MODE 1 uses R / |R at delta = 0| (a relative
gain, 1 at the vanilla state); MODE 2's gain is a cross-entropy in [0, log 2] and is used as written.
Paper defaults (section 5): lambda0 0.6, K 15, sigma 0.02 (MODE 1) and 0.05 (MODE 2), tau 5, 250 words.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F

from harness.whitebox.calibration.head import base_model
from harness.whitebox.calibration.objective import (
    adapt_lambda,
    gain_mode1,
    gain_mode2,
    kl_divergence,
    reward,
    step_gain_mode2,
)

SIGMA = {1: 0.02, 2: 0.05}


@dataclass(frozen=True)
class CalibrationSettings:
    """Algorithm 1's knobs (paper defaults); sigma None = the paper's value for the mode."""

    mode: int = 1
    lambda0: float = 0.6
    steps: int = 15  # K
    sigma: float | None = None
    lr: float = 0.002  # Adam's step on the perturbation: not in the paper; on SmolLM2 MODE 1 keeps KL near sigma
    gamma: float = 0.9  # MODE 2's discount (the paper does not give it)
    tau: int = 5  # MODE 2's window
    relative_gain: bool | None = None  # None: True for MODE 1, False for MODE 2 (module docstring)

    @property
    def kl_target(self) -> float:
        return self.sigma if self.sigma is not None else SIGMA[self.mode]

    @property
    def relative(self) -> bool:
        return self.mode == 1 if self.relative_gain is None else self.relative_gain


@dataclass
class Guides:
    """What the gain reads: MODE 1's word ids and the input embeddings, MODE 2's head."""

    liberal: Sequence[int] = ()
    conservative: Sequence[int] = ()
    embeddings: torch.Tensor | None = None
    head: Any = None
    tied: bool = False  # the embeddings are the LM head's weight (no bias): eq. 6's softmax is the policy


@dataclass
class StepTrace:
    lam: float  # lambda used at this step
    kl: float  # KL(pi || pi_d) after the K steps
    gain: float  # D of the final calibrated state
    reward: float
    vanilla_token: int
    token: int


@dataclass
class Calibrated:
    tokens: list[int]
    trace: list[StepTrace] = field(default_factory=list)


class _Gain:
    """The step's gain as a function of the calibrated hidden state (MODE 1 or MODE 2)."""

    def __init__(self, settings: CalibrationSettings, guides: Guides) -> None:
        self.s, self.g = settings, guides
        self.history: list[float] = []  # MODE 2: r of the earlier steps
        self.hidden_sum: torch.Tensor | None = None  # MODE 2: sum of the earlier steps' calibrated states
        self.count = 0

    def __call__(self, h_d: torch.Tensor,
                 logp_d: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor | None]:
        if self.s.mode == 1:
            if self.g.tied and logp_d is not None:  # the same softmax: one vocabulary-sized product, not two
                lib = -logp_d[..., list(self.g.liberal)].sum(-1)
                con = -logp_d[..., list(self.g.conservative)].sum(-1)
                return lib ** 2 + con ** 2 - (lib - con).abs(), None
            return gain_mode1(h_d, self.g.embeddings, self.g.liberal, self.g.conservative), None
        pooled = (h_d if self.hidden_sum is None else self.hidden_sum + h_d) / (self.count + 1)
        r = step_gain_mode2(self.g.head.p_conservative(pooled))
        return gain_mode2(self.history, r, gamma=self.s.gamma, tau=self.s.tau), r

    def commit(self, h_d: torch.Tensor, r: torch.Tensor | None) -> None:
        if self.s.mode == 2:
            self.hidden_sum = h_d.detach() if self.hidden_sum is None else self.hidden_sum + h_d.detach()
            self.count += 1
            self.history.append(float(r.detach()))


def _choose(logits: torch.Tensor, *, temperature: float, top_k: int | None, top_p: float | None,
            generator: torch.Generator | None) -> int:
    if not temperature or temperature <= 0:
        return int(torch.argmax(logits))
    scores = logits / temperature
    if top_k:
        kth = torch.topk(scores, min(top_k, scores.shape[-1])).values[..., -1]
        scores = scores.masked_fill(scores < kth, float("-inf"))
    probs = torch.softmax(scores, dim=-1)
    if top_p is not None and top_p < 1.0:
        sorted_p, order = torch.sort(probs, descending=True)
        keep = torch.cumsum(sorted_p, -1) - sorted_p < top_p
        probs = torch.zeros_like(probs).scatter(-1, order, sorted_p * keep)
        probs = probs / probs.sum()
    return int(torch.multinomial(probs, 1, generator=generator))


def _calibrate_step(h: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, lam: float,
                    settings: CalibrationSettings, gain: _Gain) -> tuple[torch.Tensor, StepTrace, Any]:
    """K Adam steps on delta; returns (the calibrated logits, the step's trace, MODE 2's r)."""
    with torch.no_grad():
        logp = torch.log_softmax(F.linear(h, weight, bias), dim=-1)
        action = int(torch.argmax(logp))
        scale = 1.0
        if settings.relative:
            scale = float(gain(h, logp)[0].abs().clamp_min(1e-8))
    delta = torch.zeros_like(h, requires_grad=True)
    opt = torch.optim.Adam([delta], lr=settings.lr)
    with torch.enable_grad():
        for _ in range(settings.steps):
            h_d = h + delta
            logp_d = torch.log_softmax(F.linear(h_d, weight, bias), dim=-1)
            d, _r = gain(h_d, logp_d)
            objective = lam * reward(logp_d[action], logp[action], d) / scale - kl_divergence(logp, logp_d)
            opt.zero_grad()
            (-objective).backward()
            opt.step()
    with torch.no_grad():
        h_d = h + delta
        logits_d = F.linear(h_d, weight, bias)
        logp_d = torch.log_softmax(logits_d, dim=-1)
        d, r = gain(h_d, logp_d)
        kl = float(kl_divergence(logp, logp_d))
        rew = float(reward(logp_d[action], logp[action], d))
    gain.commit(h_d, r)
    return logits_d, StepTrace(lam, kl, float(d), rew, action, -1), r


@torch.no_grad()
def calibrated_generate(model: Any, prompt_ids: Sequence[int], settings: CalibrationSettings, guides: Guides, *,
                        max_new_tokens: int, temperature: float = 0.0, top_k: int | None = None,
                        top_p: float | None = None, seed: int = 0, eos_ids: Sequence[int] = ()) -> Calibrated:
    """Generate up to max_new_tokens after prompt_ids with Algorithm 1 (module docstring)."""
    from transformers import DynamicCache

    device = model.device
    head = model.get_output_embeddings()
    weight = head.weight.detach().float()
    bias = head.bias.detach().float() if getattr(head, "bias", None) is not None else None
    if guides.embeddings is None and settings.mode == 1:
        embeddings = model.get_input_embeddings().weight
        guides.tied = embeddings is head.weight and bias is None
        guides.embeddings = weight if guides.tied else embeddings.detach().float()
    generator = torch.Generator(device=device).manual_seed(int(seed)) if temperature and temperature > 0 else None
    cache = DynamicCache()
    decoder = base_model(model)
    # transformers 5 names the cache argument `cache` (`past_key_values` is deprecated); older ones only know
    # `past_key_values`. Either way it is the same DynamicCache object, extended in place at every step.
    key = "cache" if "cache" in inspect.signature(decoder.forward).parameters else "past_key_values"
    ids = torch.tensor([list(prompt_ids)], device=device)
    hidden = decoder(input_ids=ids, use_cache=True, **{key: cache}).last_hidden_state[0, -1].float()
    gain = _Gain(settings, guides)
    lam = float(settings.lambda0)
    out = Calibrated(tokens=[])
    for _ in range(max_new_tokens):
        if lam == 0.0:
            # the objective is -KL, minimal at delta = 0: the vanilla policy (module docstring)
            logits_d = F.linear(hidden, weight, bias)
            token_v = int(torch.argmax(logits_d))
            trace = StepTrace(0.0, 0.0, float("nan"), float("nan"), token_v, -1)
        else:
            logits_d, trace, _r = _calibrate_step(hidden, weight, bias, lam, settings, gain)
        token = _choose(logits_d, temperature=temperature, top_k=top_k, top_p=top_p, generator=generator)
        trace.token = token
        out.trace.append(trace)
        lam = adapt_lambda(lam, trace.kl, settings.kl_target)
        if token in eos_ids:
            break
        out.tokens.append(token)
        step = torch.tensor([[token]], device=device)
        hidden = decoder(input_ids=step, use_cache=True, **{key: cache}).last_hidden_state[0, -1].float()
    return out
