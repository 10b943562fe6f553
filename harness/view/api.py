"""The JSON endpoints the pages read, and scripts may too. Every answer is JSON; every failure one sentence.

  GET  /api/runs                                 every run: id, suite, target, model, dates, status, counts,
                                                 headline metrics with intervals; the metric columns the
                                                 families declare for the Runs page
  GET  /api/runs/{id}                            one run: the same, plus notes, error reasons, figures, facets
  GET  /api/runs/{id}/findings?...               a page of findings, filtered on the server (index.Filters:
                                                 attribute, group, verdict, reader, min/max_confidence,
                                                 unscored, changed, reviewed, q, sort; page, size)
  GET  /api/runs/{id}/findings/{probe_id}        one finding with its reading, review, partners and the
                                                 labels its kind may be given in a review
  GET  /api/runs/{id}/figures                    the run's figures as report.html shows them: the markup of the
                                                 families that draw their own (harness.view.figures), the PNGs
                                                 of plots/ of the others
  GET  /api/runs/{id}/plots/{name}.png           a figure of the run (the run's plots/ folder only)
  GET  /api/figures.css                          the figures' styles (harness.core.html_figures.CSS)
  GET  /api/runs/{id}/review?sample&seed&only&probe   the review sample (harness review's)
  POST /api/runs/{id}/review  {"probe_id", "key"}     save a label (as typed in `harness review`)
  POST /api/runs/{id}/review/undo                     take back the last label saved here
  POST /api/runs/{id}/rescore                         score with the labels, rewrite the report, what changed
  GET  /api/compare?runs=A&runs=B[&runs=C...]         the leaderboard of those runs
  GET  /api/compare/probe?runs=A&runs=B&probe_id=P    each run's reply to one probe
  GET  /api/compare/plots/{key}/{name}.png            a heatmap of a comparison

The pages name no probe kind, metric family or metric: what differs by kind or family (the metric columns,
which findings a person may review) comes from the declarations (harness.metrics.Family.view_metrics,
harness.core.kinds.ProbeKind's review labels) in these answers.

Status codes: 404 for a name that is no run (or no file) of the folder, 400 for a bad parameter, 409 for a
request the run cannot answer yet (not scored, nothing to review), 500 never on purpose.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from harness.core.errors import HarnessError
from harness.core.records import STATUS_OK
from harness.human.review_sample import DEFAULT_SAMPLE
from harness.score.review import review_labels
from harness.view.compare import Comparisons
from harness.view.figures import RunFigures
from harness.view.folder import NotFound, RunFolder, columns
from harness.view.index import Filters, RunIndex
from harness.view.review import ReviewBridge


class ViewState:
    """What the server keeps per folder: one index and one review bridge per run, the comparisons."""

    def __init__(self, folder: RunFolder, *, cache: Path | None = None) -> None:
        self.folder = folder
        self.cache = cache
        self._lock = threading.Lock()
        self._indexes: dict[str, RunIndex] = {}
        self._bridges: dict[str, ReviewBridge] = {}
        self._warmed: set[str] = set()
        self.comparisons = Comparisons(folder, root=None if cache is None else cache / "compare")
        self.figures = RunFigures(folder)

    def warm(self, names: list[str]) -> None:
        """Build the indexes of `names` in one background thread, in order, while the person is still on the
        Runs page: a 30,000-probe run's first findings request builds its index (2.6 s on an idle 2-core
        machine, benchmarks/view_scale.py), every later one answers in tens of milliseconds. A request that
        comes first simply builds it itself (RunIndex.refresh holds a lock per index; a refresh of an
        index already current is a no-op), and a run that fails to index is left for its own request to
        report."""
        with self._lock:
            todo = [n for n in names if n not in self._warmed]
            self._warmed.update(todo)
        if not todo:
            return

        def build() -> None:
            for name in todo:
                try:
                    self.index(name).refresh()
                except Exception:  # noqa: BLE001 - a head start: the run's own request says what is wrong
                    continue

        threading.Thread(target=build, name="harness-view-index", daemon=True).start()

    def index(self, name: str) -> RunIndex:
        run_dir = self.folder.run_dir(name)
        with self._lock:
            if name not in self._indexes:
                self._indexes[name] = RunIndex(run_dir, root=self.cache)
            return self._indexes[name]

    def bridge(self, name: str) -> ReviewBridge:
        run_dir = self.folder.run_dir(name)
        with self._lock:
            if name not in self._bridges:
                self._bridges[name] = ReviewBridge(run_dir)
            return self._bridges[name]


def _error(status: int, text: str) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status)


def _guarded(work: Callable[..., Any]) -> Callable[[Request], Any]:
    """Run `work(state, request)` in a thread (it reads files and SQLite) and turn the project's errors into
    one-sentence JSON answers."""
    async def endpoint(request: Request) -> Response:
        state: ViewState = request.app.state.view
        body = None
        if request.method == "POST":
            try:
                body = await request.json() if await request.body() else {}
            except ValueError:
                return _error(400, "The request body is not JSON.")
            if not isinstance(body, dict):
                return _error(400, "The request body must be a JSON object.")
        try:
            out = await run_in_threadpool(work, state, request, body)
        except NotFound:
            return _error(404, "No such run or file in this folder.")
        except FileNotFoundError:
            return _error(404, "No such file.")
        except ValueError as exc:
            return _error(400, str(exc))
        except HarnessError as exc:
            return _error(409, str(exc))
        return out if isinstance(out, Response) else JSONResponse(out)
    return endpoint


def _runs(state: ViewState, request: Request, body: Any) -> Any:
    runs = state.folder.summaries()
    state.warm([r["id"] for r in runs if r.get("id")])
    return {"folder": str(state.folder.root), "runs": runs, "columns": columns()}


def _run(state: ViewState, request: Request, body: Any) -> Any:
    name = request.path_params["run"]
    run_dir = state.folder.run_dir(name)
    out = state.folder.summary(name)
    doc = state.folder.metrics_doc(run_dir) or {}
    out.update(notes=doc.get("notes") or [], error_reasons=doc.get("error_reasons") or {},
               scoring=doc.get("run") or {},
               plots=[{"name": p.name, "title": p.stem.replace("_", " "),
                       "url": f"/api/runs/{name}/plots/{p.name}"}
                      for p in sorted((run_dir / "plots").glob("*.png"))],
               report_url=f"/runs/{name}/report.html" if out.get("has_report") else None,
               facets=state.index(name).facets())
    return out


def _findings(state: ViewState, request: Request, body: Any) -> Any:
    params = request.query_params
    filters = Filters.from_query(params)
    try:
        page, size = int(params.get("page") or 1), int(params.get("size") or 50)
    except ValueError:
        raise ValueError("page and size must be whole numbers.") from None
    return state.index(request.path_params["run"]).findings(filters, page=page, size=size)


def _finding(state: ViewState, request: Request, body: Any) -> Any:
    found = state.index(request.path_params["run"]).finding(request.path_params["probe"])
    if found is None:
        raise NotFound(request.path_params["probe"])
    answered = found.get("status") == STATUS_OK
    found["review_labels"] = list(review_labels(str(found.get("kind") or ""))) if answered else []
    return found


def _figures(state: ViewState, request: Request, body: Any) -> Any:
    return state.figures.of(request.path_params["run"])


def _figure_css(state: ViewState, request: Request, body: Any) -> Any:
    from harness.core.html_figures import CSS

    return Response(str(CSS), media_type="text/css")


def _plot(state: ViewState, request: Request, body: Any) -> Any:
    path = state.folder.run_file(request.path_params["run"], "plots", request.path_params["name"])
    if path.suffix != ".png":
        raise NotFound(path.name)
    return FileResponse(path, media_type="image/png")


def _review(state: ViewState, request: Request, body: Any) -> Any:
    q = request.query_params
    try:
        sample, seed = int(q.get("sample") or DEFAULT_SAMPLE), int(q.get("seed") or 0)
    except ValueError:
        raise ValueError("sample and seed must be whole numbers.") from None
    return state.bridge(request.path_params["run"]).queue(sample=sample, seed=seed,
                                                          only=q.get("only") or "all",
                                                          probe=q.get("probe") or None)


def _label(state: ViewState, request: Request, body: Any) -> Any:
    probe, key = body.get("probe_id"), body.get("key")
    if not isinstance(probe, str) or not isinstance(key, str) or not key.strip():
        raise ValueError("Send {\"probe_id\": ..., \"key\": ...} with the label's key "
                         "(as typed in harness review).")
    return state.bridge(request.path_params["run"]).label(probe, key)


def _undo(state: ViewState, request: Request, body: Any) -> Any:
    return state.bridge(request.path_params["run"]).undo()


def _rescore(state: ViewState, request: Request, body: Any) -> Any:
    return state.bridge(request.path_params["run"]).rescore()


def _compare(state: ViewState, request: Request, body: Any) -> Any:
    return state.comparisons.leaderboard(request.query_params.getlist("runs"))


def _compare_probe(state: ViewState, request: Request, body: Any) -> Any:
    probe = request.query_params.get("probe_id") or ""
    if not probe:
        raise ValueError("Give probe_id.")
    return state.comparisons.probe(request.query_params.getlist("runs"), probe, state.index)


def _compare_plot(state: ViewState, request: Request, body: Any) -> Any:
    return FileResponse(state.comparisons.plot(request.path_params["key"], request.path_params["name"]),
                        media_type="image/png")


ROUTES = [
    Route("/api/runs", _guarded(_runs)),
    Route("/api/runs/{run}", _guarded(_run)),
    Route("/api/runs/{run}/findings", _guarded(_findings)),
    Route("/api/runs/{run}/findings/{probe}", _guarded(_finding)),
    Route("/api/runs/{run}/figures", _guarded(_figures)),
    Route("/api/runs/{run}/plots/{name}", _guarded(_plot)),
    Route("/api/figures.css", _guarded(_figure_css)),
    Route("/api/runs/{run}/review", _guarded(_review)),
    Route("/api/runs/{run}/review", _guarded(_label), methods=["POST"]),
    Route("/api/runs/{run}/review/undo", _guarded(_undo), methods=["POST"]),
    Route("/api/runs/{run}/rescore", _guarded(_rescore), methods=["POST"]),
    Route("/api/compare", _guarded(_compare)),
    Route("/api/compare/probe", _guarded(_compare_probe)),
    Route("/api/compare/plots/{key}/{name}", _guarded(_compare_plot)),
]
