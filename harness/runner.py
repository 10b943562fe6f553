"""The run engine: ask every selected probe of one target, fast, and record every outcome on disk.

Shape (producer / workers, all in one asyncio loop):

    select_probes() --> producer --(bounded queue)--> N workers --> adapter.ask --> TranscriptWriter
                         skips what the transcript        |            ^
                         already settles (resume)         +-- cache ---+   (hits never reach the target)

* The queue is bounded, so a suite of millions of probes is streamed, never held in memory.
* A semaphore caps requests in flight per target (`concurrency`); a token bucket caps requests per minute.
  Workers outnumber request slots, so a probe sleeping in back-off never holds a slot another could use.
* Each attempt runs under asyncio.timeout. tenacity retries transient failures (429, 5xx, timeouts,
  dropped connections, anything unexpected) with exponential back-off and jitter, waiting at least what
  the provider asked for in Retry-After. (The first attempt runs outside tenacity, for speed; a failure
  is replayed into tenacity as its attempt 1, so every retry decision is tenacity's: Engine.answer.) PermanentError (401, 400, malformed or empty answers) is not
  retried. A probe that still fails is recorded as a Reply with status "error", a one-line reason (secrets
  removed) and its attempt count: kept apart from answers, never scored, re-asked by --retry-errors.
* Every outcome is appended to transcript.jsonl and flushed the moment it arrives; a kill loses at most the
  requests in flight. Resume reads the transcript back (latest record per probe wins, an answer is never
  superseded by an error) and asks only what is still open.

The runner knows transport outcomes, not bias: scoring happens afterwards, from the transcript alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import random
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tenacity import AsyncRetrying, RetryCallState, stop_after_attempt

from adapters.base import Adapter, Completion, PermanentError, TransientError
from harness import manifest as mf
from harness.errors import HarnessError, InfrastructureError
from harness.progress import RunProgress, SessionStats
from harness.ratelimit import make_limiter
from harness.records import STATUS_ERROR, STATUS_OK, Probe, Reply
from harness.response_cache import ResponseCache
from harness.transcript import TRANSCRIPT_FILE, TranscriptWriter, read_entries

MODE_FRESH = "fresh"
MODE_RESUME = "resume"
MODE_RETRY_ERRORS = "retry-errors"

ANSWER_GENERATE = "generate"
ANSWER_LOGLIK = "loglik"

_MAX_REASON = 300


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


@dataclass
class RunOutcome:
    """What run_suite did: the run folder, this session's numbers and the whole run's state."""

    run_id: str
    run_dir: Path
    status: str  # manifest status: complete / interrupted / failed
    mode: str
    stats: SessionStats
    run_counts: dict[str, Any]
    abort_reason: str | None = None
    #: A second Ctrl-C stopped the session at once; threads it abandoned (a local model mid-reply) may
    #: still be running, and the caller should exit without waiting for them (harness.cli_run does).
    stopped_at_once: bool = False

    @property
    def transcript_path(self) -> Path:
        return self.run_dir / TRANSCRIPT_FILE

    @property
    def interrupted(self) -> bool:
        return self.status == mf.STATUS_INTERRUPTED

    @property
    def error_rate(self) -> float:
        done = self.run_counts.get("answered", 0) + self.run_counts.get("errors", 0)
        return self.run_counts.get("errors", 0) / done if done else 0.0


class _Abort(Exception):
    """Raised inside the engine when the circuit breaker trips."""


class _Stopped(Exception):
    """Raised instead of a new attempt once the session is stopping: the probe stays open for resume."""


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
    return one_line(f"{exc.__class__.__name__}: {detail}", secrets)


def _should_retry(state: RetryCallState) -> bool:
    """Retry everything but PermanentError. Only Exceptions: a CancelledError (Ctrl-C) must propagate."""
    if state.outcome is None or not state.outcome.failed:
        return False
    exc = state.outcome.exception()
    return isinstance(exc, Exception) and not isinstance(exc, PermanentError | _Stopped)


class Engine:
    """Asks probes of one adapter and writes each outcome through `record` as it arrives."""

    def __init__(self, adapter: Adapter, writer: TranscriptWriter, *, settings: EngineSettings,
                 cache: ResponseCache | None = None, progress: RunProgress | None = None,
                 secrets: Iterable[str] = (), rng: random.Random | None = None) -> None:
        self.adapter = adapter
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
        self._semaphore = asyncio.Semaphore(max(1, settings.concurrency))
        self._limiter = make_limiter(settings.rpm)
        self._rng = rng or random.Random()
        self._consecutive_errors = 0
        self.stopping = False
        self._stop_event = asyncio.Event()

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
    def _from_cache(self, probe: Probe) -> Reply | None:
        if self.cache is None:
            return None
        hit = self.cache.get(self._fingerprint, probe.text)
        if hit is None:
            return None
        text, usage = hit
        return Reply(probe_id=probe.id, target=self.adapter.name, text=text, status=STATUS_OK,
                     latency_s=0.0, attempts=0, usage={**usage, "cached": True})

    async def _attempt(self, call: Callable[[], Any], timeout_s: float) -> Any:
        async with self._semaphore:
            await self._limiter.acquire()
            self._check_stopping()  # waited for a slot or a token while Ctrl-C came: ask nothing new
            async with asyncio.timeout(timeout_s):
                return await call()

    async def answer(self, probe: Probe) -> Reply | None:
        """The Reply for one probe: from the cache, from the target (with retries), or an error.

        None when the session stopped before an answer or a final error: nothing is recorded for the probe.
        """
        cached = self._from_cache(probe)
        if cached is not None:
            return cached
        if self.stopping:
            return None
        attempts = 1
        started = time.monotonic()
        attempt_started = started
        ask = lambda: self.adapter.ask(probe.text)  # noqa: E731
        first: Exception | None = None
        try:
            # The first attempt runs outside tenacity: its per-call machinery cost 0.13 ms of CPU per probe,
            # most of the engine's own cost (benchmarks/run_throughput.py), and most probes succeed at once.
            completion: Completion = await self._attempt(ask, self.settings.timeout_s)
        except Exception as exc:  # noqa: BLE001 - handed to tenacity below, which decides what to retry
            first = exc
        try:
            if first is not None:
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
                        attempt_started = time.monotonic()
                        completion = await self._attempt(ask, self.settings.timeout_s)
        except _Stopped:
            return None
        except Exception as exc:  # noqa: BLE001 - every failure becomes an error reply, never a crash
            return Reply(probe_id=probe.id, target=self.adapter.name, text="", status=STATUS_ERROR,
                         error=describe_error(exc, timeout_s=self.settings.timeout_s, secrets=self.secrets),
                         latency_s=round(time.monotonic() - started, 4), attempts=attempts)
        if self.cache is not None:
            self.cache.put(self._fingerprint, probe.text, completion.text, completion.usage)
        usage = dict(completion.usage)
        if attempts > 1:
            usage["waited_s"] = round(attempt_started - started, 3)
        return Reply(probe_id=probe.id, target=self.adapter.name, text=completion.text, status=STATUS_OK,
                     latency_s=round(time.monotonic() - attempt_started, 4), attempts=attempts, usage=usage)

    async def answer_batch(self, probes: list[Probe]) -> list[Reply | None]:
        """Batched asking for local models: cache hits first, one ask_batch for the rest.

        If the batch still fails after retries, each probe is asked alone, so one bad prompt cannot turn
        a whole batch into errors.
        """
        replies: dict[str, Reply | None] = {}
        todo: list[Probe] = []
        for probe in probes:
            hit = self._from_cache(probe)
            if hit is not None:
                replies[probe.id] = hit
            else:
                todo.append(probe)
        if todo:
            prompts = [p.text for p in todo]
            started = time.monotonic()
            attempts = 0
            try:
                async for attempt in self._retrying():
                    with attempt:
                        attempts += 1
                        self._check_stopping()
                        completions = await self._attempt(lambda: self.adapter.ask_batch(prompts),
                                                          self.settings.timeout_s * len(prompts))
                if len(completions) != len(todo):
                    raise PermanentError(f"ask_batch returned {len(completions)} answers for {len(todo)}")
            except Exception:  # noqa: BLE001 - fall back to asking one by one
                for probe in todo:
                    replies[probe.id] = await self.answer(probe)
            else:
                per_probe = (time.monotonic() - started) / len(todo)
                for probe, completion in zip(todo, completions, strict=True):
                    if self.cache is not None:
                        self.cache.put(self._fingerprint, probe.text, completion.text, completion.usage)
                    replies[probe.id] = Reply(
                        probe_id=probe.id, target=self.adapter.name, text=completion.text, status=STATUS_OK,
                        latency_s=round(per_probe, 4), attempts=attempts,
                        usage={**completion.usage, "batch": len(todo)})
        return [replies[p.id] for p in probes]

    # -- bookkeeping -----------------------------------------------------------------------------
    def record(self, probe: Probe, reply: Reply) -> None:
        """Append to the transcript (flushed) and count. Called once per outcome, on the loop thread."""
        self.writer.append(probe, reply)
        cached = bool(reply.usage.get("cached"))
        self.stats.asked += 1
        if reply.ok:
            self.stats.answered += 1
            self.stats.cached += int(cached)
            self.settled_ok.add(probe.id)
            self.settled_error.discard(probe.id)
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
            self.progress.record(ok=reply.ok, cached=cached)

    # -- the loop --------------------------------------------------------------------------------
    async def run(self, probes: Iterable[Probe]) -> SessionStats:
        """Ask every probe in `probes` (already filtered), returning this session's stats.

        Raises _Abort when the circuit breaker trips. After request_stop() (a first Ctrl-C) it returns
        normally once the replies in flight are recorded; a second Ctrl-C cancels it (CancelledError propagates).
        """
        started, cpu_started = time.monotonic(), time.process_time()
        batching = bool(getattr(self.adapter, "supports_batch", False)) and self.settings.batch_size > 1
        n_workers = max(1, self.settings.concurrency) * (1 if batching else 2)
        queue: asyncio.Queue[Probe | None] = asyncio.Queue(maxsize=max(16, n_workers * 4))

        async def produce() -> None:
            for i, probe in enumerate(probes):
                await queue.put(probe)
                if i % 256 == 255:
                    await asyncio.sleep(0)  # let workers run even while the queue has room
                if self.abort_reason or self.stopping:
                    break
            for _ in range(n_workers):
                await queue.put(None)

        async def work() -> None:
            while (probe := await queue.get()) is not None:
                if self.abort_reason or self.stopping:
                    continue  # drain: the breaker tripped or Ctrl-C, leave the rest unasked
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
        if self.abort_reason:
            raise _Abort(self.abort_reason)
        return self.stats


# ---------------------------------------------------------------------------------------------------
# Run folders, resume and the public entry point


def scan_transcript(path: Path) -> tuple[set[str], set[str]]:
    """Probe ids settled as answered, and as errored, with transcript.latest_by_probe() semantics.

    Reads only ids and statuses (not whole records), so resuming a run of millions of lines stays cheap.
    """
    ok: set[str] = set()
    err: set[str] = set()
    if not path.exists():
        return ok, err
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # torn tail, repaired by TranscriptWriter before anything is appended
            try:
                obj = json.loads(raw)
                pid = obj["probe"]["id"]
                status = obj["reply"].get("status", STATUS_OK)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            if status == STATUS_OK:
                ok.add(pid)
                err.discard(pid)
            elif pid not in ok:
                err.add(pid)
    return ok, err


def errored_probes(path: Path) -> list[Probe]:
    """Probes whose latest outcome in the transcript is an error (what --retry-errors asks again)."""
    pending: dict[str, Probe] = {}
    answered: set[str] = set()
    for entry in read_entries(path):
        pid = entry.probe.id
        if entry.reply.ok:
            answered.add(pid)
            pending.pop(pid, None)
        elif pid not in answered:
            pending[pid] = entry.probe
    return list(pending.values())


def _selected_estimate(suite: Any, sample: int | None, limit: int | None) -> int | None:
    """How many probes the selection holds, for the progress bar (exact count is taken while streaming)."""
    try:
        total = int(suite.count())
    except HarnessError:
        raise  # a broken suite spec (unknown filter value, missing data): say so before anything is asked
    except Exception:  # noqa: BLE001 - a suite without a cheap count just gets an open-ended bar
        return None
    for cap in (sample, limit):
        if cap:
            total = min(total, cap)
    return total


def load_suite_any(suite: Any) -> Any:
    """A Suite object, or one loaded by name/path through question_gen.suites."""
    if not isinstance(suite, str | Path):
        return suite
    try:
        from question_gen.suites import load_suite
    except ImportError as exc:  # pragma: no cover - only while the suites module is missing
        raise HarnessError("Suites are not available in this installation (question_gen.suites is "
                           "missing); reinstall the harness.") from exc
    return load_suite(str(suite))


def select_any(suite: Any, *, sample: int | None, seed: int, limit: int | None,
               overrides: dict[str, Any]) -> Iterator[Probe]:
    from question_gen.suites import select_probes

    return select_probes(suite, sample=sample, seed=seed, limit=limit, overrides=overrides)


@dataclass
class TargetInfo:
    """What the runner needs to know about a target besides the adapter: defaults and secret values."""

    name: str
    adapter: Adapter
    defaults: dict[str, Any] = field(default_factory=dict)  # concurrency, rpm, timeout_s from targets.toml
    secrets: tuple[str, ...] = ()


def _secret_env_names(config: Any) -> list[str]:
    """Names of the environment variables holding the target's secrets (TargetConfig.secret_env values)."""
    return [v for v in (getattr(config, "secret_env", None) or {}).values() if isinstance(v, str)]


