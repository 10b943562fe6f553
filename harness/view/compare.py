"""Compare N runs in the browser: `harness leaderboard`'s tables, heatmaps and corrected tests, and one
probe's replies side by side.

The numbers are harness.report.leaderboard's (build_leaderboard: one table per metric, every pair of runs
tested on every row, Holm-adjusted over all the tests, the scoring differences named), and the heatmaps
are the ones `harness leaderboard` draws (harness.report.leaderboard_page.write_page), written into a cache
folder named by the runs and the versions of their metrics.json, so the same comparison is drawn once.
A figure is served by its name from that folder only.
"""

from __future__ import annotations

import hashlib
import re
import threading
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.paths import cache_dir
from harness.run import manifest as mf
from harness.view.folder import RunFolder, stamp

_KEY = re.compile(r"^[0-9a-f]{20}$")
_PNG = re.compile(r"^[A-Za-z0-9_.\-\u00a0-\uffff]{1,200}\.png$")
MAX_RUNS = 12


def _answer_mode(run_dir: Path) -> str:
    """How the run's answers were made (its manifest's answer_mode; "generate" when it does not say)."""
    try:
        return str(mf.read_manifest(run_dir, complete=False).get("answer_mode") or "generate")
    except HarnessError:
        return "generate"


class Comparisons:
    """The leaderboards of this server's folder, each computed once per version of its runs' metrics."""

    def __init__(self, folder: RunFolder, *, root: Path | None = None) -> None:
        self.folder = folder
        self.root = Path(root) if root is not None else cache_dir() / "view" / "compare"
        self._lock = threading.Lock()
        self._boards: dict[str, dict[str, Any]] = {}

    def leaderboard(self, names: list[str]) -> dict[str, Any]:
        from harness.report.compare import load_verdicts
        from harness.report.leaderboard import RunDoc, build_leaderboard, to_json
        from harness.report.leaderboard_page import write_page

        names = list(dict.fromkeys(n for n in names if n))
        if len(names) < 2:
            raise HarnessError("Pick at least two runs to compare.")
        if len(names) > MAX_RUNS:
            raise HarnessError(f"Pick at most {MAX_RUNS} runs to compare at once.")
        dirs = [self.folder.run_dir(n) for n in names]
        for d in dirs:
            if self.folder.metrics_doc(d) is None:
                raise HarnessError(f"Run {d.name} has not been scored yet; `harness report {d.name}` "
                                   "scores it.")
        versions = "|".join(f"{d.name}:{stamp(d / mf.METRICS_FILE)}:{stamp(d / 'verdicts.csv')}"
                            for d in dirs)
        key = hashlib.sha256(versions.encode("utf-8", "surrogatepass")).hexdigest()[:20]
        with self._lock:
            if key in self._boards:
                return self._boards[key]
            docs = [RunDoc(label=f"R{i}", name=d.name, doc=self.folder.metrics_doc(d) or {},
                           verdicts=load_verdicts(d)) for i, d in enumerate(dirs, start=1)]
            board = build_leaderboard(docs)
            if not board.tables:
                raise HarnessError("These runs have no bias metric to set side by side.")
            out_dir = self.root / key
            write_page(board, out_dir)  # the same figures as `harness leaderboard`; notes go to the board
            data = to_json(board)
            data["key"] = key
            for entry, d in zip(data["runs"], dirs, strict=True):  # chat or loglik: the page says when they differ
                entry["answer_mode"] = _answer_mode(d)
            for table, rows in zip(board.tables, data["tables"], strict=True):  # as the terminal prints them
                for row, out in zip(table.rows, rows["rows"], strict=True):
                    out["texts"] = {c: list(table.text(row, c)) for c in table.values.columns}
            data["plots"] = [{"name": p.name, "title": p.stem.replace("_", " "),
                              "url": f"/api/compare/plots/{key}/{p.name}"}
                             for p in sorted((out_dir / "plots").glob("*.png"))]
            self._boards[key] = data
            return data

    def plot(self, key: str, name: str) -> Path:
        """A heatmap of a comparison drawn by this server; FileNotFoundError for any other path."""
        if not _KEY.match(key) or not _PNG.match(name) or name.startswith("."):
            raise FileNotFoundError(name)
        base = (self.root / key / "plots").resolve()
        path = (base / name).resolve()
        if path.parent != base or not path.is_file():
            raise FileNotFoundError(name)
        return path

    def probe(self, names: list[str], probe_id: str, indexes: Any) -> dict[str, Any]:
        """Each run's finding for one probe id (None where a run did not ask it): the replies side by side.
        `indexes(name)` gives a run's harness.view.index.RunIndex."""
        names = list(dict.fromkeys(n for n in names if n))
        out = []
        for name in names:
            self.folder.run_dir(name)
            row = indexes(name).rows_for([probe_id]).get(probe_id)
            out.append({"run": name, "finding": row})
        if all(r["finding"] is None for r in out):
            raise HarnessError("None of these runs asked that probe.")
        return {"probe_id": probe_id, "runs": out}
