"""harness.run.slots.Slots: the engine's cap on requests in flight holds, serves waiters in order, and never
loses a slot to a cancelled waiter."""

from __future__ import annotations

import asyncio

import pytest

from harness.run.slots import Slots


def test_never_more_holders_than_slots_and_waiters_served_in_order() -> None:
    async def go() -> tuple[int, list[int]]:
        slots, holding, peak, order = Slots(3), [0], [0], []

        async def hold(i: int) -> None:
            async with slots:
                order.append(i)
                holding[0] += 1
                peak[0] = max(peak[0], holding[0])
                await asyncio.sleep(0.001 * (i % 4))
                holding[0] -= 1

        await asyncio.gather(*(hold(i) for i in range(40)))
        assert slots.free == 3
        return peak[0], order

    peak, order = asyncio.run(go())
    assert peak == 3
    assert order[:3] == [0, 1, 2] and sorted(order) == list(range(40))


def test_a_waiter_cancelled_while_waiting_or_after_the_hand_over_loses_no_slot() -> None:
    async def go() -> int:
        slots = Slots(1)
        await slots.acquire()
        waiting = asyncio.ensure_future(slots.acquire())
        handed = asyncio.ensure_future(slots.acquire())
        await asyncio.sleep(0)
        waiting.cancel()  # cancelled in the queue
        await asyncio.sleep(0)
        slots.release()  # skips the cancelled one: `handed` gets the slot...
        handed.cancel()  # ...and is cancelled before it runs: it must pass the slot on
        for task in (waiting, handed):
            with pytest.raises(asyncio.CancelledError):
                await task
        return slots.free

    assert asyncio.run(go()) == 1


def test_zero_slots_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Slots(0)
