"""Perplexity answer mode: sentence-pair probes (the CHBias suites) answered by a model's perplexity.

A sentence-pair probe holds a stereotyped sentence and its counterpart (probe.options). Nothing is
generated: the target's model scores both sentences and the reply records the two perplexities. Three kinds of
target can:
  * an in-process transformers model (``causal_lm()``, the ``hf`` adapter): harness.whitebox.perplexity,
    batched, the same value whatever the batch; the sentence after the tokenizer's BOS (else EOS);
  * a target offering ``score_continuations(pairs)`` (harness.adapters.prompt_logprobs): the in-process
    llama.cpp targets (``local``, ``local-zh``: the quantised GGUF's own logits) and any OpenAI-compatible
    server that returns prompt log-probabilities (vLLM, llama.cpp's server: harness.adapters.served_logprobs,
    checked once per run and refused in one sentence when its numbers disagree). Each sentence is read after
    the engine's start and a newline (prompt_logprobs.SENTENCE_CONTEXT), so every one of its tokens is scored
    and an in-process model and a server over the same GGUF give the same perplexity; a probe whose meta
    names a ``score_context`` is read after that instead ("": after the start token alone);
  * anything else is refused with one sentence before anything is asked.

A served target's sentences go through a run engine of their own (harness.run.engine: the target's
concurrency, rate limit, timeout and retries, and the response cache), one request per sentence or
`logprob_batch` sentences per request, as chat requests do.

Pairs are scored in calls of PAIRS_PER_CALL (2 x that many sentences, sorted by length inside the call so
batches hold little padding), each in a worker thread under the model's lock, so the event loop keeps
drawing progress and writing the transcript. Every pair's reply is appended to the transcript as soon as its
call returns: a kill loses at most one call, and `--resume` asks only the pairs not yet recorded.

Reply: text "PPL1 vs PPL2" (4 decimals, for people reading the transcript); usage {"answer_mode":
"perplexity", "perplexity": [ppl1, ppl2], "nll": [...] (mean nats per token), "tokens": [...] (scored
tokens), "start_token": id or None (hf), its text for log-probability targets ("unknown" when a served
target's could not be learned, with "start_token_note" saying why), "context": the text read before each
sentence after it (log-probability targets)} at full precision, which the metric (harness.metrics.chbias) reads.
A pair with a failed sentence becomes an error reply naming that sentence and why (never a perplexity of
0): kept apart from the findings and asked again by --retry-errors.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Protocol

from harness.adapters.base import Adapter, Completion, Message, PermanentError, settings_fingerprint
from harness.adapters.prompt_logprobs import SENTENCE_CONTEXT, ScoredText
from harness.adapters.served_logprobs import EngineRefused
from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR, Probe, Reply
from harness.run.engine import Engine, EngineSettings, RunAborted
from harness.run.progress import SessionStats
from harness.run.response_cache import ResponseCache
from harness.whitebox.perplexity import (
    DEFAULT_BATCH_SIZE,
    SentenceScore,
    perplexities_both_ways,
    prefix_token_id,
    score_from_nll,
)

PAIRS_PER_CALL = 16
ANSWER_MODE = "perplexity"
SIDES = ("sentence", "counterpart")


class Sink(Protocol):
    def append(self, probe: Probe, reply: Reply) -> Any: ...


def refusal(name: str, kind: str) -> str:
    """The one sentence for a target that cannot give log-probabilities."""
    return (f"Target '{name}' ({kind}) cannot give log-probabilities, which the CHBias suites need (they compare "
            "the model's perplexity of two sentences); use a local model (local, local-zh, an hf target), or an "
            "OpenAI-compatible server that returns prompt log-probabilities (docs/big_models.md).")


def can_score(adapter_or_class: Any) -> bool:
    """Whether a target (adapter instance or class) can score sentences: white-box access (``causal_lm``) or
    prompt log-probabilities (``score_continuations``)."""
    return callable(getattr(adapter_or_class, "causal_lm", None)) or callable(
        getattr(adapter_or_class, "score_continuations", None))


def _chunks(probes: Iterable[Probe], size: int, stopping: Callable[[], bool]) -> Iterator[list[Probe]]:
    chunk: list[Probe] = []
    for probe in probes:
        if len(probe.options) != 2:
            raise HarnessError(f"Suite '{probe.suite}' has {probe.kind} probes; the perplexity answer mode "
                               "answers only sentence pairs (the chbias suites).")
        chunk.append(probe)
        if len(chunk) >= size:
            yield chunk
            chunk = []
            if stopping():
                return
    if chunk and not stopping():
        yield chunk


def _reply(probe: Probe, target: str, first: SentenceScore, second: SentenceScore, latency: float,
           start: int | str | None, batch: int, upstream: tuple[SentenceScore, SentenceScore] | None = None,
           context: str | None = None, start_note: str | None = None) -> Reply:
    failed = [(side, s) for side, s in zip(SIDES, (first, second), strict=True) if not s.ok]
    if failed:
        why = "; ".join(f"the {side} ({s.text[:40]!r}): {s.error}" for side, s in failed)
        return Reply(probe_id=probe.id, target=target, text="", status=STATUS_ERROR,
                     error=f"perplexity failed on {why}"[:300], latency_s=round(latency, 4))
    assert first.perplexity is not None and second.perplexity is not None
    return Reply(probe_id=probe.id, target=target, text=f"{first.perplexity:.4f} vs {second.perplexity:.4f}",
                 latency_s=round(latency, 4),
                 usage={"answer_mode": ANSWER_MODE, "perplexity": [first.perplexity, second.perplexity],
                        "nll": [first.nll, second.nll], "tokens": [first.tokens, second.tokens],
                        "start_token": start, "batch": batch,
                        # without the start token, as upstream CHBias scored (harness.metrics.chbias upstream_t)
                        "perplexity_upstream": [s.perplexity for s in upstream] if upstream else None,
                        # log-probability targets: the text each sentence was read after (prompt_logprobs)
                        **({"context": context} if context is not None else {}),
                        # why a served target's start token is "unknown" (one sentence, harness.metrics.chbias)
                        **({"start_token_note": start_note} if start_note else {})})


# --- targets scored by prompt log-probabilities (llama.cpp in process, OpenAI-compatible servers) ------------

def is_served(adapter: Any) -> bool:
    """A target whose scores come over the network (retries, concurrency and the cache apply)."""
    return callable(getattr(adapter, "post_completions", None))


class ScoringCalls(Adapter):
    """A served target's scoring requests as a run engine sees them: `ask` takes one (context, continuation)
    pair as JSON and answers its ScoredText as JSON, so the engine's concurrency, rate limit, timeout, retries
    and response cache apply to them exactly as to chat requests. An engine refused by the trust check is kept
    in `refused` and raised by the caller as one sentence (the engine would otherwise retry it)."""

    kind = "prompt-logprobs"
    supports_batch = True

    def __init__(self, inner: Any) -> None:
        super().__init__(getattr(inner, "name", ""), {})
        self.inner = inner
        self.refused: EngineRefused | None = None

    def fingerprint(self) -> str:
        # "reading": scores cached before a served target's start token was learned (read without one) are
        # not reused (harness.adapters.served_logprobs)
        return settings_fingerprint(self.kind, {"target": self.inner.fingerprint(), "reading": "start token"})

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        return (await self.ask_batch([prompt]))[0]

    async def ask_batch(self, prompts: Sequence[str]) -> list[Completion]:
        pairs = [tuple(json.loads(p)) for p in prompts]
        try:
            scores = await self.inner.score_continuations(pairs)
        except EngineRefused as exc:
            self.refused = exc
            raise PermanentError(str(exc)) from None
        return [Completion(json.dumps([s.logprob, s.tokens]), {}) for s in scores]


async def served_scores(calls: ScoringCalls, engine: Engine, pairs: Sequence[tuple[str, str]]
                        ) -> list[ScoredText | str]:
    """Each pair's ScoredText, or the reason it failed after the engine's retries; EngineRefused when the
    target failed the trust check. `logprob_batch` pairs per request when the target sets it."""
    probes = [Probe(id=f"score-{i}", suite="prompt-logprobs", lang="", kind="score", bias_type="",
                    text=json.dumps(list(pair), ensure_ascii=False)) for i, pair in enumerate(pairs)]
    per_request = int(getattr(getattr(calls.inner, "served_logprobs", None), "batch", 1) or 1)
    if per_request > 1:
        groups = [probes[i:i + per_request] for i in range(0, len(probes), per_request)]
        replies = [r for group in await asyncio.gather(*(engine.answer_batch(g) for g in groups)) for r in group]
    else:
        replies = list(await asyncio.gather(*(engine.answer(p) for p in probes)))
    if calls.refused is not None:
        raise calls.refused
    out: list[ScoredText | str] = []
    for reply in replies:
        if reply is None:
            out.append("stopped before it was scored")
        elif not reply.ok:
            out.append(reply.error or "failed")
        else:
            logprob, tokens = json.loads(reply.text)
            out.append(ScoredText(float(logprob), int(tokens)))
    return out


def _in_process_scores(adapter: Any, pairs: Sequence[tuple[str, str]]) -> list[ScoredText | str]:
    """An in-process model's scores (blocking): the call at once, else one pair at a time so only a culprit fails."""
    try:
        return list(adapter.score_continuations_sync(pairs))
    except Exception:  # noqa: BLE001 - one by one below, each failure kept with its sentence
        out: list[ScoredText | str] = []
        for pair in pairs:
            try:
                out.extend(adapter.score_continuations_sync([pair]))
            except Exception as exc:  # noqa: BLE001 - recorded with its sentence, never as a number
                out.append(f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}")
        return out