def target_config(name: str) -> Any:
    """The TargetConfig for a target name (adapters.registry; an unknown name is a one-sentence error)."""
    from adapters.registry import get_target

    return get_target(name)


def resolve_target(target: str | Adapter, overrides: dict[str, Any] | None = None) -> TargetInfo:
    """Create the adapter for a target name (or wrap a ready Adapter) and collect its run defaults."""
    if isinstance(target, Adapter):
        return TargetInfo(name=target.name, adapter=target)
    from adapters.registry import create_adapter

    config = target_config(target)
    adapter = create_adapter(target, **(overrides or {}))
    defaults = {}
    for key in ("concurrency", "rpm", "timeout_s"):
        value = getattr(config, key, None)
        if value is not None:
            defaults[key] = value
    batch = (getattr(config, "settings", None) or {}).get("batch_size")
    if batch:
        defaults["batch_size"] = batch
    secrets = tuple(os.environ[n] for n in _secret_env_names(config) if os.environ.get(n))
    return TargetInfo(name=target, adapter=adapter, defaults=defaults, secrets=secrets)


def _run_counts(ok: set[str], err: set[str], selected: int | None) -> dict[str, Any]:
    counts: dict[str, Any] = {"answered": len(ok), "errors": len(err)}
    if selected is not None:
        counts["selected"] = selected
        counts["pending"] = max(0, selected - len(ok) - len(err))
    return counts


