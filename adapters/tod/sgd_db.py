"""The reference database step: every row SGD's services returned, in SQLite, queried by an API call.

Su et al. had no access to the services behind SGD and used a lookup table; so does this, as a real
database: each row a service returned anywhere in the split is stored once per service (rows(service,
body)), each of its slot values in cells(slot, value) for the query. An API call matches the rows whose
values equal every call parameter (case-insensitively) on the slots the service's rows have; a parameter
no row of the service has (a slot the model invented) is ignored rather than emptying the answer.

The simulated database (step 2 of the attribution): the same rows with the dialogue's substitution
applied to their non-entity values, added beside the originals under the substitution's key and returned
first, so a perturbed call ("category = Mexican" where the original said American) finds the rows the
original call found, perturbed alike. Built lazily, once per substitution, in the same file.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.core.paths import cache_dir
from harness.perturb import Substitution
from harness.perturb.algorithm import apply_text
from harness.perturb.dialogues import protected_slot
from harness.perturb.sgd import SgdSplit, load_split, service_calls

MAX_ROWS = 50
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, service TEXT NOT NULL, variant TEXT NOT NULL,
                                 body TEXT NOT NULL, UNIQUE(service, variant, body));
CREATE TABLE IF NOT EXISTS cells (row_id INTEGER NOT NULL, slot TEXT NOT NULL, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS cells_by_value ON cells(slot, value, row_id);
CREATE TABLE IF NOT EXISTS variants (key TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
"""


def _stamp(split: SgdSplit) -> str:
    files = sorted((p.name, p.stat().st_size) for p in split.path.glob("dialogues_*.json"))
    return hashlib.sha256(json.dumps([str(split.path), files]).encode()).hexdigest()[:16]


def perturbed_row(sub: Substitution, row: Mapping[str, Any], protect_entities: bool = True) -> dict[str, Any]:
    """A row (or an API call's parameters) with the substitution applied to its non-entity values."""
    return {k: apply_text(sub, v) if isinstance(v, str) and not protected_slot(k, protect_entities) else v
            for k, v in row.items()}


_BOOLEAN = {"yes": "true", "y": "true", "no": "false", "n": "false"}


def _value(value: Any) -> str:
    """A parameter as the cells store it: lower-cased; yes/no as SGD's True/False."""
    text = str(value).strip().lower()
    return _BOOLEAN.get(text, text)


class SgdDatabase:
    """Rows of the split's service results; `query(call, service, substitution=...)` -> rows."""

    def __init__(self, data: str | Path | None = None, path: str | Path | None = None) -> None:
        self._split = load_split(data)
        stamp = _stamp(self._split)
        self.path = Path(path) if path else cache_dir() / "tod" / f"sgd-{stamp}.sqlite"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, check_same_thread=False)
        self._db.executescript(_SCHEMA)
        done = self._db.execute("SELECT value FROM meta WHERE key = 'built'").fetchone()
        if not done or done[0] != stamp:
            self._build(stamp)
        self._slots: dict[str, frozenset[str]] = {}

    def _insert(self, service: str, variant: str, row: Mapping[str, Any]) -> None:
        body = json.dumps(dict(row), ensure_ascii=False, sort_keys=True)
        cur = self._db.execute("INSERT OR IGNORE INTO rows(service, variant, body) VALUES (?, ?, ?)",
                               (service, variant, body))
        if cur.rowcount:
            self._db.executemany("INSERT INTO cells(row_id, slot, value) VALUES (?, ?, ?)",
                                 [(cur.lastrowid, k, str(v).lower()) for k, v in row.items()])

    def _build(self, stamp: str) -> None:
        with self._lock, self._db:
            self._db.execute("DELETE FROM rows")
            self._db.execute("DELETE FROM cells")
            self._db.execute("DELETE FROM variants")
            for dialogue in self._split.dialogues:
                for turn in dialogue["turns"]:
                    for service, _call, rows in service_calls(turn):
                        for row in rows:
                            self._insert(service, "", row)
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('built', ?)", (stamp,))

    def slots(self, service: str) -> frozenset[str]:
        if service not in self._slots:
            got = self._db.execute("SELECT DISTINCT c.slot FROM cells c JOIN rows r ON r.id = c.row_id "
                                   "WHERE r.service = ?", (service,)).fetchall()
            self._slots[service] = frozenset(s for (s,) in got)
        return self._slots[service]

    def _variant(self, sub: Substitution, protect_entities: bool) -> str:
        """The key of the substitution's simulated rows, building them on first use."""
        key = json.dumps([sub.axis, sub.lang, sub.row, sub.form, sub.source, sub.target, sub.swap, sub.words,
                          protect_entities], ensure_ascii=False)
        with self._lock:
            if self._db.execute("SELECT 1 FROM variants WHERE key = ?", (key,)).fetchone():
                return key
            with self._db:
                like = f"%{sub.form.lower()}%"
                for service, body in self._db.execute(
                        "SELECT service, body FROM rows WHERE variant = '' AND lower(body) LIKE ?", (like,)).fetchall():
                    row = json.loads(body)
                    changed = perturbed_row(sub, row, protect_entities)
                    if changed != row:
                        self._insert(service, key, changed)
                self._db.execute("INSERT INTO variants(key) VALUES (?)", (key,))
        return key

    def query(self, call: Mapping[str, Any] | None, service: str, *, substitution: Substitution | None = None,
              protect_entities: bool = True) -> list[dict[str, Any]]:
        """Rows matching the call's parameters; with a substitution, the simulated rows first."""
        if not call:
            return []
        params = call.get("parameters") or {}
        known = self.slots(service)
        where = [(str(k), _value(v)) for k, v in params.items()
                 if k in known and isinstance(v, str | int | float) and str(v).strip()]
        variant = self._variant(substitution, protect_entities) if substitution is not None else ""
        sql = ["SELECT body FROM rows r WHERE r.service = ? AND r.variant IN ('', ?)"]
        args: list[Any] = [service, variant]
        for slot, value in where:
            sql.append("AND r.id IN (SELECT row_id FROM cells WHERE slot = ? AND value = ?)")
            args += [slot, value]
        sql.append("ORDER BY (r.variant = '') ASC, r.id LIMIT ?")
        args.append(MAX_ROWS)
        with self._lock:
            found = self._db.execute(" ".join(sql), args).fetchall()
        return [json.loads(body) for (body,) in found]

    def close(self) -> None:
        self._db.close()
