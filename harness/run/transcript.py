"""The append-only transcript: one JSON line per reply, flushed as each reply arrives.

Why JSONL and not a database: a line is written with a single write() call and flushed, so a process
killed with SIGKILL leaves at most one torn final line, which `repair()` cuts off. Every earlier answer is
intact and readable by any tool. Resume, --retry-errors, manual mode and sheet import all go through
this one module so that they agree on what "answered" means.

Each line is {"probe": Probe.to_dict(), "reply": Reply.to_dict()}; the probe travels with the reply so
that a transcript can be scored on its own, without regenerating the suite.

A multi-turn probe (Probe.turns) also gets one line per answered turn before its last, with reply status
"partial" and the replies so far in reply["turns"]: so a kill mid-conversation loses no answered turn, and
resume continues from the last of them (`partial_turns`). Partial lines are not outcomes: every reader here
skips them (read_entries, latest_by_probe, settled_ids); the final line of the conversation (ok or error)
holds every turn's reply again in reply["turns"].

Damaged lines are never skipped in silence and their bytes are never lost. A line in the middle that is not
JSON, or not a record (a disk error, a hand edit, two writers), is skipped by every reader, which can
collect it as a `DamagedLine` ("line 15: not JSON, skipped; it is kept in transcript.rejected.jsonl"); the
run summary, `harness report` and `harness runs` name them, and `keep_rejected` copies each one, once,
into transcript.rejected.jsonl (the line stays in the transcript too). A torn last line is cut by
`repair()` before the next append, after its bytes went to the same file.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from harness.core import fast_json
from harness.core.records import STATUS_OK, STATUS_PARTIAL, Probe, Reply, utc_now

TRANSCRIPT_FILE = "transcript.jsonl"
REJECTED_SUFFIX = ".rejected.jsonl"
REJECTED_FILE = "transcript" + REJECTED_SUFFIX
NOT_JSON = "not JSON"
NOT_RECORD = "not a harness record"
UNFINISHED = "unfinished (no end of line: a reply being written, or torn by a kill)"
TORN = "torn by a kill (no end of line), cut"


@dataclass(frozen=True, slots=True)
class Entry:
    probe: Probe
    reply: Reply


@dataclass(frozen=True, slots=True)
class DamagedLine:
    """A line of a JSONL file that no reader could use: where it is, why, and its bytes."""

    line: int  # 1-based
    reason: str
    raw: bytes

    def describe(self, kept: bool = True) -> str:
        where = f"it is kept in {REJECTED_FILE}" if kept else "it stays in the file"
        if self.reason == UNFINISHED:
            return f"line {self.line}: {self.reason}, not read"
        if self.reason == TORN:
            return f"line {self.line}: {self.reason}; its {len(self.raw):,} bytes are kept in {REJECTED_FILE}"
        return f"line {self.line}: {self.reason}, skipped; {where}"


def rejected_path(path: Path) -> Path:
    """transcript.jsonl -> transcript.rejected.jsonl (reviews.jsonl -> reviews.rejected.jsonl)."""
    return path.with_name(path.name.removesuffix(".jsonl") + REJECTED_SUFFIX)


def keep_rejected(path: Path, damaged: Iterable[DamagedLine]) -> int:
    """Copy damaged lines of `path` into its .rejected.jsonl, each (line number, bytes) once; returns how
    many were new. A record: {"line", "reason", "found_at", "sha256", "text"} with the bytes as text when
    they are UTF-8, else as "base64", so nothing is lost and the file stays JSONL."""
    todo = [d for d in damaged if d.reason != UNFINISHED]
    if not todo:
        return 0
    out = rejected_path(path)
    seen: set[tuple[int, str]] = set()
    if out.exists():
        for raw in out.read_bytes().splitlines():
            try:
                rec = json.loads(raw)
                seen.add((int(rec["line"]), str(rec["sha256"])))
            except (ValueError, KeyError, TypeError):
                continue
    new = 0
    with out.open("ab") as fh:
        for d in todo:
            digest = hashlib.sha256(d.raw).hexdigest()
            if (d.line, digest) in seen:
                continue
            seen.add((d.line, digest))
            rec: dict[str, object] = {"line": d.line, "reason": d.reason, "found_at": utc_now(), "sha256": digest}
            try:
                rec["text"] = d.raw.decode("utf-8")
            except UnicodeDecodeError:
                rec["base64"] = base64.b64encode(d.raw).decode("ascii")
            fh.write(json.dumps(rec, ensure_ascii=True).encode("ascii") + b"\n")
            new += 1
        fh.flush()
        os.fsync(fh.fileno())
    return new


def repair(path: Path, damaged: list[DamagedLine] | None = None) -> int:
    """Cut a torn final line (left by a kill mid-write); return the number of bytes removed.

    Only the tail after the last newline can be torn, because every record is one write ending in '\\n'.
    The torn bytes are first kept in the file's .rejected.jsonl (and appended to `damaged`), so a repair
    never loses data, and a caller can say what it cut.
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
        fh.seek(tail_start)
        torn = DamagedLine(line=_count_lines(fh, tail_start) + 1, reason=TORN, raw=fh.read(size - tail_start))
        keep_rejected(path, [torn])
        if damaged is not None:
            damaged.append(torn)
        fh.truncate(tail_start)
        return size - tail_start


