"""A run's manifest.json: what was asked of whom, with which settings and software, and how it ended.

The transcript says what each probe got; the manifest says how to reproduce and resume the run: suite,
selection (sample, seed, limit), target name, adapter kind, public settings (never secrets), versions,
times, counts and the command line. `harness run --resume RUN` reads the selection back from here.

Every write goes to a temporary file that replaces the old one (os.replace is atomic), so a kill during
a write leaves the previous manifest intact, never a half-written one.
"""

from __future__ import annotations

import errno
import functools
import json
import os
import platform
import re
import shlex
import sys
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.paths import transcripts_dir
from harness.core.records import utc_now
from harness.core.redaction import mask_secrets
from harness.run.transcript import TRANSCRIPT_FILE

MANIFEST_FILE = "manifest.json"
METRICS_FILE = "metrics.json"  # written by harness.report.reporting; marks a run that was scored
SCHEMA_VERSION = 1

STATUS_RUNNING = "running"
STATUS_COMPLETE = "complete"
STATUS_INTERRUPTED = "interrupted"
STATUS_FAILED = "failed"  # stopped by the circuit breaker: the target kept failing
STATUS_INCOMPLETE = "incomplete"  # the session finished but some selected probes were never asked
STATUS_KILLED = "killed"  # a session whose process died (kill -9, a crash, power) without closing it

# Libraries whose version can change a reply or its parsing; recorded without importing them.
_VERSIONED = ("harness", "openai", "httpx", "tenacity", "transformers", "torch", "llama_cpp_python",
              "tencentcloud-sdk-python", "jieba", "spacy", "rapidfuzz")

#: a library's key in the manifest -> its distribution's name, where they differ (the harness's own is
#: harness-bias: looked up as "harness", no run recorded the harness's version)
_DISTRIBUTION = {"harness": "harness-bias"}

REDACTED = "***"


def versions() -> dict[str, str]:
    """Python, platform and the installed versions of the libraries that matter for reproducibility."""
    found = {"python": platform.python_version(), "platform": platform.platform(terse=True)}
    for name in _VERSIONED:
        version = installed_version(_DISTRIBUTION.get(name, name))
        if version is not None:
            found[name] = version
    return found


