"""The cap on requests in flight: a FIFO semaphore that hands a released slot straight to the next waiter.

Why not asyncio.Semaphore: the run engine keeps twice as many workers as slots (so a probe sleeping in back-off
never holds a slot another could use), so at c=256 a slot is released and taken hundreds of times a second
with 256 waiters queued. asyncio.Semaphore's release (Python 3.11) wakes the first waiter that is not done
by walking its queue from the front, past every waiter already woken in the same tick and not yet run, and
its locked() walks the queue too: 2-4% of the asking loop's CPU (issue 38). Here a release pops the next
waiter and gives it the slot (O(1)); a waiter cancelled after it was handed one passes it on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from typing import Any


class Slots:
    """At most `n` holders at once; waiters are served in arrival order. Use from one event loop."""

    __slots__ = ("_free", "_waiters")

    def __init__(self, n: int) -> None:
        if n < 1:
            raise ValueError("a slot cap is at least 1")
        self._free = n
        self._waiters: deque[asyncio.Future[None]] = deque()

    @property
    def free(self) -> int:
        """Slots nobody holds now (0 while anyone waits)."""
        return self._free

    async def acquire(self) -> None:
        """Take a slot, waiting for one when none is free (then the releaser hands it over directly)."""
        if self._free > 0:  # free slots and waiters never coexist: release() hands over while anyone waits
            self._free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a slot just as it was cancelled: the next waiter gets it
            else:
                with contextlib.suppress(ValueError):  # cancelled while waiting: no slot was handed to it
                    self._waiters.remove(waiter)
            raise

    def release(self) -> None:
        """Give a slot back: to the longest waiter still waiting, else to the free count."""
        waiters = self._waiters
        while waiters:
            waiter = waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1

    async def __aenter__(self) -> None:
        await self.acquire()

    async def __aexit__(self, *exc: Any) -> None:
        self.release()