def _count_lines(fh: IO[bytes], end: int) -> int:
    """Newlines in the first `end` bytes of an open file (its position is restored)."""
    here = fh.tell()
    fh.seek(0)
    count, left = 0, end
    while left > 0:
        chunk = fh.read(min(left, 1 << 20))
        if not chunk:
            break
        count += chunk.count(b"\n")
        left -= len(chunk)
    fh.seek(here)
    return count


def read_entries(path: Path, damaged: list[DamagedLine] | None = None) -> Iterator[Entry]:
    """Yield every complete record. Lines that are not one (never written by us) are skipped, not fatal,
    and appended to `damaged` when the caller wants to name them (it should)."""
    if not path.exists():
        return
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                if damaged is not None:  # torn tail: cut by repair() before the next append
                    damaged.append(DamagedLine(number, UNFINISHED, raw))
                break
            try:
                obj = fast_json.loads(raw)  # orjson: a quarter of reading the transcript back with json
                if obj["reply"].get("status") == STATUS_PARTIAL:
                    continue  # a turn of a conversation still going: not an outcome (partial_turns reads it)
                yield Entry(Probe.from_dict(obj["probe"]), Reply.from_dict(obj["reply"]))
            except ValueError:
                if raw.strip() and damaged is not None:
                    damaged.append(DamagedLine(number, NOT_JSON, raw))
            except (KeyError, TypeError, AttributeError):
                if damaged is not None:
                    damaged.append(DamagedLine(number, NOT_RECORD, raw))


def latest_by_probe(path: Path, damaged: list[DamagedLine] | None = None) -> dict[str, Entry]:
    """The last record for each probe id: a later answer (e.g. from --retry-errors) supersedes an error."""
    latest: dict[str, Entry] = {}
    for entry in read_entries(path, damaged):
        prev = latest.get(entry.probe.id)
        # An answer is never replaced by a later error for the same probe.
        if prev is not None and prev.reply.status == STATUS_OK and entry.reply.status != STATUS_OK:
            continue
        latest[entry.probe.id] = entry
    return latest


def settled_ids(path: Path, damaged: list[DamagedLine] | None = None) -> tuple[set[str], set[str]]:
    """Probe ids settled as answered, and as errored, with latest_by_probe() semantics.

    Reads only ids and statuses (not whole records), so resuming or listing a run of millions of lines
    stays cheap. Lines that are no record go to `damaged`, as in read_entries.
    """
    ok: set[str] = set()
    err: set[str] = set()
    for number, obj, raw in enumerate_records(path, damaged):
        try:
            pid = obj["probe"]["id"]
            status = obj["reply"].get("status", STATUS_OK)
        except (KeyError, TypeError, AttributeError):
            if damaged is not None:
                damaged.append(DamagedLine(number, NOT_RECORD, raw))
            continue
        if status == STATUS_OK:
            ok.add(pid)
            err.discard(pid)
        elif status != STATUS_PARTIAL and pid not in ok:
            err.add(pid)
    return ok, err