@functools.cache
def installed_version(dist: str) -> str | None:
    """metadata.version(dist), or None when it is not installed, read from the METADATA header's Version line.

    Why not metadata.version: it parses the whole METADATA file as an e-mail message (the harness's own holds
    its README), and eleven of them were a tenth of a second of every run's start-up (issue 38). Installed
    distributions do not change their version under a running process, so each is read once."""
    try:
        found = metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return None
    for line in (found.read_text("METADATA") or found.read_text("PKG-INFO") or "").splitlines():
        if not line:  # the end of the header
            break
        if line.startswith("Version:"):
            return line.partition(":")[2].strip()
    return found.version


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Replace every known secret value, any shortened or partial echo of one, and anything key-shaped
    with *** (harness.core.redaction says what is recognised)."""
    return mask_secrets(text, secrets)


def command_line(argv: Sequence[str] | None = None, secrets: Iterable[str] = ()) -> str:
    """The command as typed (shell-quoted), with secrets removed; `harness` stands for the entry point."""
    args = list(sys.argv if argv is None else argv)
    if args and (args[0].endswith("harness") or args[0].endswith("__main__.py")):
        args[0] = "harness"
    return redact(shlex.join(args), secrets)


_UNSAFE = re.compile(r"[^A-Za-z0-9._\-]+")


def _slug(value: str) -> str:
    return _UNSAFE.sub("-", value).strip("-") or "x"


def default_run_id(suite: str, target: str, *, sample: int | None = None, seed: int = 0,
                   limit: int | None = None, extra: str = "") -> str:
    """A run id derived from what is asked, so running the same command again resumes the same run.

    e.g. "biasasker-en__local__s200-seed0", "cbbq__openai__all", "biasasker-zh__tencent__all-l50".
    The suite is reduced to its file stem when given as a path.
    """
    suite_part = _slug(Path(suite).stem if suite.endswith((".yaml", ".yml")) else suite)
    selection = f"s{sample}-seed{seed}" if sample else "all"
    if limit:
        selection += f"-l{limit}"
    if extra:
        selection += f"-{_slug(extra)}"
    return f"{suite_part}__{_slug(target)}__{selection}"


def run_dir_for(run_id: str) -> Path:
    return transcripts_dir() / run_id


def resolve_run(run: str | Path, *, require_manifest: bool = True) -> Path:
    """The folder of a run given as a path (the folder, or a file in it) or as a run id under the
    transcripts folder. The project's one answer to "which folder is run X?".

    What makes a folder a run depends on what the caller will do with it:

    * require_manifest=True (resume, dry run of a resume): the folder holds manifest.json, because
      resuming asks again the selection (suite, sample, seed, target) recorded there.
    * require_manifest=False (score, report, compare): the folder holds transcript.jsonl (the replies;
      every line carries its probe, so nothing else is needed to score it) or metrics.json (a run scored
      before, e.g. a copied result). The manifest is optional: imported transcripts and hand-made
      folders may have none, or only part of one (see `read_manifest(..., complete=False)`).

    Every failure is one sentence naming what is missing and where.
    """
    path = Path(run).expanduser()
    if path.is_file() and path.name in (MANIFEST_FILE, TRANSCRIPT_FILE, METRICS_FILE):
        path = path.parent
    candidates = [path, transcripts_dir() / str(run)]
    marks = (MANIFEST_FILE,) if require_manifest else (TRANSCRIPT_FILE, METRICS_FILE)
    for candidate in candidates:
        if any((candidate / mark).is_file() for mark in marks):
            return candidate
    folder = next((c for c in candidates if c.is_dir()), None)
    if require_manifest:
        if folder is not None and (folder / TRANSCRIPT_FILE).is_file():
            raise HarnessError(f"{folder} has no {MANIFEST_FILE}, so it cannot be resumed (it records what to "
                               "ask); `harness report` can still score the replies it holds.")
        raise HarnessError(f"No run '{run}' found (looked for {candidates[1] / MANIFEST_FILE}); "
                           "`harness runs` lists the runs there.")
    if folder is not None:
        raise HarnessError(f"{folder} has no {TRANSCRIPT_FILE}; run `harness run` first or give another run.")
    root = transcripts_dir()
    known = sorted(p.name for p in root.glob("*") if p.is_dir()) if root.is_dir() else []
    hint = f" Known runs in {root}: {', '.join(known[-10:])}." if known else ""
    raise HarnessError(f"No run folder '{run}' (give a path or a run id; `harness runs` lists them).{hint}")


def read_manifest(run_dir: Path, *, complete: bool = True) -> dict[str, Any]:
    """The run's manifest, {} when the folder has none (a fresh run, an imported transcript).

    complete=True (run, resume, manual mode, `harness runs`): the manifest must hold 'suite', 'target'
    and 'selection', the fields a resumed run is rebuilt from. complete=False (scoring and reports): any
    JSON object is accepted, as scoring only takes labels from it (run id, suite, target, status) and a
    hand-made or imported folder may carry a partial one. In both modes a file that is not a JSON object
    is one sentence here, so no caller has to guard against a half-understood file with AttributeErrors.
    """
    path = Path(run_dir) / MANIFEST_FILE
    if not path.is_file():
        return {}
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        manifest = None  # not text at all: reported below as not a manifest
    except ValueError as exc:
        raise HarnessError(f"{path} is not valid JSON ({exc}); fix or delete it.") from exc
    except OSError as exc:
        raise HarnessError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    if not complete:
        if not isinstance(manifest, dict):
            raise HarnessError(f"{path} is not a harness run manifest (not a JSON object); move it away or "
                               "delete it, and the transcript is scored without it.")
        return manifest
    if not (isinstance(manifest, dict) and isinstance(manifest.get("suite"), str)
            and isinstance(manifest.get("target"), str) and isinstance(manifest.get("selection"), dict)):
        raise HarnessError(f"{path} is not a harness run manifest (it needs 'suite', 'target' and "
                           "'selection'); move that folder away, or start a new run with --suite and --target.")
    return manifest


def write_manifest(run_dir: Path, manifest: dict[str, Any]) -> Path:
    """Atomically replace manifest.json."""
    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / MANIFEST_FILE
    tmp = path.with_name(f".{MANIFEST_FILE}.{os.getpid()}.tmp")
    manifest["updated_at"] = utc_now()  # the last heartbeat: when a killed session was last seen alive
    try:
        data = json.dumps(manifest, ensure_ascii=False, indent=2, default=str).encode("utf-8")
    except UnicodeEncodeError:  # an error reason quoting a lone surrogate: kept exactly, as a JSON escape
        data = json.dumps(manifest, ensure_ascii=True, indent=2, default=str).encode("ascii")
    try:
        tmp.write_bytes(data + b"\n")
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)  # a full disk left a 0-byte .manifest.json.<pid>.tmp behind
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) or not _rewrite_in_place(path, data + b"\n"):
            raise
    return path


def _rewrite_in_place(path: Path, data: bytes) -> bool:
    """On a full disk, where no copy fits: rewrite manifest.json in the blocks it already holds, so the run
    still says how it ended ("stopped: disk full"); False when the new text would need more blocks (a write
    that failed half-way would leave no manifest at all, worse than a stale one)."""
    try:
        held = path.stat().st_blocks * 512
        if len(data) > held:
            return False
        with path.open("r+b") as fh:
            fh.write(data)
            fh.truncate()
        return True
    except OSError:
        return False


def new_manifest(*, run_id: str, suite: str, target: str, adapter: str, settings: dict[str, Any],
                 lang: str = "", generator: str = "", fingerprint: str = "", sample: int | None = None,
                 seed: int = 0, limit: int | None = None, overrides: dict[str, Any] | None = None,
                 answer_mode: str = "generate", selected: int | None = None, command: str = "",
                 engine: dict[str, Any] | None = None) -> dict[str, Any]:
    """The manifest of a fresh run (status "running"). Manual runs use adapter="manual"."""
    now = utc_now()
    return {
        "schema": SCHEMA_VERSION,
        "run_id": run_id,
        "suite": suite,
        "lang": lang,
        "generator": generator,
        "target": target,
        "adapter": adapter,
        "settings": settings,
        "fingerprint": fingerprint,
        "selection": {"sample": sample, "seed": seed, "limit": limit, "overrides": overrides or {}},
        "answer_mode": answer_mode,
        "probes_selected": selected,
        "engine": engine or {},
        "versions": versions(),
        "command": command,
        "started_at": now,
        "ended_at": None,
        "status": STATUS_RUNNING,
        "counts": {},
        "sessions": [],
    }


def begin_session(manifest: dict[str, Any], *, command: str, mode: str) -> dict[str, Any]:
    """Record one invocation (fresh, resume, retry-errors) and mark the run as running again."""
    session = {"started_at": utc_now(), "ended_at": None, "mode": mode, "command": command,
               "status": STATUS_RUNNING, "counts": {}}
    manifest.setdefault("sessions", []).append(session)
    manifest["status"] = STATUS_RUNNING
    manifest["ended_at"] = None
    manifest["versions"] = versions()
    return session


def close_dead_sessions(manifest: dict[str, Any]) -> int:
    """Mark sessions still "running" as killed; returns how many earlier sessions the manifest now lists as
    killed, those marked before included (after two kills the summary said one while the manifest listed
    two: each resume had marked only its predecessor). Call it holding the run's lock.

    Holding the lock proves no process is asking this run, so a session that never ended died (kill -9, a
    crash, a power cut). Its ended_at is the manifest's last write (a heartbeat every few seconds while it
    ran), marked as such; its counts are what that heartbeat recorded. Before this, such a session stayed
    "running" with ended_at null even after a successful resume.
    """
    dead = 0
    for session in manifest.get("sessions") or []:
        if isinstance(session, dict) and session.get("status") == STATUS_RUNNING and not session.get("ended_at"):
            session.update(status=STATUS_KILLED, ended_at=manifest.get("updated_at"),
                           ended_at_is="last heartbeat: the process died without closing the session")
            dead += 1
    if dead and manifest.get("status") == STATUS_RUNNING:
        manifest["status"] = STATUS_KILLED
        manifest["ended_at"] = manifest.get("updated_at")
    return killed_sessions(manifest)


def killed_sessions(manifest: dict[str, Any]) -> int:
    """How many sessions of this run the manifest lists as killed."""
    return sum(1 for s in manifest.get("sessions") or [] if isinstance(s, dict) and s.get("status") == STATUS_KILLED)


def end_session(manifest: dict[str, Any], session: dict[str, Any], *, status: str,
                session_counts: dict[str, Any], run_counts: dict[str, Any]) -> None:
    now = utc_now()
    session.update(ended_at=now, status=status, counts=session_counts)
    manifest.update(ended_at=now, status=status, counts=run_counts)
