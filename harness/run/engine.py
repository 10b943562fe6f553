"""The run engine: ask every selected probe of one target, fast, and record every outcome on disk.

Shape (workers drawing from one lazy stream, all in one asyncio loop):

    select_probes() --> feed (groups of 256, --> N workers --> adapter.ask --> TranscriptWriter
                         looked up in the cache       |            ^
                         together; resume skips       +-- cache ---+   (hits never reach the target)
                         what the transcript settles)

* The stream is drawn as the workers need it, so a suite of millions of probes is never held in memory
  (batching adapters get a bounded queue and a producer, which gathers their batches).
* A slot cap (harness.run.slots) limits requests in flight per target (`concurrency`); a token bucket
  caps requests per minute.
  Workers outnumber request slots, so a probe sleeping in back-off never holds a slot another could use.
* Each attempt runs under asyncio.timeout. tenacity retries transient failures (429, 5xx, timeouts,
  dropped connections, anything unexpected) with exponential back-off and jitter, waiting at least what
  the provider asked for in Retry-After. (The first attempt runs outside tenacity, for speed; a failure
  is replayed into tenacity as its attempt 1, so every retry decision is tenacity's: Engine.answer.)
  PermanentError (401, 400, malformed or empty answers) is not retried. A probe that still fails is recorded
  as a Reply with status "error", a one-line reason (secrets removed) and its attempt count: kept apart from
  answers, never scored, re-asked by --retry-errors.
* Every outcome is appended to transcript.jsonl and flushed the moment it arrives; a kill loses at most the
  requests in flight. Resume reads the transcript back (latest record per probe wins, an answer is never
  superseded by an error) and asks only what is still open.

* A multi-turn probe (Probe.turns, e.g. a metamorphic "pressure" variant) is one conversation: each turn
  is asked with the earlier turns and replies as chat history (adapter.ask(prompt, history=...)), each
  turn with its own retries and its own cache entry keyed on the whole conversation so far. Every turn
  answered before the last is appended to the transcript at once as a "partial" line; resume (and
  --retry-errors) continue the conversation from the recorded replies, never asking an answered turn again.

The runner knows transport outcomes, not bias: scoring happens afterwards, from the transcript alone.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import itertools
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from harness.adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from harness.adapters.generation import answer_probe, answer_probes, cache_text
from harness.adapters.transport import ENCLOSING_DEADLINE, connection_words
from harness.core.generation import META_KEY as GENERATION_META_KEY
from harness.core.records import STATUS_ERROR, STATUS_OK, STATUS_PARTIAL, Probe, Reply
from harness.run import manifest as mf
from harness.run.clock import utc_stamp
from harness.run.progress import RunProgress, SessionStats
from harness.run.ratelimit import make_limiter
from harness.run.response_cache import ResponseCache
from harness.run.slots import Slots
from harness.run.transcript import TranscriptWriter

_MAX_REASON = 300
#: Probes the producer takes from the stream at a time (and looks up in the response cache in one query).
_PRODUCE_CHUNK = 256


@dataclass(frozen=True, slots=True)
class EngineSettings:
    """How hard to push one target. Defaults suit a hosted API; local models want concurrency 1."""

    concurrency: int = 8
    rpm: float | None = None
    timeout_s: float = 60.0
    max_attempts: int = 4
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 30.0
    retry_after_max_s: float = 300.0  # a provider asking for longer than this is treated as down
    batch_size: int = 8  # probes per ask_batch() call for adapters that batch (hf)
    #: Stop the run (exit 3) when this many replies in a row are errors: a wrong key or a dead endpoint
    #: should cost seconds, not a transcript of 30,000 identical errors. 0 disables.
    abort_after_consecutive_errors: int = 50
    #: Replies longer than this many characters are cut to it and marked (Reply.cut_from): a server that
    #: sends 1 MB of filler per reply made a 58 MB transcript and a 59 MB verdicts.csv for 2,000 probes.
    #: Generous: a long real answer is a few thousand characters. 0 disables.
    max_reply_chars: int = 65_536




class _Feed:
    """The probes still to ask, taken by the workers themselves (one event loop, so `take` never interleaves),
    from groups of _PRODUCE_CHUNK looked up in the response cache together as each group is drawn.

    Why not a queue and a producer task: with the queue full, every get woke the blocked producer for one put,
    a future and a task switch per probe (issue 38). The stream stays lazy (a suite of millions is never held)
    and an error in it (a HarnessError from the suite) is raised in the worker that drew it."""

    __slots__ = ("_draw", "_ready", "_stream")

    def __init__(self, probes: Iterable[Probe], draw: Callable[[list[Probe]], None]) -> None:
        self._stream: Iterator[Probe] | None = iter(probes)
        self._ready: collections.deque[Probe] = collections.deque()
        self._draw = draw

    def take(self) -> Probe | None:
        """The next probe, or None once the stream is spent."""
        if not self._ready:
            if self._stream is None:
                return None
            chunk = list(itertools.islice(self._stream, _PRODUCE_CHUNK))
            if not chunk:
                self._stream = None
                return None
            self._draw(chunk)
            self._ready.extend(chunk)
        return self._ready.popleft()


class RunAborted(Exception):
    """Raised inside the engine when the circuit breaker trips."""


class _Stopped(Exception):
    """Raised instead of a new attempt once the session is stopping: the probe stays open for resume."""


class _Failed(Exception):
    """A request that failed for good (retries spent or permanent), with how many attempts it took."""

    def __init__(self, exc: BaseException, attempts: int) -> None:
        super().__init__(str(exc))
        self.exc, self.attempts = exc, attempts


def one_line(text: str, secrets: Iterable[str] = ()) -> str:
    """A reason fit for a transcript: one line, bounded length, secrets masked."""
    line = " ".join(str(text).split())
    line = mf.redact(line, secrets)
    return line if len(line) <= _MAX_REASON else line[: _MAX_REASON - 3] + "..."


def describe_error(exc: BaseException, *, timeout_s: float, secrets: Iterable[str] = ()) -> str:
    """Turn an exception into the reason stored with an error reply."""
    if isinstance(exc, TimeoutError):
        return f"timeout: no answer within {timeout_s:g} s"
    if isinstance(exc, TransientError | PermanentError):
        return one_line(exc.reason, secrets)
    detail = str(exc) or exc.__class__.__name__
    words = connection_words(exc)  # a client library's exception an adapter let through: said in our words
    if words:
        return one_line(f"connection failed: {words} ({exc.__class__.__name__}: {detail})", secrets)
    return one_line(f"{exc.__class__.__name__}: {detail}", secrets)


def _should_retry(state: RetryCallState) -> bool:
    """Retry everything but PermanentError. Only Exceptions: a CancelledError (Ctrl-C) must propagate."""
    if state.outcome is None or not state.outcome.failed:
        return False
    exc = state.outcome.exception()
    return isinstance(exc, Exception) and not isinstance(exc, PermanentError | _Stopped)


def _plain(probe: Probe) -> bool:
    """True for an ordinary question (no GenerationRequest in its meta: adapters.generation.request_of is None), which
    is asked as adapter.ask(text) and cached under its text; checked once per probe, not parsed three times."""
    return not isinstance(probe.meta.get(GENERATION_META_KEY), Mapping)


#: called with each ok (probe, reply) once recorded in the transcript; `harness run` adds one that only queues
#: it (harness.cli.warmup), so the asking loop pays an append per reply
REPLY_HOOKS: list[Callable[[Probe, Reply], None]] = []


class Engine:
    """Asks probes of one adapter and writes each outcome through `record` as it arrives."""

    def __init__(self, adapter: Adapter, writer: TranscriptWriter, *, settings: EngineSettings,
                 cache: ResponseCache | None = None, progress: RunProgress | None = None,
                 secrets: Iterable[str] = (), rng: random.Random | None = None,
                 partial: Mapping[str, tuple[str, ...]] | None = None) -> None:
        self.adapter = adapter
        #: replies already recorded for turns of unfinished conversations (transcript.partial_turns)
        self.partial: dict[str, tuple[str, ...]] = dict(partial or {})
        self.writer = writer
        self.settings = settings
        self.cache = cache
        self.progress = progress
        self.secrets = tuple(s for s in secrets if s)
        self.stats = SessionStats()
        self.settled_ok: set[str] = set()
        self.settled_error: set[str] = set()
        self.abort_reason: str | None = None
        self._fingerprint = adapter.fingerprint()
        self._semaphore = Slots(max(1, settings.concurrency))  # harness.run.slots: O(1) hand-over, not asyncio's
        self._limiter = make_limiter(settings.rpm) if settings.rpm else None
        self._rng = rng or random.Random()
        self._consecutive_errors = 0
        self.stopping = False
        self._stop_event = asyncio.Event()
        #: the failed transcript write (a full disk) that stopped the session, and the replies received after
        #: it, kept in memory rather than lost (execute writes them once more, then counts what is left)
        self.write_error: OSError | None = None
        self.unwritten: list[tuple[Probe, Reply]] = []

    def request_stop(self) -> None:
        """First Ctrl-C: ask nothing new, let the requests in flight finish and be recorded.

        Probes still queued are left unasked; one sleeping in retry back-off wakes and is left open (not
        recorded as an error), so `--resume` asks it again.
        """
        self.stopping = True
        self._stop_event.set()

    async def _sleep(self, seconds: float) -> None:
        """tenacity's back-off sleep, cut short when the session is stopping."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stop_event.wait(), timeout=seconds)

    def _check_stopping(self) -> None:
        if self.stopping:
            raise _Stopped

    # -- back-off ----------------------------------------------------------------------------------
    def _wait(self, state: RetryCallState) -> float:
        """Exponential back-off with full jitter, but never less than the provider's Retry-After."""
        s = self.settings
        ceiling = min(s.backoff_max_s, s.backoff_initial_s * (2 ** (state.attempt_number - 1)))
        wait = self._rng.uniform(ceiling / 2, ceiling)
        exc = state.outcome.exception() if state.outcome else None
        retry_after = getattr(exc, "retry_after", None)
        if retry_after:
            wait = max(wait, min(float(retry_after), s.retry_after_max_s))
        return wait

    def _retrying(self) -> AsyncRetrying:
        return AsyncRetrying(stop=stop_after_attempt(max(1, self.settings.max_attempts)), wait=self._wait,
                             retry=_should_retry, reraise=True, sleep=self._sleep)

    # -- one probe -------------------------------------------------------------------------------
    def _from_cache(self, probe: Probe, key_text: str | None = None) -> Reply | None:
        """The cached Reply, or None; `key_text` is the probe's cache_text when the caller has it already."""
        if self.cache is None:
            return None
        # a continuation keys on its sampling and seed
        hit = self.cache.get(self._fingerprint, cache_text(probe) if key_text is None else key_text)
        if hit is None:
            return None
        text, usage = hit
        return Reply(probe_id=probe.id, target=self.adapter.name, created_at=utc_stamp(), text=text, status=STATUS_OK,
                     latency_s=0.0, attempts=0, usage={**usage, "cached": True})

    async def _attempt(self, call: Callable[[], Any], timeout_s: float, sent: list[float] | None = None) -> Any:
        """One request under its deadline; `sent[0]` becomes the moment it was sent, after the wait for a
        connection slot and a rate-limit token, so a reply's latency is the target's time, never our queue's
        (a reply recorded 5.7 s under a 5 s timeout had waited for a token first)."""
        async with self._semaphore:
            if self._limiter is not None:
                await self._limiter.acquire()
            self._check_stopping()  # waited for a slot or a token while Ctrl-C came: ask nothing new
            if sent is not None:
                sent[0] = time.monotonic()
            async with asyncio.timeout(timeout_s) as deadline:
                # the adapter's own deadline (transport.within) arms no second timer when this one is sooner
                when = deadline.when()
                token = ENCLOSING_DEADLINE.set(None if when is None else (when, asyncio.current_task()))
                try:
                    return await call()
                finally:
                    ENCLOSING_DEADLINE.reset(token)

    async def answer(self, probe: Probe) -> Reply | None:
        """The Reply for one probe: from the cache, from the target (with retries), or an error.

        None when the session stopped before an answer or a final error: nothing is recorded for the probe.
        """
        if len(probe.turns) > 1:
            return await self.answer_conversation(probe)
        plain = _plain(probe)
        key_text = (probe.text if plain else cache_text(probe)) if self.cache is not None else ""  # once: get, put
        cached = self._from_cache(probe, key_text)
        if cached is not None:
            return cached
        if self.stopping:
            return None
        started = time.monotonic()
        # ask(text), or a continuation request (answer_probe reads the probe's GenerationRequest)
        ask = (lambda: self.adapter.ask(probe.text)) if plain else (lambda: answer_probe(self.adapter, probe))
        try:
            completion, attempts, attempt_started = await self._ask_with_retries(ask)
        except _Stopped:
            return None
        except _Failed as failed:
            return self._error_reply(probe, failed, started)
        if self.cache is not None:
            self.cache.put(self._fingerprint, key_text, completion.text, completion.usage)
        usage = dict(completion.usage)
        if attempts > 1:
            usage["waited_s"] = round(attempt_started - started, 3)
        return Reply(probe_id=probe.id, target=self.adapter.name, text=completion.text, status=STATUS_OK,
                     latency_s=round(time.monotonic() - attempt_started, 4), attempts=attempts, usage=usage,
                     created_at=utc_stamp())  # harness.run.clock: records.utc_now's text, formatted cheaply

    async def _ask_with_retries(self, ask: Callable[[], Any]) -> tuple[Completion, int, float]:
        """(completion, attempts, when the successful attempt started); raises _Stopped, or _Failed with the
        attempt count when retries are spent or the failure is permanent."""
        attempts = 1
        sent = [time.monotonic()]
        first: Exception | None = None
        try:
            # The first attempt runs outside tenacity: its per-call machinery cost 0.13 ms of CPU per probe,
            # most of the engine's own cost (benchmarks/run_throughput.py), and most probes succeed at once.
            completion: Completion = await self._attempt(ask, self.settings.timeout_s, sent)
        except Exception as exc:  # noqa: BLE001 - handed to tenacity below, which decides what to retry
            first = exc
        if first is None:
            return completion, attempts, sent[0]
        try:
            # tenacity sees that failure as its own attempt 1 (replayed, not asked again), so the retry
            # decision, back-off, Retry-After and attempt cap are exactly those of _retrying().
            attempts = 0
            async for attempt in self._retrying():
                with attempt:
                    attempts += 1
                    if first is not None:
                        replayed, first = first, None
                        raise replayed
                    self._check_stopping()
                    completion = await self._attempt(ask, self.settings.timeout_s, sent)
        except _Stopped:
            raise
        except Exception as exc:  # noqa: BLE001 - every failure becomes an error reply, never a crash
            raise _Failed(exc, attempts) from exc
        return completion, attempts, sent[0]

    def _error_reply(self, probe: Probe, failed: _Failed, started: float, turns: tuple[str, ...] = ()) -> Reply:
        return Reply(probe_id=probe.id, target=self.adapter.name, created_at=utc_stamp(), text="", status=STATUS_ERROR,
                     error=describe_error(failed.exc, timeout_s=self.settings.timeout_s, secrets=self.secrets),
                     latency_s=round(time.monotonic() - started, 4), attempts=failed.attempts, turns=turns)

    def _capped(self, text: str) -> str:
        cap = self.settings.max_reply_chars
        return text[:cap] if cap and len(text) > cap else text

    async def answer_conversation(self, probe: Probe) -> Reply | None:
        """Ask a multi-turn probe's turns in one conversation, resuming after its recorded turns.

        Each turn but the last is appended to the transcript as a partial line the moment it is answered.
        Returns the final Reply (every turn's reply in `turns`, the last in `text`), an error Reply holding
        the turns answered before the failure, or None when the session stopped (the recorded turns stay).
        """
        turns = probe.turns
        if not getattr(self.adapter, "supports_history", True):
            return Reply(probe_id=probe.id, target=self.adapter.name, text="", status=STATUS_ERROR, attempts=0,
                         error=f"target kind '{self.adapter.kind}' passes no chat history, so a conversation of "
                               f"{len(turns)} turns cannot be asked (adapters.base.Adapter.supports_history)")
        replies = list(self.partial.pop(probe.id, ()))[: len(turns) - 1]
        history: list[Message] = []
        for question, said in zip(turns, replies, strict=False):
            history += [Message("user", question), Message("assistant", said)]
        started = time.monotonic()
        attempts, all_cached, usage = 0, True, {}
        for i in range(len(replies), len(turns)):
            prompt, asked_before = turns[i], tuple(history)
            hit = self.cache.get(self._fingerprint, prompt, asked_before) if self.cache is not None else None
            if hit is not None:
                text, usage = hit[0], dict(hit[1])
            else:
                if self.stopping:
                    return None
                all_cached = False
                try:
                    completion, n, _ = await self._ask_with_retries(
                        lambda p=prompt, h=asked_before: self.adapter.ask(p, history=h))
                except _Stopped:
                    return None
                except _Failed as failed:
                    return self._error_reply(probe, _Failed(failed.exc, attempts + failed.attempts), started,
                                             tuple(replies))
                attempts += n
                text, usage = completion.text, dict(completion.usage)
                if self.cache is not None:
                    self.cache.put(self._fingerprint, prompt, text, usage, history=asked_before)
            replies.append(self._capped(text))
            history += [Message("user", prompt), Message("assistant", replies[-1])]
            if i < len(turns) - 1:  # flushed now: a kill from here on loses no answered turn
                self.writer.append(probe, Reply(probe_id=probe.id, target=self.adapter.name, text=replies[-1],
                                                status=STATUS_PARTIAL, attempts=n if hit is None else 0,
                                                usage=usage, turns=tuple(replies)))
        usage = {**usage, "turns": len(turns)}
        if all_cached:
            usage["cached"] = True
        return Reply(probe_id=probe.id, target=self.adapter.name, text=replies[-1], status=STATUS_OK,
                     latency_s=round(time.monotonic() - started, 4), attempts=attempts, usage=usage,
                     turns=tuple(replies))

    async def answer_batch(self, probes: list[Probe]) -> list[Reply | None]:
        """Batched asking for local models: cache hits first, one ask_batch for the rest.

        If the batch still fails after retries, each probe is asked alone, so one bad prompt cannot turn
        a whole batch into errors.
        """
        replies: dict[str, Reply | None] = {}
        todo: list[Probe] = []
        for probe in probes:
            if len(probe.turns) > 1:  # a conversation is asked turn by turn, not in a batch
                replies[probe.id] = await self.answer(probe)
                continue
            hit = self._from_cache(probe)
            if hit is not None:
                replies[probe.id] = hit
            else:
                todo.append(probe)
        if todo:
            started = time.monotonic()
            attempts = 0
            try:
                async for attempt in self._retrying():
                    with attempt:
                        attempts += 1
                        self._check_stopping()
                        completions = await self._attempt(lambda: answer_probes(self.adapter, todo),
                                                          self.settings.timeout_s * len(todo))
                if len(completions) != len(todo):
                    raise PermanentError(f"ask_batch returned {len(completions)} answers for {len(todo)}")
            except Exception:  # noqa: BLE001 - fall back to asking one by one
                for probe in todo:
                    replies[probe.id] = await self.answer(probe)
            else:
                per_probe = (time.monotonic() - started) / len(todo)
                for probe, completion in zip(todo, completions, strict=True):
                    if self.cache is not None:
                        self.cache.put(self._fingerprint, cache_text(probe), completion.text, completion.usage)
                    replies[probe.id] = Reply(
                        probe_id=probe.id, target=self.adapter.name, text=completion.text, status=STATUS_OK,
                        latency_s=round(per_probe, 4), attempts=attempts,
                        usage={**completion.usage, "batch": len(todo)})
        return [replies[p.id] for p in probes]

    # -- bookkeeping -----------------------------------------------------------------------------
    def record(self, probe: Probe, reply: Reply) -> None:
        """Append to the transcript (flushed) and count. Called once per outcome, on the loop thread.

        Every answer mode records through here, so the reply-size cap is applied here, once.
        """
        cap = self.settings.max_reply_chars
        if cap and len(reply.text) > cap:
            reply = dataclasses.replace(reply, text=reply.text[:cap], cut_from=len(reply.text))
        if self.write_error is not None or not self._append(probe, reply):
            self.unwritten.append((probe, reply))  # received, not on disk: kept for write_unwritten()
            return
        self._count(probe, reply)

    def _count(self, probe: Probe, reply: Reply) -> None:
        """The bookkeeping of one recorded outcome: stats, settled ids, the circuit breaker, the progress bar."""
        cached = bool(reply.usage.get("cached"))
        self.stats.asked += 1
        if reply.ok:
            self.stats.answered += 1
            self.stats.cached += int(cached)
            self.stats.cut += int(reply.was_cut)
            self.settled_ok.add(probe.id)
            self.settled_error.discard(probe.id)
            for hook in REPLY_HOOKS:  # harness.score.preread: the rules read it while the run still asks
                hook(probe, reply)
            self._consecutive_errors = 0
        else:
            self.stats.errors += 1
            self.stats.error_reasons[reply.error or "unknown error"] += 1
            if probe.id not in self.settled_ok:
                self.settled_error.add(probe.id)
            self._consecutive_errors += 1
            limit = self.settings.abort_after_consecutive_errors
            if limit and self._consecutive_errors >= limit and self.abort_reason is None:
                self.abort_reason = (f"the last {self._consecutive_errors} requests all failed "
                                     f"(latest: {reply.error})")
        if self.progress is not None:
            self.progress.record(ok=reply.ok, cached=cached, latency_s=reply.latency_s,
                                 timeout_s=self.settings.timeout_s)

    def _append(self, probe: Probe, reply: Reply) -> bool:
        """Write one outcome; False after a failed write (a full disk): the session stops asking, the replies
        still in flight are kept in memory, and run() raises the error once they are in."""
        try:
            self.writer.append(probe, reply)
        except OSError as exc:
            self.write_error = exc
            self.request_stop()
            return False
        return True

    def write_unwritten(self) -> int:
        """Try once more to write the replies a failed write left in memory (cutting the torn line back may
        have freed the space); returns how many are still unwritten (asked again on resume)."""
        pending, self.unwritten = self.unwritten, []
        for probe, reply in pending:
            try:
                self.writer.append(probe, reply)
            except OSError:
                self.unwritten.append((probe, reply))
                continue
            self._count(probe, reply)
        return len(self.unwritten)

    def _prefetch(self, probes: list[Probe]) -> None:
        """Look a group of single-turn probes up in the response cache in one query (ResponseCache.prefetch),
        as the producer queues them: one SELECT per probe was a tenth of the asking loop at c=256 (issue 38)."""
        if self.cache is not None:
            self.cache.prefetch(self._fingerprint, [p.text if _plain(p) else cache_text(p) for p in probes
                                                    if len(p.turns) <= 1])

    # -- the loop --------------------------------------------------------------------------------
    async def run(self, probes: Iterable[Probe]) -> SessionStats:
        """Ask every probe in `probes` (already filtered), returning this session's stats.

        Raises RunAborted when the circuit breaker trips. After request_stop() (a first Ctrl-C) it returns
        normally once the replies in flight are recorded; a second Ctrl-C cancels it (CancelledError propagates).
        """
        started, cpu_started = time.monotonic(), time.process_time()
        batching = bool(getattr(self.adapter, "supports_batch", False)) and self.settings.batch_size > 1
        n_workers = max(1, self.settings.concurrency) * (1 if batching else 2)
        queue: asyncio.Queue[Probe | None] = asyncio.Queue(maxsize=max(16, n_workers * 4))

        async def produce() -> None:
            stream = iter(probes)
            while chunk := list(itertools.islice(stream, _PRODUCE_CHUNK)):
                self._prefetch(chunk)
                for probe in chunk:
                    await queue.put(probe)
                    if self.abort_reason or self.stopping:
                        break
                if self.abort_reason or self.stopping:
                    break
                await asyncio.sleep(0)  # let workers run even while the queue has room
            for _ in range(n_workers):
                await queue.put(None)

        feed = _Feed(probes, self._prefetch)

        async def work() -> None:
            # the breaker tripped or Ctrl-C: take nothing new, leave the rest unasked
            while not (self.abort_reason or self.stopping) and (probe := feed.take()) is not None:
                reply = await self.answer(probe)
                if reply is not None:
                    self.record(probe, reply)

        async def work_batched() -> None:
            finished = False
            while not finished:
                first = await queue.get()
                if first is None:
                    return
                batch = [first]
                while len(batch) < self.settings.batch_size:
                    try:
                        nxt = queue.get_nowait()
                    except asyncio.QueueEmpty:
                        break
                    if nxt is None:
                        finished = True
                        break
                    batch.append(nxt)
                if self.abort_reason or self.stopping:
                    continue
                for probe, reply in zip(batch, await self.answer_batch(batch), strict=True):
                    if reply is not None:
                        self.record(probe, reply)

        try:
            async with asyncio.TaskGroup() as group:
                if batching:  # one-by-one workers take from the feed themselves: no queue, no producer task
                    group.create_task(produce())
                for _ in range(n_workers):
                    group.create_task(work_batched() if batching else work())
        except ExceptionGroup as group_error:
            # Surface the first real failure (e.g. a HarnessError from the suite) as itself.
            raise group_error.exceptions[0] from None
        finally:
            self.stats.elapsed_s = time.monotonic() - started
            self.stats.cpu_s = time.process_time() - cpu_started
            if self.cache is not None:
                self.cache.flush()
        if self.write_error is not None:
            raise self.write_error
        if self.abort_reason:
            raise RunAborted(self.abort_reason)
        return self.stats
