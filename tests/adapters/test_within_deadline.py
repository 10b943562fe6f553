"""transport.within arms no timer of its own under a sooner deadline its caller enforces (the run engine's
per-attempt timeout), and arms one in every other case, so no call is ever left without a deadline.

Why it matters: each asked probe ran under two timers (the engine's and the adapter's), 3% of the asking loop's
CPU each at c=256 (issue 38); the engine's, started first with the same length, always fired first anyway.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from harness.adapters.base import TransientError
from harness.adapters.transport import ENCLOSING_DEADLINE, within


def _timers(loop: asyncio.AbstractEventLoop) -> int:
    return len(loop._scheduled)  # type: ignore[attr-defined] - the standard loop's timer heap


async def _under(outer_s: float, inner_s: float, sleep_s: float, *, same_task: bool = True) -> tuple[str, int, float]:
    """Sleep `sleep_s` inside within(inner_s) inside the caller's own deadline of `outer_s`; what ended it,
    how many timers were armed once the call had started (before its own sleep), and how long it took."""
    loop = asyncio.get_running_loop()
    seen: list[int] = []

    async def nap() -> None:
        await asyncio.sleep(0)
        seen.append(_timers(loop))
        await asyncio.sleep(sleep_s)

    started = time.monotonic()
    try:
        async with asyncio.timeout(outer_s) as deadline:
            task = asyncio.current_task() if same_task else None
            token = ENCLOSING_DEADLINE.set((deadline.when(), task))  # type: ignore[arg-type]
            try:
                await within(inner_s, nap())
            finally:
                ENCLOSING_DEADLINE.reset(token)
    except TimeoutError:
        return "caller", seen[0], time.monotonic() - started
    except TransientError as exc:
        return exc.reason, seen[0], time.monotonic() - started
    return "done", seen[0], time.monotonic() - started


def test_a_sooner_caller_deadline_means_one_timer_and_the_callers_timeout() -> None:
    ended, timers, took = asyncio.run(_under(0.2, 5.0, 3.0))
    assert ended == "caller" and took < 2.5
    assert timers == 1  # the caller's timer alone: within added none


def test_a_shorter_adapter_deadline_still_arms_its_own_timer() -> None:
    ended, timers, took = asyncio.run(_under(5.0, 0.2, 3.0))
    assert ended == "timed out after 0.2s" and took < 2.5
    assert timers == 2  # the caller's and within's


@pytest.mark.parametrize("outer_s", [0.2, 5.0])
def test_a_deadline_set_for_another_task_is_not_trusted(outer_s: float) -> None:
    """A task that only inherits the context (a gather child) may outlive the caller's scope: it arms its own."""
    _ended, timers, _took = asyncio.run(_under(outer_s, 5.0, 0.01, same_task=False))
    assert timers == 2


def test_without_a_caller_deadline_within_times_out_itself() -> None:
    async def go() -> str:
        try:
            await within(0.1, asyncio.sleep(3))
        except TransientError as exc:
            return exc.reason
        return "done"

    assert asyncio.run(go()) == "timed out after 0.1s"
