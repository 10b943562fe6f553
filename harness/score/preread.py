"""The rules read each reply while the run is still asking, so scoring after the last reply reads none twice.

The rules are pure: a verdict is a function of the probe, the reply, the method and the mode (score_run's
`reuse` relies on the same). `PreRead` takes each ok reply as the engine records it (harness.run.engine's
REPLY_HOOKS), reads it with the rules in a background thread (harness.cli.warmup) and keeps the verdict in
memory beside a digest of the probe's and the reply's records (as the transcript holds them) and the rules'
fingerprint.
score_run takes a kept verdict only when all of that is what it read back from transcript.jsonl: a reply
changed since, a probe whose record differs, another method or mode, or changed rules read it again.
Nothing is written anywhere: kill -9 loses the memory only, and the transcript is untouched.
"""

from __future__ import annotations

import collections
import hashlib
import json
import threading
import time
from collections.abc import Iterable
from typing import Any

from harness.core.records import Probe, Reply, Verdict

MAX = 20_000  # replies read ahead at most: ~1 KB each kept (a 16-byte key and the verdict)


def _key(probe: dict[str, Any], reply: dict[str, Any]) -> bytes:
    """The records' digest: a kept verdict is used only for the same probe and reply records."""
    return hashlib.blake2b(json.dumps([probe, reply], sort_keys=True, default=str).encode(), digest_size=16).digest()


class PreRead:
    """Verdicts of the rules read ahead: feed() from the asking loop (an append), drain() in a thread."""

    def __init__(self, method: str, compat: bool) -> None:
        self.method, self.compat = method, compat
        self._queue: collections.deque[tuple[Probe, Reply]] = collections.deque()
        self._kept: dict[str, tuple[bytes, Verdict]] = {}
        self._stop = threading.Event()
        self.fingerprint, self._fed = "", 0

    def feed(self, probe: Probe, reply: Reply) -> None:
        """Called by the engine for each ok reply it recorded: costs the asking loop one append. Past MAX
        replies nothing is kept (a 100,000-probe run's memory stays flat; score_run reads the rest)."""
        self._fed += 1
        if self._fed <= MAX:
            self._queue.append((probe, reply))

    def stop(self) -> None:
        self._stop.set()

    def drain(self, idle_s: float = 0.05) -> None:
        """Read what was fed, until stop(); what is left unread when it stops is read by score_run."""
        from harness.oracles.fingerprint import rules_fingerprint
        from harness.score.scoring import _oracle_score  # score_run's own reading (a reply's lone surrogates too)

        self.fingerprint = rules_fingerprint()
        while not self._stop.is_set():
            if not self._queue:
                self._stop.wait(idle_s)
                continue
            probe, reply = self._queue.popleft()
            p, r = probe.to_dict(), reply.to_dict()
            try:  # read what the transcript gives back (its records), so a kept verdict is the one score_run gets
                verdict = _oracle_score([(Probe.from_dict(p), Reply.from_dict(r))], self.method, self.compat)[0]
            except Exception:  # noqa: BLE001 - score_run reads this one again and says what went wrong
                continue
            self._kept[probe.id] = (_key(p, r), verdict)
            time.sleep(0)  # hand the GIL back to the asking loop after each reply (its latency comes first)

    def verdicts(self, ok: Iterable[tuple[Probe, Reply]], method: str, compat: bool) -> dict[str, Verdict]:
        """The kept verdicts of these (probe, reply) pairs whose records, method, mode and rules match."""
        from harness.oracles.fingerprint import rules_fingerprint

        if (method, compat) != (self.method, self.compat) or not self.fingerprint:
            return {}
        if self.fingerprint != rules_fingerprint():
            return {}
        out: dict[str, Verdict] = {}
        for probe, reply in ok:
            kept = self._kept.get(probe.id)
            if kept is not None and kept[0] == _key(probe.to_dict(), reply.to_dict()):
                out[probe.id] = kept[1]
        return out

    def __len__(self) -> int:
        return len(self._kept)
