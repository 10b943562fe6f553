"""A run's findings as an SQLite index, so a page of a 30,000-probe run is one indexed query, not a file read.

Why SQLite: paging, counting and filtering on the server is what keeps the findings page under a second
on a big run (benchmarks/view_scale.py prints the figures); the standard library has it, and a file-backed
database outlives the server, so opening the same run again costs nothing. The index lives in the cache
directory (harness.core.paths.cache_dir()/view), never in the run folder, which the viewer only reads
(reviews.jsonl and the report files are written by the review bridge, as `harness review` writes them).

What it holds, one table per source file, each rebuilt only when that file's version changes:
  probes    transcript.jsonl: every probe with its latest reply (an answer is never replaced by a later
            error, as harness.run.transcript.latest_by_probe). The transcript only grows while a run is
            asked, so it is read incrementally from the byte offset where the last read stopped (a
            complete line at a time); a file that shrank or whose bytes before that offset changed is
            read again from the start.
  verdicts  verdicts.csv (written by scoring): label, biased, favoured, method (the reader), evidence,
            confidence, cut (the reply stopped at max_tokens). Replaced whole when the file changes
            (scoring rewrites it whole).
  reviews   reviews.jsonl: the latest line per probe, as harness.score.review.read_reviews reads it.
  readings  readings.csv: the judge's reading beside the rules' where a judge read the run.
The version of each file is its (mtime_ns, size); `refresh()` compares them with what the index holds,
so a request costs four stat() calls when nothing changed.

A probe's partners are the probes whose meta holds the same pair under one of the pair keys the metric
families declare (harness.metrics.Family.pair_key: meta[key] = {"pair": id, "role": ...}). The keys are part
of the index's version: a family added or removed rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.display import no_surrogates
from harness.core.paths import cache_dir
from harness.core.records import STATUS_OK, canonical_kind
from harness.run.transcript import TRANSCRIPT_FILE
from harness.score.review import REVIEWS_FILE, read_reviews, reply_sha

SCHEMA = 6
VERDICTS_FILE = "verdicts.csv"
READINGS_FILE = "readings.csv"
MAX_PAGE = 200
LIST_REPLY_CHARS = 400  # a list row shows the start of a reply; the finding's detail shows all of it

_DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS probes (
  probe_id TEXT PRIMARY KEY, seq INTEGER, suite TEXT, lang TEXT, kind TEXT, bias_type TEXT, attribute TEXT,
  groups TEXT, property TEXT, categories TEXT, options TEXT, question TEXT, meta TEXT, target TEXT,
  status TEXT, error TEXT, reply TEXT, reply_sha TEXT, pair TEXT, role TEXT, labels TEXT);
CREATE INDEX IF NOT EXISTS probes_seq ON probes(seq);
CREATE INDEX IF NOT EXISTS probes_attribute ON probes(attribute);
CREATE INDEX IF NOT EXISTS probes_pair ON probes(pair);
CREATE TABLE IF NOT EXISTS verdicts (
  probe_id TEXT PRIMARY KEY, label TEXT, biased INTEGER, favoured TEXT, score REAL, method TEXT,
  evidence TEXT, confidence REAL, cut INTEGER);
CREATE INDEX IF NOT EXISTS verdicts_label ON verdicts(label);
CREATE TABLE IF NOT EXISTS reviews (
  probe_id TEXT PRIMARY KEY, label TEXT, favoured TEXT, biased INTEGER, oracle_label TEXT,
  oracle_biased INTEGER, reply_sha TEXT, source TEXT, at TEXT);
CREATE TABLE IF NOT EXISTS readings (
  probe_id TEXT PRIMARY KEY, decided_by TEXT, rules_label TEXT, confidence REAL, judge_label TEXT,
  judge_biased TEXT, judge_favoured TEXT, judge_prob REAL, judge_reason TEXT);
"""

_UPSERT = """
INSERT INTO probes VALUES (:probe_id, :seq, :suite, :lang, :kind, :bias_type, :attribute, :groups, :property,
  :categories, :options, :question, :meta, :target, :status, :error, :reply, :reply_sha, :pair, :role, :labels)
ON CONFLICT(probe_id) DO UPDATE SET status=excluded.status, error=excluded.error, reply=excluded.reply,
  reply_sha=excluded.reply_sha, target=excluded.target, seq=excluded.seq
WHERE NOT (probes.status = 'ok' AND excluded.status != 'ok')
"""

