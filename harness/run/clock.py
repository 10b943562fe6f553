"""The time stamp a reply records, made cheaply: the run engine stamps hundreds of replies a second.

`utc_stamp()` is exactly harness.core.records.utc_now's text (ISO 8601 in UTC to the millisecond,
"2026-12-02T04:06:33.123+00:00"), but the date and the time of day are formatted once a second and only the
milliseconds per reply: `datetime.now(UTC).isoformat(timespec="milliseconds")` per reply was 2% of the asking
loop's CPU at c=256 (issue 38). What is recorded does not change.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

_NS_PER_S = 1_000_000_000
_NS_PER_MS = 1_000_000


class _Stamper:
    """The formatted second, kept until the clock leaves it (one tuple, swapped whole: safe from any thread)."""

    __slots__ = ("formatted",)

    def __init__(self) -> None:
        self.formatted: tuple[int, str] = (-1, "")

    def at(self, ns: int) -> str:
        """The stamp of `ns` nanoseconds since the epoch (milliseconds cut, not rounded, as isoformat does)."""
        second, rest = divmod(ns, _NS_PER_S)
        formatted = self.formatted
        if formatted[0] != second:
            formatted = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S."))
            self.formatted = formatted
        return f"{formatted[1]}{rest // _NS_PER_MS:03d}+00:00"


_STAMPER = _Stamper()


def utc_stamp() -> str:
    """Now, as records.utc_now writes it ."""
    return _STAMPER.at(time.time_ns())


def stamp_at(ns: int) -> str:
    """The stamp of a given instant, in nanoseconds since the epoch (what the tests compare with datetime)."""
    return _Stamper().at(ns)