STOPPING_NOTE = "stopping: waiting for the replies in progress; Ctrl-C again to stop now"


@dataclass
class StopState:
    """What the signal handlers did to this session: asked to stop (first signal), stopped at once (second)."""

    requested: bool = False
    hard: bool = False


async def _with_signals(coro: Any, *, on_stop: Callable[[], None] | None = None,
                        notify: Callable[[str], None] | None = None,
                        state: StopState | None = None) -> tuple[Any, bool]:
    """Run `coro` as a task that SIGINT/SIGTERM stop; returns (result, interrupted).

    First signal: `on_stop()` (the engine asks nothing new and lets the replies in flight finish, so every
    answer already paid for is recorded) and one line through `notify`. Without `on_stop` the first signal
    stops at once. Second signal: the task is cancelled at once; the transcript is consistent either way,
    since every reply is one flushed line written on this loop's thread, never interrupted mid-line.
    The handlers are then removed, so a third Ctrl-C is Python's own KeyboardInterrupt.
    """
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(coro)
    state = state or StopState()
    installed: list[int] = []

    def remove_handlers() -> None:
        for sig in installed:
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        installed.clear()

    def on_signal() -> None:
        if on_stop is not None and not state.requested:
            state.requested = True
            on_stop()
            if notify is not None:
                notify(STOPPING_NOTE)
            return
        state.requested = state.hard = True
        task.cancel()
        remove_handlers()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal)
            installed.append(sig)
        except (NotImplementedError, RuntimeError, ValueError):
            pass  # not the main thread (e.g. called from a worker thread): no clean-stop handler
    try:
        return await task, state.requested
    except asyncio.CancelledError:
        if state.hard:
            return None, True
        raise
    finally:
        remove_handlers()


