"""The read-ahead worker: `python -m harness.score.read_worker SPOOL METHOD COMPAT` (issue 38).

`harness run` (harness.score.preread.PreRead) appends each ok (probe, reply) it records to SPOOL, one JSON line
each, while it asks. This process reads the lines as they come, reads each reply with the rules in METHOD
("1" for COMPAT: the compat mode) and, when its stdin closes (the run stopped asking, or the parent died),
writes a pickled `{"fingerprint": rules_fingerprint(), "verdicts": {probe_id: Verdict}}` to stdout and exits.

Why a process and not a thread: in the asking process a reading thread takes the GIL from the asking loop (it
took c=64 from 0.65-0.77 of the limit to 0.54-0.57 at load 7); here it runs on the other core, at a lower
priority (nice), and the asking loop pays one JSON line per reply. It reads nothing of the run folder and writes
nothing anywhere but stdout; the spool is unlinked as soon as it is open, so kill -9 leaves no file behind.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import sys
from typing import IO, Any

from harness.core.records import Probe, Reply, Verdict

BATCH = 256  # lines read per call of the rules (the oracles' fixed cost per call is small; latency matters more)
LAST = 2 * BATCH  # after the stop, at most this many lines still to read are read here
NICE = 10  # below the asking loop and the server it asks: the reading takes only idle CPU


def _read_lines(buf: bytes, lines: list[bytes]) -> bytes:
    """Move the complete lines of `buf` to `lines`; the torn tail (a line still being written) is returned."""
    *complete, rest = buf.split(b"\n")
    lines.extend(line for line in complete if line)
    return rest


def _read(lines: list[bytes], method: str, compat: bool, out: dict[str, Verdict]) -> None:
    """Read a batch of spooled lines with the rules into `out` (a later line of a probe replaces its earlier)."""
    from harness.core import fast_json
    from harness.score.read_rules import read_with_rules

    pairs = []
    for line in lines:
        with contextlib.suppress(Exception):  # a line it cannot read: score_run reads that reply itself
            probe, reply = fast_json.loads(line)
            pairs.append((Probe.from_dict(probe), Reply.from_dict(reply)))
    try:
        verdicts = read_with_rules(pairs, method, compat)
    except Exception:  # noqa: BLE001 - one at a time, so one reply the rules fail on costs only itself
        verdicts = []
        for pair in pairs:
            with contextlib.suppress(Exception):
                verdicts += read_with_rules([pair], method, compat)
    for verdict in verdicts:
        out[verdict.probe_id] = verdict


def _stopped(stdin: IO[bytes], wait_s: float) -> bool:
    """Whether stdin is closed (EOF: the parent said stop, or died), waiting up to `wait_s` for it."""
    ready, _, _ = select.select([stdin], [], [], wait_s)
    return bool(ready) and not os.read(stdin.fileno(), 1)


def serve(spool: str, method: str, compat: bool, stdin: IO[bytes], stdout: IO[bytes]) -> dict[str, Any]:
    """Read the spool until stdin closes, then what is left of it when that is little; write the verdicts."""
    from harness.oracles.fingerprint import rules_fingerprint

    out: dict[str, Verdict] = {}
    with open(spool, "rb") as fh:
        with contextlib.suppress(OSError):
            os.unlink(spool)  # both ends hold it open; nothing is left behind, whatever ends this process
        fingerprint = rules_fingerprint()
        tail, lines = b"", list[bytes]()
        while True:
            tail = _read_lines(tail + fh.read(1 << 20), lines)
            if _stopped(stdin, 0 if lines else 0.05):
                tail = _read_lines(tail + fh.read(), lines)  # what the parent flushed before it said stop
                if len(lines) <= LAST:  # a backlog beyond that is left to score_run: the parent is waiting
                    _read(lines, method, compat, out)
                break
            batch, lines = lines[:BATCH], lines[BATCH:]
            if batch:
                _read(batch, method, compat, out)
    result = {"fingerprint": fingerprint, "verdicts": out}
    pickle.dump(result, stdout, protocol=pickle.HIGHEST_PROTOCOL)
    stdout.flush()
    return result


def main(argv: list[str]) -> int:
    with contextlib.suppress(OSError):
        os.nice(NICE)
    spool, method, compat = argv
    serve(spool, method, compat == "1", sys.stdin.buffer, sys.stdout.buffer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