def _sentence_score(text: str, score: ScoredText | str) -> SentenceScore:
    if isinstance(score, str):
        return SentenceScore(text, None, None, 0, score)
    return score_from_nll(text, -score.logprob, score.tokens)


async def run_perplexity(probes: Iterable[Probe], adapter: Any, sink: Sink, *,
                         pairs_per_call: int = PAIRS_PER_CALL, stopping: Callable[[], bool] = lambda: False,
                         aborted: Callable[[], str | None] = lambda: None,
                         settings: EngineSettings | None = None, cache: ResponseCache | None = None,
                         use_cache: bool = True) -> int:
    """Score every pair and append each reply to `sink` at once; returns how many pairs were recorded.

    `stopping()` is checked between calls (a first Ctrl-C: the call in flight is finished and recorded);
    `aborted()` returning a reason stops the run the same way (the engine's circuit breaker). `settings`
    (the run's engine settings) and `cache` apply to a served target's requests (default: the target-free
    defaults and the user's response cache).
    """
    if not can_score(adapter):
        raise HarnessError(refusal(getattr(adapter, "name", "?"), getattr(adapter, "kind", "?")))
    if not callable(getattr(adapter, "causal_lm", None)):
        return await _run_by_logprobs(probes, adapter, sink, pairs_per_call=pairs_per_call, stopping=stopping,
                                      aborted=aborted, settings=settings, cache=cache, use_cache=use_cache)
    name = getattr(adapter, "name", "")
    batch_size = int((getattr(adapter, "settings", None) or {}).get("batch_size") or DEFAULT_BATCH_SIZE)
    done = 0
    for chunk in _chunks(probes, max(1, pairs_per_call), lambda: stopping() or bool(aborted())):
        if not done:  # load the model (HarnessError if it cannot) only once a pair needs it, and untimed
            await asyncio.to_thread(adapter.causal_lm)
        sentences = [s for probe in chunk for s in probe.options]

        def score(sentences: list[str] = sentences) -> tuple[list[SentenceScore], list[SentenceScore], int | None]:
            loaded = adapter.causal_lm()
            with loaded.lock:
                scores, upstream = perplexities_both_ways(loaded.model, loaded.tokenizer, sentences,
                                                          batch_size=batch_size, name=name)
            return scores, upstream, prefix_token_id(loaded.tokenizer)

        started = time.perf_counter()
        try:
            scores, upstream, start = await asyncio.to_thread(score)
        except (HarnessError, KeyboardInterrupt, asyncio.CancelledError):
            raise  # the model cannot be loaded or used at all: the run stops with that one sentence
        except Exception as exc:  # noqa: BLE001 - the call's pairs become error replies, the run goes on
            reason = f"perplexity failed: {type(exc).__name__}: {' '.join(str(exc).split())[:200]}"
            latency = time.perf_counter() - started
            for probe in chunk:
                sink.append(probe, Reply(probe_id=probe.id, target=name, text="", status=STATUS_ERROR,
                                         error=reason, latency_s=round(latency / len(chunk), 4)))
            continue
        latency = (time.perf_counter() - started) / len(chunk)
        for i, probe in enumerate(chunk):
            sink.append(probe, _reply(probe, name, scores[2 * i], scores[2 * i + 1], latency, start, len(chunk),
                                      (upstream[2 * i], upstream[2 * i + 1])))
            done += 1
    return done


