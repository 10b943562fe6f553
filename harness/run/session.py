"""The loop a run session lives in: signals, the event loop, the heartbeat and the run-folder lock.

Kept apart from the engine (which asks probes) and the planner (which decides what to ask): this is the
process plumbing that makes Ctrl-C, kill -9 and two processes on one run folder safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter
from harness.core.errors import HarnessError

STOPPING_NOTE = "stopping: waiting for the replies in progress; Ctrl-C again to stop now"
#: after SIGTERM (a supervisor, `kill`): there may be no keyboard, so the note does not offer Ctrl-C
TERM_NOTE = "stopping (SIGTERM): waiting for the replies in progress; a second SIGTERM stops now"


@dataclass
class StopState:
    """What the signal handlers did to this session: asked to stop (first signal), stopped at once (second)."""

    requested: bool = False
    hard: bool = False


async def with_signals(coro: Any, *, on_stop: Callable[[], None] | None = None,
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

    def on_signal(sig: int = signal.SIGINT) -> None:
        if on_stop is not None and not state.requested:
            state.requested = True
            on_stop()
            if notify is not None:
                notify(TERM_NOTE if sig == signal.SIGTERM else STOPPING_NOTE)
            return
        state.requested = state.hard = True
        task.cancel()
        remove_handlers()

    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, on_signal, sig)
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


def threads_left_running() -> bool:
    """True while a non-daemon thread other than the main one is alive (e.g. a local model generating)."""
    main = threading.main_thread()
    return any(t.is_alive() and not t.daemon and t is not main for t in threading.enumerate())


@contextlib.contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on a run folder, so two processes never ask the same run at once.

    flock() locks die with their process, so a run killed with -9 never leaves a stale lock behind.
    """
    import fcntl  # POSIX only: imported where it is used, so the module imports on any platform

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


def is_locked(run_dir: Path) -> bool:
    """True while a harness process holds the run folder with run_lock (a killed one holds nothing)."""
    import fcntl

    lock = run_dir / ".lock"
    if not lock.exists():
        return False
    with lock.open("a+") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
        return False


HEARTBEAT_S = 5.0


async def with_heartbeat(coro: Any, beat: Callable[[], None], every_s: float = HEARTBEAT_S) -> Any:
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


async def closing(coro: Any, adapter: Adapter | None) -> Any:
    """Await the engine, then close the adapter we created in the same event loop (its HTTP pool lives there)."""
    try:
        return await coro
    finally:
        if adapter is not None:
            with contextlib.suppress(Exception):
                await adapter.aclose()
