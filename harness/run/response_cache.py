"""A persistent cache of target answers, so re-running a suite never pays twice for the same question.

Key: the adapter's fingerprint (kind + every public setting that changes the answer: model, endpoint,
temperature, max tokens, system prompt...) + the prompt + the chat history. Only successful answers are
stored; an error is never cached, so a flaky provider cannot poison later runs.

Why SQLite: one file in harness.core.paths.cache_dir(), safe for concurrent readers and a writer from several
runs at once (WAL mode), indexed lookups for millions of entries, no server. Writes are committed in
groups (512 answers, or every 2 s): losing the last few hundred cache entries on a kill costs only repeat
questions, while the transcript (the record of truth) is flushed per reply. A commit per 64 rows cost 17 us a
row, one per 512 7 us (random keys: each commit rewrites the pages it touched), a twentieth of a request's CPU.

The asking loop looks its questions up ahead, a few hundred in one query (`prefetch`), rather than one SELECT
per probe: the per-query Python and SQLite call cost 8 us a probe, most of it not the B-tree (issue 38).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.core import fast_json
from harness.core.paths import cache_dir

CACHE_FILE = "responses.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    text TEXT NOT NULL,
    usage TEXT NOT NULL,
    created_at REAL NOT NULL
)
"""


#: json.dumps(..., ensure_ascii=False, separators=(",", ":")) built once (dumps builds an encoder per call with
#: options): the same bytes, so every key stored by earlier versions is found again.
_KEY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
_USAGE_JSON = json.JSONEncoder(default=str).encode
#: Keys of questions looked up and not found, kept until their answer is put (so it is hashed once); a bound,
#: since a question that ends as an error is never put.
_MISSED_MAX = 4096
#: Questions looked up ahead (`prefetch`) and not yet asked for; a bound, since a stopped run never asks for them.
_AHEAD_MAX = 16384
#: Keys per query of `prefetch` (SQLite's oldest limit on bound parameters is 999).
_PREFETCH_CHUNK = 500


def cache_key(fingerprint: str, prompt: str, history: Sequence[Any] = ()) -> str:
    """sha256 over fingerprint, prompt and history (role/content pairs), separated unambiguously.

    The asking loop's case (two strings, no history) is encoded by fast_json (orjson): for strings its bytes are
    json's with these options, character for character (tests/run/test_response_cache_key.py), and it was 3% of
    the loop at c=256 with json; anything else goes through json itself."""
    if not history and type(prompt) is str and type(fingerprint) is str:
        return hashlib.sha256(fast_json.dumps([fingerprint, prompt, []])).hexdigest()
    hist = [[getattr(m, "role", ""), getattr(m, "content", str(m))] for m in history]
    return hashlib.sha256(_KEY_JSON([fingerprint, prompt, hist]).encode("utf-8")).hexdigest()


def _usage_text(usage: dict) -> str:
    """The stored text of a reply's usage: orjson's (1 us; json's encoder took 15 us, 3% of the asking loop at
    c=256), and json's with default=str for what orjson refuses (a non-string key, an odd value). Either reads
    back to the same dict; only the spacing differs."""
    try:
        return fast_json.dumps(usage).decode("utf-8")
    except (TypeError, ValueError):  # UnicodeEncodeError (a lone surrogate) is a ValueError
        return _USAGE_JSON(usage)


class ResponseCache:
    """get/put answers by (fingerprint, prompt, history). Use from one thread (the run's event loop)."""

    def __init__(self, path: Path | None = None, *, commit_every: int = 512, commit_interval_s: float = 2.0):
        self.path = Path(path) if path else cache_dir() / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        #: answers not yet committed, by key (a lookup must see them: a repeated question in one group)
        self._pending: dict[str, tuple[str, str, str, str, float]] = {}
        self._missed: dict[tuple[str, str], str] = {}
        #: (fingerprint, prompt) -> (key, stored (text, usage) or None), found by `prefetch`, used once by get()
        self._ahead: dict[tuple[str, str], tuple[str, tuple[str, str] | None]] = {}
        self._commit_every = commit_every
        self._commit_interval_s = commit_interval_s
        self._last_commit = time.monotonic()
        self.hits = 0
        self.misses = 0

    def get(self, fingerprint: str, prompt: str, history: Sequence[Any] = ()) -> tuple[str, dict] | None:
        """The stored (text, usage) for this question, or None."""
        ahead = None if history else self._ahead.pop((fingerprint, prompt), None)
        if ahead is not None:  # looked up by prefetch: no query of its own
            key, row = ahead
        else:
            key = cache_key(fingerprint, prompt, history)
            row = None
        pending = self._pending.get(key)  # it may still be waiting in the uncommitted group
        if pending is not None:
            row = (pending[2], pending[3])
        elif ahead is None:
            row = self._db.execute("SELECT text, usage FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            if not history:  # the asking loop's case: its answer comes back through put() with the same words
                if len(self._missed) >= _MISSED_MAX:
                    self._missed.clear()
                self._missed[(fingerprint, prompt)] = key
            return None
        self.hits += 1
        return row[0], json.loads(row[1])

    def prefetch(self, fingerprint: str, prompts: Sequence[str]) -> None:
        """Look these single-turn questions up now, in a few queries, for the get() of each that follows (once).

        What prefetch found is what get() answers, unless an answer was put since (the same words asked twice in
        one run: put() forgets the lookup, and get() asks the database again). A stopped run leaves lookups
        unused; they are bounded (_AHEAD_MAX)."""
        keys: dict[str, str] = {}
        for prompt in prompts:
            if (fingerprint, prompt) not in self._ahead:
                keys[cache_key(fingerprint, prompt)] = prompt
        if len(self._ahead) + len(keys) > _AHEAD_MAX:
            self._ahead.clear()
        found: dict[str, tuple[str, str]] = {}
        todo = list(keys)
        for start in range(0, len(todo), _PREFETCH_CHUNK):
            chunk = todo[start:start + _PREFETCH_CHUNK]
            marks = ",".join("?" * len(chunk))
            for key, text, usage in self._db.execute(
                    f"SELECT key, text, usage FROM responses WHERE key IN ({marks})", chunk):  # noqa: S608 - marks
                found[key] = (text, usage)
        for key, prompt in keys.items():
            self._ahead[(fingerprint, prompt)] = (key, found.get(key))

    def put(self, fingerprint: str, prompt: str, text: str, usage: dict | None = None,
            history: Sequence[Any] = ()) -> None:
        """Store a successful answer (callers never pass errors)."""
        if not history and self._ahead:
            self._ahead.pop((fingerprint, prompt), None)  # a later get() of the same words must see this answer
        key = None if history else self._missed.pop((fingerprint, prompt), None)
        if key is None:
            key = cache_key(fingerprint, prompt, history)
        self._pending[key] = (key, fingerprint, text, _usage_text(usage or {}), time.time())
        if (len(self._pending) >= self._commit_every
                or time.monotonic() - self._last_commit >= self._commit_interval_s):
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        rows, self._pending = list(self._pending.values()), {}
        self._db.execute("BEGIN")
        self._db.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?, ?)", rows)
        self._db.execute("COMMIT")
        self._last_commit = time.monotonic()

    def __len__(self) -> int:
        self.flush()
        return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        try:
            self.flush()
        finally:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