async def _run_by_logprobs(probes: Iterable[Probe], adapter: Any, sink: Sink, *, pairs_per_call: int,
                           stopping: Callable[[], bool], aborted: Callable[[], str | None],
                           settings: EngineSettings | None, cache: ResponseCache | None,
                           use_cache: bool = True) -> int:
    """run_perplexity for targets with ``score_continuations``: each sentence after SENTENCE_CONTEXT."""
    name = getattr(adapter, "name", "")
    served = is_served(adapter)
    own_cache = cache is None and served and use_cache  # --no-cache: none at all
    if own_cache:
        cache = ResponseCache()
    calls = ScoringCalls(adapter) if served else None
    engine = Engine(calls, None, settings=settings or EngineSettings(),  # type: ignore[arg-type]
                    cache=cache if use_cache else None) if calls else None
    done = 0
    try:
        for chunk in _chunks(probes, max(1, pairs_per_call), lambda: stopping() or bool(aborted())):
            sentences = [s for probe in chunk for s in probe.options]
            # a probe may name its own context (meta score_context; "": the start token alone, as
            # lm-evaluation-harness reads a choice after an empty context); else SENTENCE_CONTEXT
            contexts = [str(probe.meta.get("score_context", SENTENCE_CONTEXT)) for probe in chunk]
            pairs = [(contexts[i // 2], s) for i, s in enumerate(sentences)]
            started = time.perf_counter()
            try:
                if calls is not None and engine is not None:
                    scores = await served_scores(calls, engine, pairs)
                else:
                    scores = await asyncio.to_thread(_in_process_scores, adapter, pairs)
            except EngineRefused as exc:
                raise HarnessError(str(exc)) from None
            latency = (time.perf_counter() - started) / len(chunk)
            for i, probe in enumerate(chunk):
                first, second = (_sentence_score(sentences[2 * i + j], scores[2 * i + j]) for j in (0, 1))
                # the start token's text the sentences were read after (the adapter's: learned from a served
                # engine, "unknown" when it could not be; harness.adapters.served_logprobs)
                sink.append(probe, _reply(probe, name, first, second, latency,
                                          getattr(adapter, "start_token_text", None), len(chunk),
                                          context=contexts[i], start_note=getattr(adapter, "start_token_note", None)))
                done += 1
    finally:
        if own_cache and cache is not None:
            cache.close()
    return done



class PerplexityMode:
    """The "perplexity" answer mode (harness.run.answer_modes): sentence pairs scored by the target's model.
    Only a suite's generator picks it (ANSWER_MODE = "perplexity"): its probes can be answered no other way."""

    name = ANSWER_MODE
    selectable = False
    uses_response_cache = True  # a served target's scoring requests (none with --no-cache; in process: unused)
    run_id_suffix = ""

    def accepts(self, target: Any, name: str) -> str | None:
        return None if can_score(target) else refusal(name, str(getattr(target, "kind", "?")))

    async def run(self, probes: Iterable[Probe], adapter: Any, engine: Engine) -> SessionStats:
        """Every reply goes through Engine.record (counts, progress, settled sets, the consecutive-error
        breaker) as in generate mode; the engine's breaker ends the run as RunAborted."""
        class _Recording:
            def append(self, probe: Probe, reply: Reply) -> None:
                engine.record(probe, reply)

        started, cpu = time.monotonic(), time.process_time()
        try:
            await run_perplexity(probes, adapter, _Recording(), stopping=lambda: engine.stopping,
                                 aborted=lambda: engine.abort_reason, settings=engine.settings, cache=engine.cache,
                                 use_cache=engine.cache is not None)
        finally:
            engine.stats.elapsed_s = time.monotonic() - started
            engine.stats.cpu_s = time.process_time() - cpu
        if engine.abort_reason:
            raise RunAborted(engine.abort_reason)
        return engine.stats


MODE = PerplexityMode()
