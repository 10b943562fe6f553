"""The append-only transcript: one JSON line per reply, flushed as each reply arrives.

Why JSONL and not a database: a line is written with a single write() call and flushed, so a process
killed with SIGKILL leaves at most one torn final line, which `repair()` cuts off. Every earlier answer is
intact and readable by any tool. Resume, --retry-errors, manual mode and sheet import all go through
this one module so that they agree on what "answered" means.

Each line is {"probe": Probe.to_dict(), "reply": Reply.to_dict()}; the probe travels with the reply so
that a transcript can be scored on its own, without regenerating the suite.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harness.core.records import STATUS_OK, Probe, Reply

TRANSCRIPT_FILE = "transcript.jsonl"


@dataclass(frozen=True, slots=True)
class Entry:
    probe: Probe
    reply: Reply


def repair(path: Path) -> int:
    """Cut a torn final line (left by a kill mid-write); return the number of bytes removed.

    Only the tail after the last newline can be torn, because every record is one write ending in '\\n'.
    """
    if not path.exists():
        return 0
    size = path.stat().st_size
    if size == 0:
        return 0
    with path.open("rb+") as fh:
        # Read backwards in blocks until we find the last newline.
        block = 1 << 16
        pos = size
        tail_start = 0
        while pos > 0:
            start = max(0, pos - block)
            fh.seek(start)
            chunk = fh.read(pos - start)
            idx = chunk.rfind(b"\n")
            if idx >= 0:
                tail_start = start + idx + 1
                break
            pos = start
        if tail_start == size:
            return 0
        fh.truncate(tail_start)
        return size - tail_start


def read_entries(path: Path) -> Iterator[Entry]:
    """Yield every complete record. Undecodable lines (never written by us) are skipped, not fatal."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break  # torn tail: ignored here, cut by repair() before the next append
            try:
                obj = json.loads(raw)
                yield Entry(Probe.from_dict(obj["probe"]), Reply.from_dict(obj["reply"]))
            except (ValueError, KeyError, TypeError):
                continue


def latest_by_probe(path: Path) -> dict[str, Entry]:
    """The last record for each probe id: a later answer (e.g. from --retry-errors) supersedes an error."""
    latest: dict[str, Entry] = {}
    for entry in read_entries(path):
        prev = latest.get(entry.probe.id)
        # An answer is never replaced by a later error for the same probe.
        if prev is not None and prev.reply.status == STATUS_OK and entry.reply.status != STATUS_OK:
            continue
        latest[entry.probe.id] = entry
    return latest


class TranscriptWriter:
    """Appends records to a run's transcript.jsonl; safe to use from one asyncio loop.

    Each record is serialised first and written with one write() + flush(), so a kill can only tear the
    very last line. `fsync_every` trades durability against power loss for speed; process death
    (Ctrl-C, SIGKILL) never loses a flushed line because the OS already holds it.
    """

    def __init__(self, run_dir: Path, *, fsync_every: int = 200) -> None:
        self.path = Path(run_dir) / TRANSCRIPT_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        repair(self.path)
        self._fh: IO[bytes] = self.path.open("ab", buffering=0)
        self._fsync_every = fsync_every
        self._since_sync = 0

    def append(self, probe: Probe, reply: Reply) -> None:
        line = json.dumps({"probe": probe.to_dict(), "reply": reply.to_dict()}, ensure_ascii=False)
        self._fh.write(line.encode("utf-8", errors="replace") + b"\n")
        self._since_sync += 1
        if self._fsync_every and self._since_sync >= self._fsync_every:
            os.fsync(self._fh.fileno())
            self._since_sync = 0

    def close(self) -> None:
        if not self._fh.closed:
            try:
                os.fsync(self._fh.fileno())
            finally:
                self._fh.close()

    def __enter__(self) -> TranscriptWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