#: The findings' columns: the probe, its reply and the verdict, with the review and reading beside it.
_SELECT = """
SELECT p.probe_id, p.seq, p.lang, p.kind, p.bias_type, p.attribute, p.groups, p.property, p.categories,
  p.question, p.status, p.error, substr(p.reply, 1, {chars}) AS reply, length(p.reply) AS reply_chars, p.role,
  p.labels,
  v.label, v.biased, v.favoured, v.method, v.confidence, v.evidence, v.cut,
  r.label AS review_label, r.biased AS review_biased, r.oracle_label, r.oracle_biased,
  (r.probe_id IS NOT NULL AND r.reply_sha = p.reply_sha) AS reviewed,
  (r.probe_id IS NOT NULL AND r.reply_sha = p.reply_sha AND
   (r.label != r.oracle_label OR r.biased != r.oracle_biased)) AS changed_by_review,
  g.decided_by, g.judge_label
FROM probes p LEFT JOIN verdicts v USING (probe_id) LEFT JOIN reviews r USING (probe_id)
  LEFT JOIN readings g USING (probe_id)
"""


@dataclass(frozen=True)
class Filters:
    """What the findings table is narrowed to; every field optional (empty = no filter).

    verdict: "biased", "not_biased", "error" (no answer), "unscored" (answered, no verdict the rates use:
    not scored yet, or a judge's answer that could not be read), or a label ("refuse", "choice", ...).
    reader: the verdict's method (the rules' method name, "human" for a person's label, a judge's name) or a
    decided_by of readings.csv ("rules", "judge"). q: text to find in the question or the reply (any case).
    """

    attribute: str = ""
    group: str = ""
    verdict: str = ""
    reader: str = ""
    min_confidence: float | None = None
    max_confidence: float | None = None
    unscored: bool = False
    changed: bool = False
    reviewed: bool = False
    q: str = ""
    sort: str = "seq"

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> Filters:
        def num(name: str) -> float | None:
            value = (params.get(name) or "").strip()
            if not value:
                return None
            try:
                return float(value)
            except ValueError:
                raise ValueError(f"{name} must be a number between 0 and 1, not '{value[:40]}'.") from None

        def flag(name: str) -> bool:
            return (params.get(name) or "").lower() in ("1", "true", "yes", "on")

        sort = params.get("sort") or "seq"
        if sort not in SORTS:
            raise ValueError(f"sort must be one of {', '.join(SORTS)}, not '{sort[:40]}'.")
        return cls(attribute=params.get("attribute") or "", group=params.get("group") or "",
                   verdict=params.get("verdict") or "", reader=params.get("reader") or "",
                   min_confidence=num("min_confidence"), max_confidence=num("max_confidence"),
                   unscored=flag("unscored"), changed=flag("changed"), reviewed=flag("reviewed"),
                   q=(params.get("q") or "").strip(), sort=sort)

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition and its parameters (never text pasted into SQL)."""
        cond: list[str] = []
        args: list[Any] = []
        if self.attribute:
            cond.append("p.attribute = ?")
            args.append(self.attribute)
        if self.group:
            cond.append("instr(p.groups, ?) > 0")
            args.append(f"|{self.group}|")
        verdict = "unscored" if self.unscored else self.verdict
        if verdict == "biased":
            cond.append("p.status = 'ok' AND v.biased = 1 AND v.label != 'unscored'")
        elif verdict == "not_biased":
            cond.append("p.status = 'ok' AND v.biased = 0 AND v.label != 'unscored'")
        elif verdict == "error":
            cond.append("p.status != 'ok'")
        elif verdict == "unscored":
            cond.append("p.status = 'ok' AND (v.probe_id IS NULL OR v.label = 'unscored')")
        elif verdict:
            cond.append("v.label = ?")
            args.append(verdict)
        if self.reader:
            cond.append("(v.method = ? OR g.decided_by = ?)")
            args += [self.reader, self.reader]
        if self.min_confidence is not None:
            cond.append("v.confidence >= ?")
            args.append(self.min_confidence)
        if self.max_confidence is not None:
            cond.append("v.confidence <= ?")
            args.append(self.max_confidence)
        if self.changed:
            cond.append("r.reply_sha = p.reply_sha AND "
                        "(r.label != r.oracle_label OR r.biased != r.oracle_biased)")
        if self.reviewed:
            cond.append("r.reply_sha = p.reply_sha")
        if self.q:
            cond.append("(instr(lower(p.question), ?) > 0 OR instr(lower(p.reply), ?) > 0)")
            args += [self.q.lower(), self.q.lower()]
        return (" WHERE " + " AND ".join(cond)) if cond else "", args


SORTS = {"seq": "p.seq", "confidence": "v.confidence IS NULL, v.confidence, p.seq",
         "attribute": "p.attribute, p.seq", "label": "v.label, p.seq"}


def _wrap(values: Any) -> str:
    """Groups stored as "|a|b|", so a group filter matches a whole name, never part of one."""
    return "|" + "|".join(str(v) for v in values or ()) + "|"


def _flag(value: Any) -> int | None:
    text = str(value).strip().lower()
    if text in ("true", "1", "yes"):
        return 1
    if text in ("false", "0", "no"):
        return 0
    return None


def _text(value: Any) -> str | None:
    """A verdicts.csv cell; empty and pandas' "nan" (a missing favoured group written as NaN) are None."""
    return None if value in ("", "nan", "NaN", "None") else value


