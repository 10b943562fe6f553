"""A run's figures in the view, drawn by the report's own code from the run's metrics.json.

Why: report.html draws the figures of a family that declares them (FamilySpec.figures: BiasAsker's heatmaps
and bars, harness.core.html_figures) as its own markup, and writes their PNG files only on request
(`harness report --plots`), so a view that listed plots/*.png showed a BiasAsker run with no figure at all
(issue 36/38). Here each such family's result is rebuilt from metrics.json (its metrics, intervals, counts and
tables, which the report wrote from the same scoring) and handed to the family's own `figures` function:
the same figures with the same numbers as report.html, and no second copy of the drawing.

The markup is the report's: every label and number escaped by markupsafe (group names come from data files).
The page puts it in the DOM through an allowlist of the tags and attributes these figures use
(static/run.js), and its inline colours through the CSSOM, so the view keeps its policy that forbids inline
styles and every script that is not its own. Built once per version of metrics.json.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from harness.run import manifest as mf
from harness.view.folder import PLOTS_DIR, RunFolder, stamp


def _pairs(doc: dict[str, Any], part: str) -> dict[str, tuple[Any, Any]]:
    """metrics.json's intervals or counts as the tuples a FamilyResult holds (entries with a gap left out)."""
    return {
        k: (v[0], v[1])
        for k, v in (doc.get(part) or {}).items()
        if isinstance(v, list) and len(v) == 2 and None not in v
    }


def family_results(doc: dict[str, Any]) -> dict[str, Any]:
    """Each family of the scored run whose figures are markup, as a harness.metrics.FamilyResult rebuilt from
    metrics.json: its tables (records -> DataFrames), and the run's metrics, intervals and counts (one flat
    namespace of keys, each prefixed by its family, as scoring wrote them)."""
    import pandas as pd

    from harness.metrics import FamilyResult, families

    registered = families()
    metrics, intervals, counts = doc.get("metrics") or {}, _pairs(doc, "intervals"), _pairs(doc, "counts")
    out = {}
    for name, tables in (doc.get("tables") or {}).items():
        family = registered.get(name)
        if family is None or not family.draws_figures or not isinstance(tables, dict):
            continue
        frames = {t: pd.DataFrame.from_records(rows) for t, rows in tables.items() if isinstance(rows, list)}
        out[name] = FamilyResult(
            family=name,
            metrics=dict(metrics),
            intervals=dict(intervals),
            counts=dict(counts),
            tables=frames,
            notes=list(doc.get("notes") or []),
        )
    return out


def markup_figures(doc: dict[str, Any]) -> tuple[list[dict[str, str]], list[str]]:
    """(figures, notes): each figure's title, markup and PNG name, in family order, as report.html shows them;
    a family whose figures cannot be drawn gives one note instead (as the report's does)."""
    from harness.metrics import families

    registered = families()
    figures: list[dict[str, str]] = []
    notes: list[str] = []
    for name, fres in family_results(doc).items():
        try:
            drawn = registered[name].figures(fres)
        except Exception as exc:  # noqa: BLE001 - figures are optional; the page still shows the numbers
            notes.append(f"The {name} figures could not be drawn ({type(exc).__name__}: {exc}).")
            continue
        figures += [{"title": f.title, "html": str(f.html), "name": f.name} for f in drawn]
    return figures, notes


class RunFigures:
    """The figures of this server's runs, each built once per version of its metrics.json and plots/."""

    def __init__(self, folder: RunFolder) -> None:
        self.folder = folder
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[Any, dict[str, Any]]] = {}

    def of(self, name: str) -> dict[str, Any]:
        """{"figures": markup figures, "plots": the PNGs of plots/ (title, url), "notes"}; 409 (a HarnessError)
        never: an unscored run simply has none."""
        run_dir = self.folder.run_dir(name)
        plots = sorted((run_dir / PLOTS_DIR).glob("*.png"))
        key = (stamp(run_dir / mf.METRICS_FILE), tuple((p.name, stamp(p)) for p in plots))
        with self._lock:
            cached = self._cache.get(name)
        if cached is not None and cached[0] == key:
            return cached[1]
        doc = self.folder.metrics_doc(run_dir)
        figures, notes = markup_figures(doc) if doc else ([], [])
        drawn = {f["name"] for f in figures}  # a PNG of a figure shown as markup (--plots) is not shown twice
        data = {"figures": figures, "notes": notes, "plots": png_list(name, [p for p in plots if p.stem not in drawn])}
        with self._lock:
            self._cache[name] = (key, data)
        return data


def png_list(name: str, plots: list[Path]) -> list[dict[str, str]]:
    """The run's PNG figures as the page links them (GET /api/runs/{id}/plots/{file})."""
    return [
        {"name": p.name, "title": p.stem.replace("_", " "), "url": f"/api/runs/{name}/plots/{p.name}"} for p in plots
    ]
