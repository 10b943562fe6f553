"""benchmarks/scale_100k.py reads RSS at a share of the probes off the same clock as the transcript's lines.

The figures in docs/benchmarks.md (RSS at 10% / 50% / 100% of a 100,000-probe run) come from these two helpers,
so a wrong offset or an off-by-one share would misstate whether memory stays flat.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import scale_100k  # noqa: E402 - the helpers under test are the benchmark's


def test_line_counter_reads_only_what_was_appended(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    counter = scale_100k._LineCounter(path)
    assert counter.count() == 0  # not written yet
    path.write_bytes(b'{"a": 1}\n{"a": 2}\n{"a"')  # a line still being written is not counted
    assert counter.count() == 2
    with path.open("ab") as fh:
        fh.write(b': 3}\n{"a": 4}\n')
    assert counter.count() == 4
    assert counter.offset == path.stat().st_size


def test_rss_at_a_share_is_the_last_sample_before_it_and_the_peak_at_the_end() -> None:
    # (transcript lines, RSS MB) every tick: start-up before any line, then growing
    samples = [(0, 40.0), (0, 90.0), (5, 100.0), (10, 101.0), (50, 104.0), (90, 110.0), (100, 108.0)]
    assert scale_100k._rss_at(samples, 0.1, 100) == 101.0  # the last one with at most 10 lines
    assert scale_100k._rss_at(samples, 0.5, 100) == 104.0
    assert scale_100k._rss_at(samples, 1.0, 100) == 110.0  # the highest while the lines reached 100%
    assert scale_100k._rss_at([(0, 40.0), (0, 60.0)], 0.1, 100) == 60.0  # no line yet: the last sample