def run_loop(coro: Any, *, abandon: Callable[[], bool] | None = None) -> Any:
    """Run a coroutine on a fresh event loop: uvloop when installed (HARNESS_UVLOOP=0 turns it off).

    Why uvloop: at hundreds of requests per second the HTTP stack's socket work dominates the harness's
    CPU, and uvloop's libuv-based loop cuts that by about a tenth (benchmarks/run_throughput.py).

    `abandon()` true at the end (a second Ctrl-C) closes the loop without waiting for its worker threads:
    a local model generating in a thread cannot be interrupted, and "stop now" must not wait for it.
    """
    factory = None
    if os.environ.get("HARNESS_UVLOOP", "1") != "0":
        try:
            import uvloop

            factory = uvloop.new_event_loop
        except ImportError:
            factory = None
    runner = asyncio.Runner(loop_factory=factory)
    try:
        return runner.run(coro)
    finally:
        if abandon is not None and abandon():
            loop = runner.get_loop()
            with contextlib.suppress(Exception):
                loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()  # shuts the default executor down with wait=False
        else:
            runner.close()


def derived_run_id(suite_name: str, target_name: str, *, sample: int | None, seed: int, limit: int | None,
                   overrides: dict[str, Any], answer_mode: str = ANSWER_GENERATE) -> str:
    """The run id a command without --run-id gets: the same command always lands in the same folder
    (that is how rerunning resumes), and `harness run --dry-run` counts against that same folder."""
    run_id = mf.default_run_id(suite_name, target_name, sample=sample, seed=seed, limit=limit,
                               extra="-".join(f"{k}{v}" for k, v in sorted(overrides.items())))
    return run_id + "-loglik" if answer_mode == ANSWER_LOGLIK else run_id


