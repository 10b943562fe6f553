"""Answer modes: how a run turns a probe into a reply, registered like every other method.

A chat target answers by generating text (the default mode, "generate"); an open model can instead pick
the most likely of a probe's options ("loglik", harness.run.loglik) or score the two sentences of a pair
("perplexity", harness.run.perplexity). Each mode is one object in ANSWER_MODES, a harness.core.registry
Registry of the harness.answer_modes entry points (the harness's own in its pyproject.toml, another
package's in its own), and the run engine dispatches through it (harness.run.execute): no stage of the
run names a mode.

An answer mode has

    name                  what a run's manifest records ("answer_mode") and `--answer-mode` selects
    selectable            `--answer-mode NAME` may ask for it; False: only a suite's generator picks it
                          (a generator's ANSWER_MODE = "perplexity": its probes can be answered no other way)
    uses_response_cache   the run opens the response cache (harness.run.response_cache; none with --no-cache)
                          as engine.cache: chat replies are cached by prompt, a served target's scoring
                          requests by their text
    run_id_suffix         added to the run id a command derives, so the same suite asked in two modes lands
                          in two folders ("-loglik")
    accepts(target, name) -> str | None
                          None when the target (an Adapter, or its class before one is made) can answer in
                          this mode; else the one sentence that refuses it, said before anything is asked
    run(probes, adapter, engine) -> SessionStats   (async)
                          answer every probe, each reply through engine.record (counts, progress, the
                          settled sets, the consecutive-error breaker), stopping when engine.stopping

`required_mode(suite)` / `mode_for(suite, asked)` are how a suite's generator picks its mode (its
ANSWER_MODE attribute), checked against the registry.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

from harness.core.errors import HarnessError
from harness.core.records import Probe
from harness.core.registry import GROUP_ANSWER_MODES, Registry
from harness.run.engine import Engine
from harness.run.progress import SessionStats

GENERATE = "generate"


class AnswerMode(Protocol):
    """One way of answering probes (see the module docstring)."""

    name: str
    selectable: bool
    uses_response_cache: bool
    run_id_suffix: str

    def accepts(self, target: Any, name: str) -> str | None: ...

    async def run(self, probes: Iterable[Probe], adapter: Any, engine: Engine) -> SessionStats: ...


class ChatMode:
    """The default: the target generates a reply to each prompt (harness.run.engine)."""

    name = GENERATE
    selectable = True
    uses_response_cache = True
    run_id_suffix = ""

    def accepts(self, target: Any, name: str) -> str | None:
        return None  # every adapter answers prompts

    async def run(self, probes: Iterable[Probe], adapter: Any, engine: Engine) -> SessionStats:
        return await engine.run(probes)


CHAT = ChatMode()

#: every answer mode by name (see the module docstring)
ANSWER_MODES: Registry[AnswerMode] = Registry("answer mode", GROUP_ANSWER_MODES, built_in=True)


def answer_mode(name: str) -> AnswerMode:
    """The mode of that name; an unknown one is one sentence naming those `--answer-mode` accepts."""
    found = ANSWER_MODES.get(name)
    if found is None:
        raise HarnessError(f"Unknown answer mode '{name}'; use {' or '.join(selectable_modes())}.")
    return found


def selectable_modes() -> list[str]:
    """The modes `--answer-mode` may name, in registration order (generate first)."""
    return [name for name, mode in ANSWER_MODES.items() if mode.selectable]


def required_mode(suite: Any) -> str | None:
    """The answer mode a suite's probes can only be answered in (its generator's ANSWER_MODE), if any:
    the chbias suites' sentence pairs are scored by perplexity, never by generated text."""
    generator = getattr(suite, "module", None)  # a Suite's SuiteGenerator (harness.core.method)
    required = (generator.answer_mode or None) if generator is not None else None
    if required is not None:
        answer_mode(required)  # a generator naming a mode nobody registered: one sentence, not a crash later
    return required


def mode_for(suite: Any, asked: str) -> str:
    """The mode a run of `suite` uses when `asked` was requested (generate is also the default)."""
    required = required_mode(suite)
    if required is None or asked == required:
        return asked
    if asked != GENERATE:
        raise HarnessError(f"Suite '{getattr(suite, 'name', suite)}' is answered by {required} only; "
                           f"drop --answer-mode {asked}.")
    return required


def refusal(mode: str, target: Any, name: str) -> str | None:
    """The sentence refusing `target` (an Adapter or its class) in `mode`, or None when it can answer."""
    return answer_mode(mode).accepts(target, name)
