"""The calibrated model as a target: `adapter = "hf-calibrated"` in targets.toml (or `harness calibrate
--save-target NAME`), so `harness run -s political-gender -t NAME --judge J` measures it like any model.

Settings: those of the `hf` adapter (model, gguf_file, dtype, max_new_tokens, temperature, system_prompt,
threads), plus Algorithm 1's: mode (1 or 2), lambda0 (0.6), steps (K, 15), sigma (0.02 / 0.05 by mode),
lr (0.002), gamma (0.9), tau (5); MODE 1: words_liberal / words_conservative (files; default the shipped
lists), words_per_side (250); MODE 2: head (the f_debias file `harness calibrate --mode 2` saved).
Every generation is calibrated, questions (`ask`) as well as the suites' continuations; one sequence at a
time (each step optimises its own perturbation).
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from harness.adapters.base import Completion, Message, settings_fingerprint
from harness.adapters.generation import SAMPLING_APPLIED, hf_input_text, wants_instruction
from harness.adapters.hf_local import HFLocalAdapter
from harness.core.errors import ConfigError
from harness.core.generation import STYLE_CONTINUE, STYLE_INSTRUCT, GenerationRequest
from harness.whitebox.calibration.decode import CalibrationSettings, Guides, calibrated_generate
from harness.whitebox.calibration.head import load_head
from harness.whitebox.calibration.words import DEFAULT_WORDS_PER_SIDE, word_lists

KEYS = ("mode", "lambda0", "steps", "sigma", "lr", "gamma", "tau")


def settings_from(raw: Mapping[str, Any]) -> CalibrationSettings:
    values = {k: raw[k] for k in KEYS if raw.get(k) is not None}
    try:
        s = CalibrationSettings(**{k: (int(v) if k in ("mode", "steps", "tau") else float(v))
                                   for k, v in values.items()})
    except (TypeError, ValueError):
        raise ConfigError(f"Calibration settings must be numbers: {values}.") from None
    if s.mode not in (1, 2):
        raise ConfigError(f"Calibration mode must be 1 (word embeddings) or 2 (classifier), not {s.mode}.")
    if s.lambda0 < 0 or s.steps < 0 or s.kl_target <= 0 or s.tau < 0 or not 0 < s.gamma <= 1:
        raise ConfigError("Calibration needs lambda0 >= 0, steps >= 0, sigma > 0, tau >= 0 and 0 < gamma <= 1.")
    return s


class CalibratedHFAdapter(HFLocalAdapter):
    kind = "hf-calibrated"
    supports_batch = True

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings, secrets=secrets)
        self.calibration = settings_from(self.settings)
        if self.calibration.mode == 2 and not self.settings.get("head"):
            raise ConfigError(f"Target '{name}' (MODE 2) needs head = the f_debias file `harness calibrate --mode 2` "
                              "saved.")
        self._guides: Guides | None = None

    def guides(self) -> Guides:
        if self._guides is None:
            loaded = self.causal_lm()
            if self.calibration.mode == 1:
                lists = word_lists(loaded.tokenizer, liberal=_path(self.settings.get("words_liberal")),
                                   conservative=_path(self.settings.get("words_conservative")),
                                   per_side=int(self.settings.get("words_per_side") or DEFAULT_WORDS_PER_SIDE))
                self._guides = Guides(liberal=lists.liberal, conservative=lists.conservative)
            else:
                head = load_head(self.settings["head"], loaded.model.config.hidden_size)
                self._guides = Guides(head=head.to(loaded.model.device))
        return self._guides

    def fingerprint(self) -> str:
        extra: dict[str, Any] = {}
        for key in ("head", "words_liberal", "words_conservative"):
            path = _path(self.settings.get(key))
            if path is not None and path.is_file():
                extra[key] = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        return settings_fingerprint(self.kind, {**self.settings, **extra})

    def _generate_ids(self, text: str, *, templated: bool, max_new_tokens: int, temperature: float,
                      top_k: int | None, top_p: float | None, seed: int) -> tuple[str, dict[str, Any]]:
        loaded = self.causal_lm()
        tok = loaded.tokenizer
        ids = tok(text, add_special_tokens=not templated)["input_ids"]
        eos = {tok.eos_token_id} if tok.eos_token_id is not None else set()
        gen_eos = getattr(loaded.model.generation_config, "eos_token_id", None)
        eos |= set(gen_eos if isinstance(gen_eos, list) else [gen_eos] if gen_eos is not None else [])
        with loaded.lock:
            out = calibrated_generate(loaded.model, ids, self.calibration, self.guides(),
                                      max_new_tokens=max_new_tokens, temperature=temperature, top_k=top_k,
                                      top_p=top_p, seed=seed, eos_ids=sorted(eos))
        kls = [t.kl for t in out.trace]
        usage = {"prompt_tokens": len(ids), "completion_tokens": len(out.tokens),
                 "calibration": {"mode": self.calibration.mode, "lambda0": self.calibration.lambda0,
                                 "mean_kl": round(sum(kls) / len(kls), 6) if kls else 0.0,
                                 "final_lambda": out.trace[-1].lam if out.trace else self.calibration.lambda0,
                                 "changed_tokens": sum(t.token != t.vanilla_token for t in out.trace)}}
        return tok.decode(out.tokens, skip_special_tokens=True).strip(), usage

    def continue_text(self, requests: Sequence[GenerationRequest]) -> list[Completion]:
        """Each continuation request, calibrated (called by harness.adapters.generation)."""
        tok = self.causal_lm().tokenizer
        out = []
        for r in requests:
            text, templated = hf_input_text(tok, r, self.settings.get("system_prompt"))
            reply, usage = self._generate_ids(text, templated=templated, max_new_tokens=r.max_new_tokens,
                                              temperature=r.temperature, top_k=r.top_k, top_p=r.top_p, seed=r.seed)
            style = STYLE_INSTRUCT if wants_instruction(r, templated) else STYLE_CONTINUE
            out.append(Completion(reply, {**usage, "style": style, "sampling": SAMPLING_APPLIED}))
        return out

    def _ask(self, prompt: str, history: Sequence[Message] = ()) -> Completion:
        text = self.chat_text(prompt, history)
        templated = bool(getattr(self.causal_lm().tokenizer, "chat_template", None))
        reply, usage = self._generate_ids(text, templated=templated,
                                          max_new_tokens=int(self.settings["max_new_tokens"]),
                                          temperature=float(self.settings.get("temperature") or 0.0),
                                          top_k=self.settings.get("top_k"), top_p=self.settings.get("top_p"), seed=0)
        return Completion(reply, usage)

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        return await asyncio.to_thread(self._ask, prompt, history)

    async def ask_batch(self, prompts: Sequence[str]) -> list[Completion]:
        return await asyncio.to_thread(lambda: [self._ask(p) for p in prompts])


def _path(value: Any) -> Path | None:
    return Path(str(value)).expanduser() if value else None