def threads_left_running() -> bool:
    """True while a non-daemon thread other than the main one is alive (e.g. a local model generating)."""
    import threading

    main = threading.main_thread()
    return any(t.is_alive() and not t.daemon and t is not main for t in threading.enumerate())


def _filtered(probes: Iterable[Probe], *, ok: set[str], err: set[str], retry_errors: bool,
              counter: dict[str, int]) -> Iterator[Probe]:
    """Only the probes this session must ask; counts every probe seen (the exact selection size)."""
    claimed: set[str] = set()
    for probe in probes:
        counter["seen"] += 1
        pid = probe.id
        if pid in claimed:
            continue  # a duplicate in the stream is asked once
        # --retry-errors asks only probes whose latest outcome is an error; otherwise only unsettled ones.
        if (pid not in err) if retry_errors else (pid in ok or pid in err):
            counter["skipped"] += 1
            continue
        claimed.add(pid)
        yield probe
    counter["exhausted"] = 1


def _fresh_suffix() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S")


def run_suite(suite: Any = None, target: str | Adapter | None = None, *, probes: Iterable[Probe] | None = None,
              sample: int | None = None, seed: int = 0, limit: int | None = None,
              overrides: dict[str, Any] | None = None, run_id: str | None = None, new: bool = False,
              resume: str | None = None, retry_errors: bool = False, engine: EngineSettings | None = None,
              engine_overrides: dict[str, Any] | None = None, target_overrides: dict[str, Any] | None = None,
              use_cache: bool = True, cache_path: Path | None = None, show_progress: bool = True,
              answer_mode: str = ANSWER_GENERATE, argv: list[str] | None = None,
              console: Any = None) -> RunOutcome:
    """Ask a suite's selected probes of a target; write transcripts/<run-id>/{manifest.json,transcript.jsonl}.

    suite: a suite name, a YAML path or a Suite object; or pass `probes` directly (any iterable of Probe;
        then `suite` is only the name recorded in the manifest).
    target: a target name from targets.toml / presets, or a ready Adapter instance.
    run_id: defaults to one derived from suite + target + selection, so the same command resumes the
        same run; `new=True` starts a fresh run under a timestamped id. `resume=RUN` continues an existing
        run with the selection stored in its manifest. `retry_errors=True` re-asks only errored probes.
    engine / engine_overrides: EngineSettings, or field overrides on top of the target's defaults
        (concurrency, rpm, timeout_s from targets.toml) and EngineSettings' defaults.

    Returns a RunOutcome; raises HarnessError for user mistakes. Ctrl-C / SIGTERM end the session with
    status "interrupted" (nothing answered is lost): the first lets the replies in flight finish and be
    recorded, a second stops at once. Scoring is not done here (see harness.cli_run).
    """
    session_started = time.monotonic()  # the summary's time is the whole session: setup, asking, stopping
    if answer_mode not in (ANSWER_GENERATE, ANSWER_LOGLIK):
        raise HarnessError(f"Unknown answer mode '{answer_mode}'; use generate or loglik.")
    overrides = dict(overrides or {})
    previous: dict[str, Any] = {}
    if resume:
        run_dir = mf.resolve_run(resume)
        previous = mf.read_manifest(run_dir)
        sel = previous.get("selection", {})
        suite = suite or previous.get("suite")
        target = target or previous.get("target")
        if previous.get("suite") and isinstance(suite, str) and suite != previous["suite"]:
            raise HarnessError(f"Run {run_dir.name} asked suite '{previous['suite']}', not '{suite}'; "
                               "drop --suite or start a new run.")
        if previous.get("target") and isinstance(target, str) and target != previous["target"]:
            raise HarnessError(f"Run {run_dir.name} asked target '{previous['target']}', not '{target}'; "
                               "drop --target or start a new run.")
        sample, seed, limit = sel.get("sample"), sel.get("seed", 0), sel.get("limit")
        overrides = {**(sel.get("overrides") or {}), **overrides}
        answer_mode = previous.get("answer_mode", answer_mode)
        run_id = run_dir.name
    if suite is None or target is None:
        raise HarnessError("Say what to ask and whom: --suite NAME --target NAME (or --resume RUN).")

    # --retry-errors takes the errored probes from the transcript (they travel with their replies), so a
    # resumed run need not load or regenerate its suite at all.
    from_transcript = retry_errors and probes is None
    suite_obj = None if (probes is not None or (from_transcript and resume)) else load_suite_any(suite)
    suite_name = getattr(suite_obj, "name", None) or (str(suite) if suite is not None else "custom")
    owns_adapter = not isinstance(target, Adapter)
    info = resolve_target(target, target_overrides)
    adapter = info.adapter

    # Precedence: explicit overrides (CLI flags) > an explicit EngineSettings > the target's defaults
    # (targets.toml: concurrency, rpm, timeout_s, batch_size) > EngineSettings' own defaults.
    settings = engine or EngineSettings()
    merged = {**({} if engine else info.defaults),
              **{k: v for k, v in (engine_overrides or {}).items() if v is not None}}
    if merged:
        known = {f for f in EngineSettings.__dataclass_fields__}
        settings = EngineSettings(**{**asdict(settings), **{k: v for k, v in merged.items() if k in known}})

    if not run_id:
        run_id = derived_run_id(suite_name, info.name, sample=sample, seed=seed, limit=limit,
                                overrides=overrides, answer_mode=answer_mode)
        if new:
            run_id += f"__{_fresh_suffix()}"
    # Counted before the run folder exists: a suite that cannot be generated (a misspelt attribute filter)
    # is a one-sentence error that leaves no empty run folder behind.
    estimate = None
    if suite_obj is not None:
        with_overrides = getattr(suite_obj, "with_overrides", None)
        counted = with_overrides(**overrides) if (overrides and with_overrides) else suite_obj
        estimate = _selected_estimate(counted, sample, limit)
    run_dir = mf.run_dir_for(run_id) if not resume else run_dir
    with run_lock(run_dir):
        manifest = previous or mf.read_manifest(run_dir)
        transcript = run_dir / TRANSCRIPT_FILE
        if manifest and not resume:
            for key, mine in (("suite", suite_name), ("target", info.name)):
                if manifest.get(key) and manifest[key] != mine:
                    raise HarnessError(f"Run folder {run_dir} belongs to {key} '{manifest[key]}'; "
                                       "pick another --run-id or use --new.")
        if manifest and manifest.get("fingerprint") and manifest["fingerprint"] != adapter.fingerprint():
            raise HarnessError(f"Target '{info.name}' settings changed since run {run_id} started "
                               "(model, endpoint or generation settings); use --new to start a fresh run.")

        ok, err = scan_transcript(transcript)
        mode = MODE_RETRY_ERRORS if retry_errors else (MODE_RESUME if ok or err else MODE_FRESH)
        secrets = info.secrets
        command = mf.command_line(argv, secrets)
        if not manifest:
            manifest = mf.new_manifest(
                run_id=run_id, suite=suite_name, target=info.name, adapter=adapter.kind,
                settings=adapter.public_settings(), lang=getattr(suite_obj, "lang", ""),
                generator=getattr(suite_obj, "generator", ""), fingerprint=adapter.fingerprint(),
                sample=sample, seed=seed, limit=limit, overrides=overrides, answer_mode=answer_mode,
                selected=estimate, command=command)
        manifest["engine"] = asdict(settings)
        session = mf.begin_session(manifest, command=command, mode=mode)
        mf.write_manifest(run_dir, manifest)

        if from_transcript:
            probes = errored_probes(transcript)
        elif probes is None:
            probes = select_any(suite_obj, sample=sample, seed=seed, limit=limit, overrides=overrides)
        counter = {"seen": 0, "skipped": 0, "exhausted": 0}
        todo = _filtered(probes, ok=ok, err=err, retry_errors=retry_errors, counter=counter)

        cache = ResponseCache(cache_path) if use_cache and answer_mode == ANSWER_GENERATE else None
        writer = TranscriptWriter(run_dir)
        total = estimate if estimate is not None else None
        already = len(ok) + (0 if retry_errors else len(err))
        if retry_errors:
            total, already = len(err), 0
        progress = RunProgress(total, already_done=already, enabled=show_progress, console=console)
        engine_obj = Engine(adapter, writer, settings=settings, cache=cache, progress=progress, secrets=secrets)
        status = mf.STATUS_COMPLETE
        abort_reason: str | None = None
        stop = StopState()
        try:
            with progress:
                if answer_mode == ANSWER_LOGLIK:
                    coro = _run_loglik(todo, adapter, writer, engine_obj)
                else:
                    coro = engine_obj.run(todo)

                def checkpoint() -> None:
                    """Keep the manifest's counts current, so `harness runs` shows a live or killed run truly."""
                    answered = ok | engine_obj.settled_ok
                    manifest["counts"] = _run_counts(answered, (err | engine_obj.settled_error) - answered,
                                                     manifest.get("probes_selected"))
                    mf.write_manifest(run_dir, manifest)

                coro = _with_heartbeat(coro, checkpoint)
                _, interrupted = run_loop(
                    _with_signals(_closing(coro, adapter if owns_adapter else None), on_stop=engine_obj.request_stop,
                                  notify=progress.note, state=stop),
                    abandon=lambda: stop.hard)
            if interrupted:
                status = mf.STATUS_INTERRUPTED
        except _Abort as exc:
            status, abort_reason = mf.STATUS_FAILED, str(exc)
        except HarnessError:
            status = mf.STATUS_FAILED
            raise
        except OSError as exc:  # the transcript could not be written (disk full, folder removed...)
            status = mf.STATUS_INTERRUPTED
            raise InfrastructureError(f"Cannot write to {run_dir} ({exc.strerror or exc}); everything recorded so far "
                                      f"is kept: fix that, then rerun with `harness run --resume {run_id}`.") from None
        except BaseException:
            status = mf.STATUS_INTERRUPTED
            raise
        finally:
            writer.close()
            if cache is not None:
                cache.close()
            stats = engine_obj.stats
            stats.skipped = counter["skipped"]
            stats.session_s = time.monotonic() - session_started
            final_ok = ok | engine_obj.settled_ok
            final_err = (err | engine_obj.settled_error) - final_ok
            whole_selection = counter["exhausted"] and not retry_errors  # retry mode sees only the errored
            selected = counter["seen"] if whole_selection else manifest.get("probes_selected")
            if whole_selection:
                manifest["probes_selected"] = selected
            run_counts = _run_counts(final_ok, final_err, selected)
            if status == mf.STATUS_COMPLETE and run_counts.get("pending"):
                status = mf.STATUS_INCOMPLETE  # e.g. --retry-errors on a run that was never finished
            session_counts = stats.as_dict()
            if abort_reason:
                manifest["abort_reason"] = abort_reason
            mf.end_session(manifest, session, status=status, session_counts=session_counts, run_counts=run_counts)
            mf.write_manifest(run_dir, manifest)
        return RunOutcome(run_id=run_id, run_dir=run_dir, status=status, mode=mode, stats=stats,
                          run_counts=run_counts, abort_reason=abort_reason, stopped_at_once=stop.hard)


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on a run folder, so two processes never ask the same run at once.

    flock() locks die with their process, so a run killed with -9 never leaves a stale lock behind.
    """
    import fcntl

    run_dir.mkdir(parents=True, exist_ok=True)
    with (run_dir / ".lock").open("a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise HarnessError(f"Run {run_dir.name} is being asked by another harness process right now; "
                               "wait for it to finish, or start a separate run with --new.") from None
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


HEARTBEAT_S = 5.0


async def _with_heartbeat(coro: Any, beat: Callable[[], None], every_s: float = HEARTBEAT_S) -> Any:
    """Await `coro`, calling `beat()` every `every_s` seconds meanwhile (a failing beat is not fatal)."""

    async def loop() -> None:
        while True:
            await asyncio.sleep(every_s)
            with contextlib.suppress(OSError):
                beat()

    ticker = asyncio.ensure_future(loop())
    try:
        return await coro
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker


async def _closing(coro: Any, adapter: Adapter | None) -> Any:
    """Await the engine, then close the adapter we created in the same event loop (its HTTP pool lives there)."""
    try:
        return await coro
    finally:
        if adapter is not None:
            with contextlib.suppress(Exception):
                await adapter.aclose()


async def _run_loglik(probes: Iterable[Probe], adapter: Adapter, writer: TranscriptWriter,
                      engine: Engine) -> SessionStats:
    """CBBQ log-likelihood answer mode (hf targets): delegated to harness.loglik_runner (task G).

    The transcript writer is wrapped so that every record still goes through Engine.record (counts,
    progress, settled sets) exactly as in generate mode.
    """
    try:
        from harness.loglik_runner import run_loglik
    except ImportError as exc:
        raise HarnessError("--answer-mode loglik is not available in this installation "
                           "(harness.loglik_runner is missing).") from exc
    if not hasattr(adapter, "loglikelihoods"):
        raise HarnessError(f"Target '{adapter.name}' ({adapter.kind}) gives no log-likelihoods; "
                           "--answer-mode loglik needs an hf target.")

    class _RecordingWriter:
        path = writer.path

        def append(self, probe: Probe, reply: Reply) -> None:
            engine.record(probe, reply)

    def until_stopped() -> Iterator[Probe]:
        """The first Ctrl-C ends the stream: the probe being scored is finished and recorded, no new one starts."""
        for probe in probes:
            if engine.stopping:
                return
            yield probe

    started, cpu = time.monotonic(), time.process_time()
    result = run_loglik(until_stopped(), adapter, _RecordingWriter())
    if inspect.isawaitable(result):
        await result
    engine.stats.elapsed_s = time.monotonic() - started
    engine.stats.cpu_s = time.process_time() - cpu
    return engine.stats
