"""A requests-per-minute limit for one target: an asyncio token bucket.

Why a token bucket and not a fixed sleep between requests: providers publish limits per minute, and a
bucket lets a run start with a small burst (up to `burst` requests at once) and then settles at exactly
the allowed average rate, while concurrency stays an independent knob. One bucket is shared by every
worker of a run, so the limit holds however many requests are in flight.
"""

from __future__ import annotations

import asyncio
import time


class TokenBucket:
    """Allow at most `rate_per_minute` acquisitions per minute on average, bursts up to `burst`.

    `acquire()` waits until a token is available. Waiters are served in arrival order (an asyncio.Lock
    is fair), so no worker starves behind a stream of luckier ones.
    """

    def __init__(self, rate_per_minute: float, *, burst: int | None = None) -> None:
        if rate_per_minute <= 0:
            raise ValueError("rate_per_minute must be positive")
        self.rate = rate_per_minute / 60.0  # tokens per second
        # A burst of one second's worth (at least 1) keeps the short-term rate close to the limit;
        # providers that count per minute tolerate that, and it avoids a thundering start.
        self.capacity = float(burst if burst is not None else max(1, int(self.rate)))
        self._tokens = self.capacity
        self._last = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self._tokens = min(self.capacity, self._tokens + (now - self._last) * self.rate)
        self._last = now

    async def acquire(self) -> None:
        async with self._lock:
            self._refill()
            if self._tokens < 1.0:
                await asyncio.sleep((1.0 - self._tokens) / self.rate)
                self._refill()
            self._tokens -= 1.0


class NoLimit:
    """The do-nothing limiter used when no --rpm is set (keeps the hot path free of branches)."""

    async def acquire(self) -> None:
        return None


def make_limiter(rpm: float | None) -> TokenBucket | NoLimit:
    return TokenBucket(rpm) if rpm else NoLimit()