def partial_turns(path: Path) -> dict[str, tuple[str, ...]]:
    """For each multi-turn probe with answered turns but no final outcome yet, the replies so far (in turn
    order): what resume continues the conversation from. A probe with a later ok or error line is not here
    (its conversation ended; --retry-errors of an error starts from its recorded turns: see the engine)."""
    found: dict[str, tuple[str, ...]] = {}
    for _, obj, _raw in enumerate_records(path):
        try:
            pid, reply = obj["probe"]["id"], obj["reply"]
            status = reply.get("status", STATUS_OK)
        except (KeyError, TypeError, AttributeError):
            continue
        turns = tuple(str(t) for t in reply.get("turns") or ())
        if status == STATUS_PARTIAL or (status != STATUS_OK and turns):
            if len(turns) >= len(found.get(pid, ())):
                found[pid] = turns
        elif status == STATUS_OK:
            found.pop(pid, None)
    return found


def enumerate_records(path: Path, damaged: list[DamagedLine] | None = None
                      ) -> Iterator[tuple[int, dict, bytes]]:
    """(line number, JSON object, its bytes) for every object line; other lines go to `damaged`.

    A last line without its newline is a reply being written (or torn by a kill): reported as UNFINISHED,
    never parsed, since half a line can happen to be valid JSON.
    """
    if not path.exists():
        return
    with path.open("rb") as fh:
        for number, raw in enumerate(fh, start=1):
            if not raw.endswith(b"\n"):
                if damaged is not None:
                    damaged.append(DamagedLine(number, UNFINISHED, raw))
                break
            try:
                obj = json.loads(raw)
            except ValueError:
                if raw.strip() and damaged is not None:
                    damaged.append(DamagedLine(number, NOT_JSON, raw))
                continue
            if isinstance(obj, dict):
                yield number, obj, raw
            elif damaged is not None:
                damaged.append(DamagedLine(number, NOT_RECORD, raw))


class TranscriptWriter:
    """Appends records to a run's transcript.jsonl; safe to use from one asyncio loop.

    Each record is serialised first and written with one write() + flush(), so a kill can only tear the
    very last line. `fsync_every` trades durability against power loss for speed; process death
    (Ctrl-C, SIGKILL) never loses a flushed line because the OS already holds it.
    """

    def __init__(self, run_dir: Path, *, fsync_every: int = 200) -> None:
        self.path = Path(run_dir) / TRANSCRIPT_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.repaired: list[DamagedLine] = []  # the torn last line cut on opening, if any (bytes kept)
        repair(self.path, self.repaired)
        self._fh: IO[bytes] = self.path.open("ab", buffering=0)
        self._end = self.path.stat().st_size  # the end of the last whole line: where a failed write is cut back to
        self._fsync_every = fsync_every
        self._since_sync = 0

    def append(self, probe: Probe, reply: Reply) -> None:
        record = {"probe": probe.to_dict(), "reply": reply.to_dict()}
        try:
            data = fast_json.dumps(record)  # orjson when installed: a sixth of the asking loop's CPU with json
        except UnicodeEncodeError:
            # A lone surrogate (a server's JSON may spell "\\ud800") cannot be UTF-8: written as a JSON
            # escape instead, so the line reads back to exactly the same text (errors="replace" lost it).
            data = json.dumps(record, ensure_ascii=True).encode("ascii")
        self._write_whole(data + b"\n")
        self._since_sync += 1
        if self._fsync_every and self._since_sync >= self._fsync_every:
            os.fsync(self._fh.fileno())
            self._since_sync = 0

    def _write_whole(self, line: bytes) -> None:
        """Write one line whole, or leave the file as it was: a full disk writes part of a line (a short write)
        and then fails, and that part used to stay as a torn line that resume called "torn by a kill"."""
        fd = self._fh.fileno()
        try:
            written = os.write(fd, line)  # almost always the whole line at once
            if written < len(line):  # a short write (a full disk writes part of it, then fails)
                view = memoryview(line)[written:]
                while view:
                    view = view[os.write(fd, view):]
        except OSError:
            with contextlib.suppress(OSError):  # cut back to the last whole line (repair() would, on opening)
                os.ftruncate(fd, self._end)
            raise
        self._end += len(line)

    def size(self) -> int:
        """Bytes written so far (every write is unbuffered, so this is the file's size on disk)."""
        return self._end

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
