"""harness.run.clock: the engine's cheap time stamp is records.utc_now's text, to the character."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from harness.core.records import utc_now
from harness.run.clock import stamp_at, utc_stamp


def _reference(ns: int) -> str:
    """What datetime writes for the same instant (its microseconds from the nanoseconds, cut as isoformat cuts)."""
    when = datetime.fromtimestamp(ns // 1_000_000_000, UTC).replace(microsecond=ns % 1_000_000_000 // 1000)
    return when.isoformat(timespec="milliseconds")


def test_stamp_is_datetimes_text_at_the_edges_of_a_second() -> None:
    second = 1_796_185_593 * 1_000_000_000  # 2026-12-02T04:26:33Z
    for ns in (second, second + 999_999_999, second + 1_000_000_000, second + 123_456_789, 0):
        assert stamp_at(ns) == _reference(ns)
    assert stamp_at(second + 999_999_999) == "2026-12-02T04:26:33.999+00:00"
    assert stamp_at(second + 1_000_000_000) == "2026-12-02T04:26:34.000+00:00"


def test_now_reads_like_utc_now() -> None:
    shape = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$")
    before, mine, after = utc_now(), utc_stamp(), utc_now()
    assert shape.match(mine) and shape.match(before)
    assert before <= mine <= after  # the same clock, the same text: ordered as strings
