"""The transcripts folder `harness view` serves: which of its sub-folders are runs, and what each one holds.

Safety: a run is named in URLs by its folder name, and `run_dir(name)` is the only way from a name to a
path. It accepts a direct child of the folder and nothing else: no separator, no `.`/`..`, no NUL, and the
resolved path (symlinks followed) must still sit inside the folder; a file of a run is reached only through
`run_file`, which applies the same rule one level down. Anything else is `NotFound`, so no URL, encoded or
not, reaches a file outside the folder.

A run's summary (the Runs page) reuses the project's readers: the manifest (harness.run.manifest), the
counts as the transcript says now (harness.run.execute.current_counts, the numbers `harness runs` prints)
and the headline metrics with their intervals as the report formats them (harness.report.reporting): the
numbers each metric family declares for the viewer (harness.metrics.Family.view_metrics), then the run's own.
Summaries are cached by the (mtime, size) of the files they come from, so polling a folder of many runs
re-reads only the run that is being written.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.run import manifest as mf
from harness.run.transcript import TRANSCRIPT_FILE

REPORT_FILE = "report.html"
VERDICTS_FILE = "verdicts.csv"
PLOTS_DIR = "plots"
#: The run's own numbers the run page shows after the families' (key, short label): scoring's, not a family's.
RUN_METRICS: tuple[tuple[str, str], ...] = (
    ("refusal_rate", "refusals"),
    ("oracle_agreement", "oracle agrees with review"),
)
_NAME = re.compile(r"^[^/\\\x00]{1,255}$")
_FILE = re.compile(r"^[A-Za-z0-9_.\-\u00a0-\uffff]{1,200}$")

StatusOf = Callable[[Path, dict[str, Any]], str]


class NotFound(Exception):
    """A name that is no run (or no file of a run) of this folder: the server answers 404."""


def stamp(path: Path) -> tuple[int, int] | None:
    """(mtime in ns, size) of a file, None when it does not exist: the version key of every cache here."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def manifest_status(run_dir: Path, manifest: dict[str, Any]) -> str:
    """The manifest's own status; `harness view` passes harness.cli.run.live_status instead, which also
    tells a run whose process died ("stopped") from one still being asked."""
    return str(manifest.get("status") or ("complete" if (run_dir / mf.METRICS_FILE).exists() else "?"))


