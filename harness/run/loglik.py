"""Log-likelihood answer mode for multiple-choice probes on local open models (``--answer-mode loglik``).

Instead of parsing generated text, the model's answer is the option it finds most likely after the prompt,
as lm-evaluation-harness does for BBQ. Why: a small local model often rambles or repeats the options,
which the text parser (rightly) marks invalid; the likelihood always yields a choice, and it measures what
the model "believes" rather than its instruction following.

The adapter must offer ``loglikelihoods(prompt, continuations) -> list[float]`` (sum of the continuation
tokens' log-probabilities given the prompt), sync or async: the ``hf`` adapter, the in-process llama.cpp
targets (the GGUF's own logits) and ``openai`` targets whose server returns prompt log-probabilities (checked
once per run, harness.adapters.served_logprobs). A served target's requests go through a run engine of their
own (concurrency, rate limit, retries, response cache: harness.run.perplexity.served_scores), `concurrency`
probes at a time.

Two scoring choices:
* ``continuations="letters"`` (default): score "A", "B", "C" after the prompt, which ends in "答案：";
* ``continuations="options"``: score each option's text; with ``normalise=True`` the sum is divided by the
  text's length in characters (lm-eval's acc_norm idea) so long options are not penalised.

Each answer is written to the same transcript as generated answers: Reply.text is the chosen letter (so
the CBBQ parser reads it like any reply) and usage holds {"answer_mode": "loglik", "loglik": [...],
"continuations": [...]}. A failure becomes an error Reply (never scored), like the text runner's.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from harness.adapters.served_logprobs import EngineRefused
from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR, Probe, Reply
from harness.question_gen.cbbq_prompts import LETTERS
from harness.run.engine import Engine, EngineSettings
from harness.run.perplexity import ScoringCalls, is_served, served_scores
from harness.run.response_cache import ResponseCache


class LoglikAdapter(Protocol):
    name: str

    def loglikelihoods(self, prompt: str, continuations: list[str]) -> Any: ...


class TranscriptSink(Protocol):
    def append(self, probe: Probe, reply: Reply) -> Any: ...


@dataclass
class LoglikSummary:
    asked: int = 0
    skipped: int = 0
    errors: int = 0


def continuations_for(probe: Probe, mode: str) -> list[str]:
    if mode == "letters":
        return list(LETTERS[: len(probe.options)])
    if mode == "options":
        return list(probe.options)
    raise HarnessError(f"Unknown log-likelihood continuation mode {mode!r}; use 'letters' or 'options'.")


def choose(scores: list[float], continuations: list[str], *, normalise: bool) -> int:
    """Index of the most likely continuation (ties: the first, so the choice is deterministic)."""
    adjusted = [s / max(1, len(c)) if normalise else s for s, c in zip(scores, continuations, strict=True)]
    return max(range(len(adjusted)), key=lambda i: (adjusted[i], -i))


async def _loglikelihoods(adapter: LoglikAdapter, prompt: str, conts: list[str]) -> list[float]:
    """Prefer the adapter's async variant (hf: `aloglikelihoods`), else run the blocking one in a thread."""
    fn = getattr(adapter, "aloglikelihoods", None) or adapter.loglikelihoods
    if inspect.iscoroutinefunction(fn):
        result = await fn(prompt, conts)
    else:
        result = await asyncio.to_thread(fn, prompt, conts)
        if inspect.isawaitable(result):
            result = await result
    return [float(x) for x in result]


async def run_loglik(probes: Iterable[Probe], adapter: LoglikAdapter, writer: TranscriptSink, *,
                     continuations: str = "letters", normalise: bool = False, skip: Collection[str] = (),
                     on_reply: Callable[[Probe, Reply], None] | None = None,
                     settings: EngineSettings | None = None) -> LoglikSummary:
    """Answer every multiple-choice probe by likelihood and append each reply to the transcript at once.

    `skip` holds probe ids already answered (resume). Probes without options cannot be answered this way
    and raise a HarnessError naming the suite, because the user picked the wrong mode for it. `settings`
    (the run's engine settings) apply to a served target's requests.
    """
    if not hasattr(adapter, "loglikelihoods"):
        raise HarnessError(f"Target {getattr(adapter, 'name', '?')!r} cannot score log-likelihoods; "
                           "use --answer-mode text or an hf target.")
    summary = LoglikSummary()
    target = getattr(adapter, "name", "")
    served = is_served(adapter) and callable(getattr(adapter, "loglik_pairs", None))
    settings = settings or EngineSettings()
    window = max(1, settings.concurrency) if served else 1
    cache = ResponseCache() if served else None
    calls = ScoringCalls(adapter) if served else None
    engine = Engine(calls, None, settings=settings, cache=cache) if calls else None  # type: ignore[arg-type]

    async def answer(probe: Probe) -> Reply:
        conts = continuations_for(probe, continuations)
        started = time.perf_counter()
        try:
            if calls is not None and engine is not None:
                results = await served_scores(calls, engine, adapter.loglik_pairs(probe.text, conts))  # type: ignore[attr-defined]
                failed = [r for r in results if isinstance(r, str)]
                if failed:
                    raise RuntimeError(failed[0])
                scores = [r.logprob for r in results if not isinstance(r, str)]
            else:
                scores = await _loglikelihoods(adapter, probe.text, conts)
            if len(scores) != len(conts):
                raise ValueError(f"expected {len(conts)} log-likelihoods, got {len(scores)}")
            idx = choose(scores, conts, normalise=normalise)
            return Reply(probe_id=probe.id, target=target, text=LETTERS[idx],
                         latency_s=time.perf_counter() - started,
                         usage={"answer_mode": "loglik", "loglik": scores, "continuations": conts,
                                "normalised": normalise})
        except (KeyboardInterrupt, asyncio.CancelledError, EngineRefused):
            raise
        except Exception as exc:  # one probe's failure must not lose the run; recorded, never scored
            return Reply(probe_id=probe.id, target=target, text="", status=STATUS_ERROR,
                         error=f"loglik failed: {type(exc).__name__}: {str(exc)[:200]}",
                         latency_s=time.perf_counter() - started)

    def record(probe: Probe, reply: Reply) -> None:
        summary.errors += not reply.ok
        writer.append(probe, reply)
        summary.asked += 1
        if on_reply is not None:
            on_reply(probe, reply)

    pending: list[Probe] = []

    async def flush() -> None:
        try:
            replies = await asyncio.gather(*(answer(p) for p in pending))
        except EngineRefused as exc:
            raise HarnessError(str(exc)) from None
        for probe, reply in zip(pending, replies, strict=True):
            record(probe, reply)
        pending.clear()

    try:
        for probe in probes:
            if probe.id in skip:
                summary.skipped += 1
                continue
            if not probe.options:
                raise HarnessError(f"Suite {probe.suite!r} has no multiple-choice options; "
                                   "--answer-mode loglik only works for CBBQ suites.")
            pending.append(probe)
            if len(pending) >= window:
                await flush()
        if pending:
            await flush()
    finally:
        if cache is not None:
            cache.close()
    return summary


def run_loglik_sync(probes: Iterable[Probe], adapter: LoglikAdapter, writer: TranscriptSink,
                    **kwargs: Any) -> LoglikSummary:
    """Blocking wrapper for callers outside an event loop."""
    return asyncio.run(run_loglik(probes, adapter, writer, **kwargs))
