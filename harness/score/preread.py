"""The rules read each reply while the run is still asking, so scoring after the last reply reads none twice.

The rules are pure: a verdict is a function of the probe, the reply, the method and the mode (score_run's
`reuse` relies on the same). `PreRead` takes each ok reply as the engine records it (harness.run.engine's
REPLY_HOOKS) and appends it, as one JSON line, to a spool file that a worker process
(harness.score.read_worker) reads with the rules on the other core, at a lower priority; the asking loop
pays the line and a reference kept to the recorded objects, and never waits for the GIL behind the reading.
score_run takes a verdict read ahead only when the probe and reply it read back from transcript.jsonl equal
the objects the engine recorded (so the worker read exactly those records), in the same method and mode, by
the same rules (fingerprint): a reply changed since, a probe whose record differs, another method or mode, or
changed rules are read again, and so is anything the worker had not read when asked for its verdicts.
Nothing is written to the run folder: kill -9 loses the memory only, and the transcript is untouched.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from typing import IO, Any

from harness.core.records import Probe, Reply, Verdict

MAX = 20_000  # replies read ahead at most: a reference and ~1 KB of verdict each; a 100,000-probe run stays flat
ANSWER_S = 20.0  # the longest score_run waits for the worker's verdicts before it reads every reply itself
#: sets that wait in seconds (a machine so busy that the low-priority worker needs longer); the user's setting.
#: Code that builds a PreRead itself passes wait_s instead (the in-process tests that assert the worker's verdicts
#: were taken wait 600 s, so their outcome never depends on the machine's load, without touching the environment)
WAIT_ENV = "HARNESS_READ_AHEAD_WAIT_S"


def answer_wait_s() -> float:
    """The wait for the worker's answer: $HARNESS_READ_AHEAD_WAIT_S when it is a positive number, else ANSWER_S."""
    try:
        value = float(os.environ.get(WAIT_ENV, ""))
    except ValueError:
        return ANSWER_S
    return value if value > 0 else ANSWER_S


class PreRead:
    """Verdicts of the rules read ahead: feed() from the asking loop, the reading in a worker process."""

    def __init__(self, method: str, compat: bool, *, wait_s: float | None = None) -> None:
        """`wait_s`: the longest verdicts() waits for the worker's answer; None reads answer_wait_s() then (the
        environment's setting when verdicts are asked for, as before the keyword existed)."""
        if wait_s is not None and not wait_s > 0:
            raise ValueError(f"wait_s must be a positive number of seconds, not {wait_s!r}")
        self.method, self.compat, self._wait_s = method, compat, wait_s
        self._fed: dict[str, tuple[Probe, Reply]] = {}
        self._kept: dict[str, Verdict] = {}
        self.fingerprint, self.used = "", 0  # used: the verdicts score_run took (benchmarks/whole_job.py)
        fd, self._spool_path = tempfile.mkstemp(prefix="harness-read-ahead-", suffix=".jsonl")
        self._spool: IO[bytes] | None = os.fdopen(fd, "wb")
        self._proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "harness.score.read_worker", self._spool_path, method, "1" if compat else "0"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def feed(self, probe: Probe, reply: Reply) -> None:
        """Called by the engine for each ok reply it recorded: one JSON line to the spool. Past MAX replies
        nothing is kept (score_run reads the rest)."""
        if self._spool is None or len(self._fed) >= MAX:
            return
        from harness.core import fast_json

        try:
            line = fast_json.dumps([probe.to_dict(), reply.to_dict()]) + b"\n"
        except Exception:  # noqa: BLE001 - e.g. a lone surrogate: score_run reads this reply itself
            return
        self._spool.write(line)
        self._fed[probe.id] = (probe, reply)

    def stop(self) -> None:
        """The asking is over: flush the spool and tell the worker (its stdin closes); it answers with what it
        has read. Does not wait: score_run asks for the verdicts after it has read the transcript."""
        if self._spool is not None:
            with contextlib.suppress(OSError):
                self._spool.close()
            self._spool = None
        if self._proc is not None and self._proc.stdin is not None:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
            self._proc.stdin = None  # communicate() would flush it again

    def _collect(self) -> None:
        """The worker's answer (once); any failure of it leaves no verdicts, and score_run reads them all."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            wait = self._wait_s if self._wait_s is not None else answer_wait_s()
            data, _ = proc.communicate(timeout=wait)
            got: dict[str, Any] = pickle.loads(data) if data else {}
            self.fingerprint = str(got.get("fingerprint") or "")
            self._kept = dict(got.get("verdicts") or {})
        except Exception:  # noqa: BLE001 - slow, dead or garbled: the rules read every reply in score_run
            proc.kill()
            proc.wait()
        finally:
            with contextlib.suppress(OSError):
                os.unlink(self._spool_path)  # the worker unlinks it once open; this covers a worker that never ran

    def close(self) -> None:
        """Stop and reap the worker without its verdicts (a run that will not be scored here)."""
        self.stop()
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()
        with contextlib.suppress(OSError):
            os.unlink(self._spool_path)

    def verdicts(self, ok: Iterable[tuple[Probe, Reply]], method: str, compat: bool) -> dict[str, Verdict]:
        """The kept verdicts of these (probe, reply) pairs whose records, method, mode and rules match."""
        from harness.oracles.fingerprint import rules_fingerprint

        self.stop()
        self._collect()
        if (method, compat) != (self.method, self.compat) or not self.fingerprint:
            return {}
        if self.fingerprint != rules_fingerprint():
            return {}
        out: dict[str, Verdict] = {}
        for probe, reply in ok:
            kept = self._kept.get(probe.id)
            if kept is not None and self._fed.get(probe.id) == (probe, reply):
                out[probe.id] = kept
        self.used = len(out)
        return out

    def __len__(self) -> int:
        return len(self._kept)