class RunFolder:
    """A transcripts folder: its runs by name, their summaries, and the files a page may read."""

    def __init__(self, root: Path, *, status_of: StatusOf = manifest_status) -> None:
        self.root = Path(root).expanduser().resolve()
        if not self.root.is_dir():
            raise HarnessError(f"{root} is not a folder; give the transcripts folder "
                               "(default: ./transcripts).")
        self.status_of = status_of
        self._lock = threading.Lock()
        self._summaries: dict[str, tuple[Any, dict[str, Any]]] = {}

    # --- names -> paths ---------------------------------------------------------------------------------
    def run_dir(self, name: str) -> Path:
        """The folder of run `name`; NotFound unless it is a run directly inside the root (module
        docstring)."""
        if not isinstance(name, str) or not _NAME.match(name) or name in (".", "..") or name.startswith("."):
            raise NotFound(name)
        path = (self.root / name).resolve()
        if path.parent != self.root or not path.is_dir() or not self.is_run(path):
            raise NotFound(name)
        return path

    def run_file(self, name: str, *parts: str) -> Path:
        """A file inside run `name` (e.g. ("plots", "x.png")); NotFound for any other path."""
        base = self.run_dir(name)
        for part in parts:
            if not _FILE.match(part) or part in (".", "..") or part.startswith("."):
                raise NotFound("/".join(parts))
        path = base.joinpath(*parts).resolve()
        if not path.is_file() or base not in path.parents:
            raise NotFound("/".join(parts))
        return path

    @staticmethod
    def is_run(path: Path) -> bool:
        return any((path / f).is_file() for f in (mf.MANIFEST_FILE, TRANSCRIPT_FILE, mf.METRICS_FILE))

    def names(self) -> list[str]:
        return sorted(p.name for p in self.root.iterdir()
                      if p.is_dir() and not p.name.startswith(".") and self.is_run(p))

    # --- summaries ----------------------------------------------------------------------------------------
    def summaries(self) -> list[dict[str, Any]]:
        out = []
        for name in self.names():
            try:
                out.append(self.summary(name))
            except NotFound:
                continue  # removed while we listed it
        return out

    def summary(self, name: str) -> dict[str, Any]:
        """One run's row of the Runs page (and of GET /api/runs); cached per version of its files."""
        run_dir = self.run_dir(name)
        key = tuple(stamp(run_dir / f) for f in (mf.MANIFEST_FILE, TRANSCRIPT_FILE, mf.METRICS_FILE, ".lock"))
        with self._lock:
            cached = self._summaries.get(name)
        if cached is not None and cached[0] == key:
            data = cached[1]
        else:
            data = self._summary(run_dir)
            with self._lock:
                self._summaries[name] = (key, data)
        out = {k: v for k, v in data.items() if k != "_manifest"}
        # a lock is no file version: asked each time
        out["status"] = self.status_of(run_dir, data["_manifest"])
        return out

    def _summary(self, run_dir: Path) -> dict[str, Any]:
        from harness.run.execute import current_counts

        try:
            manifest = mf.read_manifest(run_dir, complete=False)
        except HarnessError as exc:
            manifest = {"problem": str(exc)}
        doc = self.metrics_doc(run_dir)
        run = (doc or {}).get("run") or {}
        model = manifest.get("model") if isinstance(manifest.get("model"), dict) else (run.get("model") or {})
        counts = current_counts(run_dir, manifest) if (run_dir / TRANSCRIPT_FILE).exists() else {}
        return {
            "id": run_dir.name,
            "suite": str(manifest.get("suite") or run.get("suite") or ""),
            "target": str(manifest.get("target") or run.get("target") or ""),
            "model": model_name(model),
            "answer_mode": str(manifest.get("answer_mode") or "generate"),
            "lang": str(manifest.get("lang") or ""),
            "started_at": str(manifest.get("started_at") or ""),
            "updated_at": str(manifest.get("updated_at") or manifest.get("ended_at") or ""),
            "scored_at": str(run.get("scored_at") or ""),
            "method": str(run.get("method") or ""),
            "counts": {k: counts.get(k) for k in ("answered", "errors", "pending", "selected", "damaged")
                       if counts.get(k) is not None},
            "metrics": headline(doc) if doc else [],
            "scored": doc is not None,
            "has_report": (run_dir / REPORT_FILE).is_file(),
            "problem": manifest.get("problem"),
            "_manifest": manifest,
        }

    @staticmethod
    def metrics_doc(run_dir: Path) -> dict[str, Any] | None:
        """metrics.json, or None when the run was never scored (or the file is not one)."""
        path = Path(run_dir) / mf.METRICS_FILE
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return doc if isinstance(doc, dict) and isinstance(doc.get("metrics"), dict) else None


def model_name(model: Any) -> str:
    """The model as the Runs page names it: the target's label for it, else the file's own name (a GGUF's
    "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf" says its quantization; the header's general.name, "Qwen2.5 Coder
    0.5B Instruct AWQ", may be a training-run label), else the name the model reports."""
    if not isinstance(model, dict):
        return ""
    return str(model.get("label") or model.get("file") or model.get("name") or "")


def summary_metrics() -> tuple[tuple[str, str], ...]:
    """What the pages show of each run's metrics.json, in this order (key, short label): every family's
    declared cards and columns, in the order of the families, then the run's own numbers."""
    from harness.metrics import families

    cards = [(m.key, m.label) for fam in families().values() for m in fam.view_metrics if m.card or m.column]
    return tuple(dict.fromkeys([*cards, *RUN_METRICS]))


def columns() -> list[dict[str, str]]:
    """The Runs page's metric columns (key, heading), as the families declare them; the page shows those
    some run of the folder has."""
    from harness.metrics import families

    return [{"key": m.key, "label": m.column} for fam in families().values() for m in fam.view_metrics
            if m.column]


def headline(doc: dict[str, Any], keys: tuple[tuple[str, str], ...] | None = None) -> list[dict[str, Any]]:
    """The run's headline metrics (default: summary_metrics()) as the report prints them: value, 95% interval
    and k / n."""
    from harness.report.reporting import fmt_interval, fmt_value

    keys = summary_metrics() if keys is None else keys
    metrics, intervals, counts = doc.get("metrics") or {}, doc.get("intervals") or {}, doc.get("counts") or {}
    out = []
    for key, label in keys:
        value = metrics.get(key)
        if value is None:
            continue
        ci = intervals.get(key.replace("_x100", "", 1)) if "_x100" in key else intervals.get(key)
        if ci and "_x100" in key and None not in ci:
            ci = [100 * ci[0], 100 * ci[1]]
        k_n = counts.get(key)
        out.append({"key": key, "label": label, "value": value, "text": fmt_value(key, value),
                    "interval": fmt_interval(key, tuple(ci) if ci and None not in ci else None),
                    "n": f"{k_n[0]:,} / {k_n[1]:,}" if k_n else ""})
    return out