def _number(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None


class RunIndex:
    """The findings index of one run folder (module docstring). Thread-safe: each call opens its own
    connection, and one lock per index serialises the refreshes."""

    def __init__(self, run_dir: Path, *, root: Path | None = None) -> None:
        self.run_dir = Path(run_dir).resolve()
        self.pair_keys = pair_keys()
        digest = hashlib.sha256(str(self.run_dir).encode("utf-8", "surrogatepass")).hexdigest()[:20]
        base = Path(root) if root is not None else cache_dir() / "view"
        base.mkdir(parents=True, exist_ok=True)
        self.path = base / f"{digest}.sqlite"
        self._lock = threading.Lock()
        with self._connect() as db:
            # WAL: the pages read while a growing transcript is indexed; NORMAL is safe from corruption in WAL
            # and the index is a cache that any file change rebuilds anyway
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_DDL)
            version = f"{SCHEMA}:{','.join(self.pair_keys)}"
            if self._meta(db, "schema") != version:
                for table in ("probes", "verdicts", "reviews", "readings", "meta"):
                    db.execute(f"DELETE FROM {table}")
                self._set(db, "schema", version)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        db.row_factory = sqlite3.Row
        db.execute("PRAGMA synchronous=NORMAL")
        try:
            with db:
                yield db
        finally:
            db.close()

    @staticmethod
    def _meta(db: sqlite3.Connection, key: str) -> str | None:
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    @staticmethod
    def _set(db: sqlite3.Connection, key: str, value: str) -> None:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # --- keeping the index current ------------------------------------------------------------------------
    def refresh(self) -> None:
        """Bring every table up to the files' current versions (a no-op when none changed)."""
        with self._lock, self._connect() as db:
            self._refresh_transcript(db)
            for name, loader in ((VERDICTS_FILE, self._load_verdicts), (REVIEWS_FILE, self._load_reviews),
                                 (READINGS_FILE, self._load_readings)):
                path = self.run_dir / name
                version = _version(path)
                if self._meta(db, name) != version:
                    loader(db, path)
                    self._set(db, name, version)

    def _refresh_transcript(self, db: sqlite3.Connection) -> None:
        path = self.run_dir / TRANSCRIPT_FILE
        offset = int(self._meta(db, "offset") or 0)
        seq = int(self._meta(db, "seq") or 0)
        tail = self._meta(db, "tail") or ""
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        if size == offset and (size == 0 or tail):
            return
        if size < offset or (offset and _tail(path, offset) != tail):  # rewritten: read it again
            db.execute("DELETE FROM probes")
            offset = seq = 0
        if size == 0:
            self._set(db, "offset", "0")
            return
        rows = []
        with path.open("rb") as fh:
            fh.seek(offset)
            data = fh.read(size - offset)
        end = data.rfind(b"\n") + 1  # whole lines only: the last one may still be being written
        for raw in data[:end].splitlines():
            row = _row(raw, seq, self.pair_keys)
            if row is not None:
                rows.append(row)
                seq += 1
        db.executemany(_UPSERT, rows)
        offset += end
        self._set(db, "offset", str(offset))
        self._set(db, "seq", str(seq))
        self._set(db, "tail", _tail(path, offset))

    @staticmethod
    def _load_verdicts(db: sqlite3.Connection, path: Path) -> None:
        db.execute("DELETE FROM verdicts")
        # cut: the target stopped the reply at its token limit (verdicts.csv's cut, Reply.finish_reason "length")
        cols = ("probe_id", "label", "biased", "favoured", "score", "method", "evidence", "confidence", "cut")
        db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            (r[0], r[1], _flag(r[2]), _text(r[3]), _number(r[4]), r[5], _text(r[6]), _number(r[7]), _flag(r[8]))
            for r in _csv_rows(path, cols)))

    @staticmethod
    def _load_reviews(db: sqlite3.Connection, path: Path) -> None:
        db.execute("DELETE FROM reviews")
        rows = read_reviews(path.parent)
        db.executemany("INSERT OR REPLACE INTO reviews VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            (pid, r.get("label"), r.get("favoured"), _flag(r.get("biased")), r.get("oracle_label"),
             _flag(r.get("oracle_biased")), r.get("reply_sha"), r.get("source"), r.get("at"))
            for pid, r in rows.items()))

    @staticmethod
    def _load_readings(db: sqlite3.Connection, path: Path) -> None:
        db.execute("DELETE FROM readings")
        cols = ("probe_id", "decided_by", "rules_label", "confidence", "judge_label", "judge_biased",
                "judge_favoured", "judge_prob", "judge_reason")
        db.executemany("INSERT OR REPLACE INTO readings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (
            (r[0], r[1], r[2], _number(r[3]), r[4], r[5], r[6], _number(r[7]), r[8])
            for r in _csv_rows(path, cols)))

    # --- reading ------------------------------------------------------------------------------------------
    def findings(self, filters: Filters, *, page: int = 1, size: int = 50) -> dict[str, Any]:
        """One page of findings and the number that match; `size` at most MAX_PAGE."""
        self.refresh()
        size = max(1, min(int(size), MAX_PAGE))
        page = max(1, int(page))
        where, args = filters.where()
        with self._connect() as db:
            total = db.execute(
                "SELECT count(*) FROM probes p LEFT JOIN verdicts v USING (probe_id) LEFT JOIN reviews r "
                "USING (probe_id) LEFT JOIN readings g USING (probe_id)" + where, args).fetchone()[0]
            rows = db.execute(_SELECT.format(chars=LIST_REPLY_CHARS) + where
                              + f" ORDER BY {SORTS[filters.sort]} LIMIT ? OFFSET ?",
                              [*args, size, (page - 1) * size]).fetchall()
        return {"total": total, "page": page, "size": size, "pages": max(1, -(-total // size)),
                "items": [_finding(r) for r in rows]}

    def finding(self, probe_id: str) -> dict[str, Any] | None:
        """Everything about one probe: question, options, the whole reply, the verdict and its evidence,
        the person's review, the judge's reading, and its partners (module docstring)."""
        self.refresh()
        with self._connect() as db:
            row = db.execute(_SELECT.format(chars=10**9) + " WHERE p.probe_id = ?", (probe_id,)).fetchone()
            if row is None:
                return None
            extra = db.execute("SELECT suite, options, meta, target, pair FROM probes WHERE probe_id = ?",
                               (probe_id,)).fetchone()
            reading = db.execute("SELECT * FROM readings WHERE probe_id = ?", (probe_id,)).fetchone()
            review = db.execute("SELECT * FROM reviews WHERE probe_id = ?", (probe_id,)).fetchone()
            partners = []
            if extra["pair"]:
                partners = [_finding(r) for r in db.execute(
                    _SELECT.format(chars=10**9) + " WHERE p.pair = ? AND p.probe_id != ? ORDER BY p.seq",
                    (extra["pair"], probe_id))]
        out = _finding(row)
        out.update(suite=extra["suite"], options=json.loads(extra["options"] or "[]"),
                   meta=json.loads(extra["meta"] or "{}"), target=extra["target"],
                   reading=dict(reading) if reading else None, review=dict(review) if review else None,
                   partners=partners)
        return out

    def rows_for(self, probe_ids: list[str]) -> dict[str, dict[str, Any]]:
        """Whole findings by probe id (the compare page's side-by-side replies)."""
        self.refresh()
        if not probe_ids:
            return {}
        marks = ",".join("?" * len(probe_ids))
        with self._connect() as db:
            rows = db.execute(_SELECT.format(chars=10**9) + f" WHERE p.probe_id IN ({marks})",
                              probe_ids).fetchall()
        return {r["probe_id"]: _finding(r) for r in rows}

    def facets(self) -> dict[str, Any]:
        """The values the filters offer: attributes, groups, labels, readers; and how many rows there are."""
        self.refresh()
        with self._connect() as db:
            attributes = [r[0] for r in db.execute(
                "SELECT DISTINCT attribute FROM probes WHERE attribute != '' ORDER BY attribute")]
            groups: set[str] = set()
            for (g,) in db.execute("SELECT DISTINCT groups FROM probes"):
                groups.update(x for x in (g or "").split("|") if x)
            labels = [r[0] for r in db.execute(
                "SELECT DISTINCT label FROM verdicts WHERE label != '' ORDER BY label")]
            readers = {r[0] for r in db.execute("SELECT DISTINCT method FROM verdicts WHERE method != ''")}
            readers |= {r[0] for r in db.execute(
                "SELECT DISTINCT decided_by FROM readings WHERE decided_by != ''")}
            n = db.execute("SELECT count(*), sum(status = 'ok') FROM probes").fetchone()
            confidence = db.execute("SELECT count(confidence) FROM verdicts").fetchone()[0]
        return {"attributes": attributes, "groups": sorted(groups), "labels": labels,
                "readers": sorted(readers), "probes": n[0] or 0, "answered": n[1] or 0,
                "has_confidence": bool(confidence)}


def _csv_rows(path: Path, cols: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The rows of a CSV file the run folder holds (verdicts.csv, readings.csv) as text, in `cols` order; a
    column the file lacks (an older harness wrote fewer) reads as empty, a missing file as no rows."""
    import pandas as pd

    if not path.exists():
        return []
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    for c in cols:
        if c not in df.columns:
            df[c] = ""
    return list(df[list(cols)].itertuples(index=False, name=None))


def _version(path: Path) -> str:
    try:
        st = path.stat()
    except OSError:
        return "missing"
    return f"{st.st_mtime_ns}:{st.st_size}"


def _tail(path: Path, offset: int) -> str:
    """The 64 bytes before `offset` (hex): tells a transcript that grew from one rewritten in place."""
    start = max(0, offset - 64)
    with path.open("rb") as fh:
        fh.seek(start)
        return fh.read(offset - start).hex()


def pair_keys() -> tuple[str, ...]:
    """The probe meta keys that link partners, as the metric families declare them, in their order."""
    from harness.metrics import families

    return tuple(dict.fromkeys(fam.pair_key for fam in families().values() if fam.pair_key))


def _row(raw: bytes, seq: int, pair_keys: tuple[str, ...]) -> dict[str, Any] | None:
    """A probes row from one transcript line; None for a line that is no record (the report names those)."""
    try:
        obj = json.loads(raw)
        probe, reply = obj["probe"], obj["reply"]
        meta = probe.get("meta") or {}
        raw_text = str(reply.get("text") or "")
        # SQLite stores UTF-8: a lone surrogate (kept by the transcript) reads U+FFFD
        text = no_surrogates(raw_text)
        pair = role = None
        for key in pair_keys:
            info = meta.get(key)
            if isinstance(info, dict) and info.get("pair"):
                pair, role = f"{key}:{info['pair']}", f"{key} {info.get('role') or ''}".strip()
                break
        return {"probe_id": str(probe["id"]), "seq": seq, "suite": probe.get("suite"),
                "lang": probe.get("lang"), "kind": canonical_kind(str(probe.get("kind") or "")),
                "bias_type": probe.get("bias_type"),
                "attribute": probe.get("attribute") or "",
                "groups": _wrap(probe.get("groups")), "property": probe.get("property") or "",
                "categories": " | ".join(probe.get("categories") or ()),
                "options": json.dumps(list(probe.get("options") or ())),
                "question": no_surrogates(str(probe.get("text") or "")),
                "meta": json.dumps(meta, default=str),
                "target": reply.get("target"), "status": str(reply.get("status") or STATUS_OK),
                "error": reply.get("error"), "reply": text, "reply_sha": reply_sha(raw_text), "pair": pair,
                "role": role, "labels": json.dumps(group_labels(meta), ensure_ascii=False)}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def group_labels(meta: Mapping[str, Any]) -> dict[str, str]:
    """The names a suite gives its groups (a generator's meta[...]["labels"] = {group: label}: a decision
    suite's `labels:`), so the pages show "本市城镇户口", not the metric-key name "local_hukou"."""
    for value in meta.values():
        labels = value.get("labels") if isinstance(value, dict) else None
        if isinstance(labels, dict):
            return {str(g): str(t) for g, t in labels.items()}
    return {}


def _finding(row: sqlite3.Row) -> dict[str, Any]:
    d = dict(row)
    d["groups"] = [g for g in (d.get("groups") or "").split("|") if g]
    labels = json.loads(d.pop("labels", None) or "{}")
    d["group_names"] = [labels.get(g, g) for g in d["groups"]]  # as the suite names them (group_labels)
    d["cut"] = bool(d.get("cut"))
    for key in ("biased", "review_biased", "oracle_biased"):
        if d.get(key) is not None:
            d[key] = bool(d[key])
    d["reviewed"] = bool(d.get("reviewed"))
    d["changed_by_review"] = bool(d.get("changed_by_review"))
    d["scored"] = d.get("label") not in (None, "", "unscored") and d.get("status") == STATUS_OK
    return d
