"""The Starlette application of `harness view` and the uvicorn server that runs it.

Pages are one static HTML shell, harness/view/static/page.html, filled with each page's title and script;
they read everything through the JSON API (harness.view.api), so no page carries data from the server in
its HTML and no reply is ever parsed as markup. Routes:

  /                          Runs: every run, sortable and filterable, updating while a run is asked
  /runs/{id}                 A run: headline metrics, figures, the report, the findings table
  /runs/{id}/review          Review in the browser (keyboard-first)
  /runs/{id}/report.html     the run's report.html, in a sandboxed frame of the run page
  /compare?runs=A&runs=B     Compare: the leaderboard and one probe's replies side by side
  /static/...                the pages' scripts and style (Starlette's StaticFiles, which refuses paths
                             that leave its folder)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from harness.view.api import ROUTES, ViewState
from harness.view.folder import NotFound, RunFolder, StatusOf, manifest_status
from harness.view.security import Guard

STATIC = Path(__file__).resolve().parent / "static"


#: The pages: (title, script) per page, all drawn from the one shell page.html (its shared head, nav and
#: status box written once; issue 37: no logic written twice).
PAGES: dict[str, tuple[str, str]] = {"runs": ("Runs", "runs.js"), "run": ("Run", "run.js"),
                                     "review": ("Review", "review.js"), "compare": ("Compare runs", "compare.js")}


def page_html(name: str) -> str:
    """The HTML of page `name`: page.html with its title, page name and script filled in (fixed strings of
    PAGES, never request data)."""
    title, script = PAGES[name]
    shell = (STATIC / "page.html").read_text(encoding="utf-8")
    return shell.replace("{{title}}", title).replace("{{page}}", name).replace("{{script}}", script)


def _page(name: str, *, needs_run: bool = False) -> Callable[[Request], Any]:
    async def endpoint(request: Request) -> Response:
        if needs_run:
            try:
                request.app.state.view.folder.run_dir(request.path_params["run"])
            except NotFound:
                return PlainTextResponse("No such run in this folder.", status_code=404)
        return HTMLResponse(page_html(name), headers={"cache-control": "no-store"})
    return endpoint


async def _report(request: Request) -> Response:
    try:
        path = request.app.state.view.folder.run_file(request.path_params["run"], "report.html")
    except NotFound:
        return PlainTextResponse("This run has no report yet.", status_code=404)
    return FileResponse(path, media_type="text/html; charset=utf-8", headers={"cache-control": "no-store"})


def create_app(folder: Path, *, token: str | None = None, status_of: StatusOf = manifest_status,
               cache: Path | None = None) -> Any:
    """The ASGI app over `folder` (a transcripts folder). `token`: required on every request when set (a
    non-loopback host); `status_of`: a run's live status (the CLI passes harness.cli.run.live_status);
    `cache`: where the indexes and comparison figures go (default: the harness cache directory)."""
    view = ViewState(RunFolder(folder, status_of=status_of), cache=cache)
    app = Starlette(routes=[
        Route("/", _page("runs")),
        Route("/runs/{run}", _page("run", needs_run=True)),
        Route("/runs/{run}/review", _page("review", needs_run=True)),
        Route("/runs/{run}/report.html", _report),
        Route("/compare", _page("compare")),
        *ROUTES,
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ])
    app.state.view = view
    return Guard(app, token=token)


class Server:
    """uvicorn serving the app on host:port in a thread (tests, the CLI's browser opening) or in front."""

    def __init__(self, app: Any, *, host: str = "127.0.0.1", port: int = 8765) -> None:
        import uvicorn

        self.config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False,
                                     lifespan="off", server_header=False)
        self.server = uvicorn.Server(self.config)
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        servers = getattr(self.server, "servers", None) or []
        for s in servers:
            for sock in s.sockets:
                return int(sock.getsockname()[1])
        return self.config.port

    def run(self) -> None:
        """Serve until Ctrl-C (the CLI)."""
        self.server.run()

    def start(self) -> Server:
        """Serve in a daemon thread; returns once the socket is listening."""
        import time

        self.thread = threading.Thread(target=self.server.run, name="harness-view", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"harness view could not listen on {self.config.host}:{self.config.port}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout=10)
