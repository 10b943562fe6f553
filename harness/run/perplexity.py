"""Perplexity answer mode: sentence-pair probes (the CHBias suites) answered by a model's perplexity.

A `sentence_pair` probe holds a stereotyped sentence and its counterpart (probe.options). Nothing is
generated: the target's model scores both sentences (harness.whitebox.perplexity: batched, the same value
whatever the batch), and the reply records the two perplexities. Only a target with white-box access can
do that, i.e. an adapter offering ``causal_lm()`` (the ``hf`` adapter); any other target is refused with one
sentence before anything is asked.

Pairs are scored in calls of PAIRS_PER_CALL (2 x that many sentences, sorted by length inside the call so
batches hold little padding), each in a worker thread under the model's lock, so the event loop keeps
drawing progress and writing the transcript. Every pair's reply is appended to the transcript as soon as its
call returns: a kill loses at most one call, and `--resume` asks only the pairs not yet recorded.

Reply: text "PPL1 vs PPL2" (4 decimals, for people reading the transcript); usage {"answer_mode":
"perplexity", "perplexity": [ppl1, ppl2], "nll": [...] (mean nats per token), "tokens": [...] (scored
tokens), "start_token": id or None} at full precision, which the metric (harness.metrics.chbias) reads.
A pair with a failed sentence becomes an error reply naming that sentence and why (never a perplexity of
0): kept apart from the findings and asked again by --retry-errors.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

from harness.core.errors import HarnessError
from harness.core.records import KIND_SENTENCE_PAIR, STATUS_ERROR, Probe, Reply
from harness.whitebox.perplexity import (
    DEFAULT_BATCH_SIZE,
    SentenceScore,
    prefix_token_id,
    sentence_perplexities,
)

PAIRS_PER_CALL = 16
ANSWER_MODE = "perplexity"
SIDES = ("sentence", "counterpart")


class Sink(Protocol):
    def append(self, probe: Probe, reply: Reply) -> Any: ...


def refusal(name: str, kind: str) -> str:
    """The one sentence for a target that cannot give log-probabilities."""
    return (f"Target '{name}' ({kind}) cannot give log-probabilities, which the CHBias suites need (they compare "
            "the model's perplexity of two sentences); use an hf target such as local-zh-hf, or add one with "
            "adapter = \"hf\" in targets.toml.")


def can_score(adapter_or_class: Any) -> bool:
    """Whether a target (adapter instance or class) offers white-box access (``causal_lm``)."""
    return callable(getattr(adapter_or_class, "causal_lm", None))


def _chunks(probes: Iterable[Probe], size: int, stopping: Callable[[], bool]) -> Iterator[list[Probe]]:
    chunk: list[Probe] = []
    for probe in probes:
        if probe.kind != KIND_SENTENCE_PAIR or len(probe.options) != 2:
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
           start: int | None, batch: int) -> Reply:
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
                        "start_token": start, "batch": batch})


async def run_perplexity(probes: Iterable[Probe], adapter: Any, sink: Sink, *,
                         pairs_per_call: int = PAIRS_PER_CALL, stopping: Callable[[], bool] = lambda: False,
                         aborted: Callable[[], str | None] = lambda: None) -> int:
    """Score every pair and append each reply to `sink` at once; returns how many pairs were recorded.

    `stopping()` is checked between calls (a first Ctrl-C: the call in flight is finished and recorded);
    `aborted()` returning a reason stops the run the same way (the engine's circuit breaker).
    """
    if not can_score(adapter):
        raise HarnessError(refusal(getattr(adapter, "name", "?"), getattr(adapter, "kind", "?")))
    name = getattr(adapter, "name", "")
    batch_size = int((getattr(adapter, "settings", None) or {}).get("batch_size") or DEFAULT_BATCH_SIZE)
    done = 0
    for chunk in _chunks(probes, max(1, pairs_per_call), lambda: stopping() or bool(aborted())):
        if not done:  # load the model (HarnessError if it cannot) only once a pair needs it, and untimed
            await asyncio.to_thread(adapter.causal_lm)
        sentences = [s for probe in chunk for s in probe.options]

        def score(sentences: list[str] = sentences) -> tuple[list[SentenceScore], int | None]:
            loaded = adapter.causal_lm()
            with loaded.lock:
                scores = sentence_perplexities(loaded.model, loaded.tokenizer, sentences, batch_size=batch_size,
                                               name=name)
            return scores, prefix_token_id(loaded.tokenizer)

        started = time.perf_counter()
        try:
            scores, start = await asyncio.to_thread(score)
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
            sink.append(probe, _reply(probe, name, scores[2 * i], scores[2 * i + 1], latency, start, len(chunk)))
            done += 1
    return done
