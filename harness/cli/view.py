"""CLI command `harness view [FOLDER]`: browse, compare and review the runs of a folder in the browser.

The app is harness.view (Starlette on uvicorn). It binds 127.0.0.1 unless told otherwise; another --host
serves the network, so it needs a token: $HARNESS_VIEW_TOKEN when set, else a new one printed once in the
URL to open.
"""

from __future__ import annotations

import os
import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from harness.core.display import assemble
from harness.core.errors import HarnessError

console = Console(highlight=False)


def view(
    folder: Annotated[Path | None, typer.Argument(metavar="[FOLDER]",
                                                  help="Transcripts folder (default: $HARNESS_TRANSCRIPTS_DIR or "
                                                       "./transcripts).")] = None,
    port: Annotated[int,
                    typer.Option("--port", metavar="N", min=0, max=65535, help="Port (0 picks a free one).")] = 8765,
    host: Annotated[str, typer.Option("--host", metavar="H",
                                      help="Address to bind; anything but 127.0.0.1 needs a token.")] = "127.0.0.1",
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Do not open a browser.")] = False,
) -> None:
    """Browse, compare and review runs in a local web app (Ctrl-C stops it).

    Pages: Runs (every run, live while one is asked), a run (metrics, figures, findings filtered on the server, each
    finding in full), Compare (the leaderboard of N runs, one probe's replies side by side) and Review (keyboard-first,
    the same labels and reviews.jsonl as `harness review`).

    The pages read a JSON API (/api/runs, /api/runs/ID, /api/runs/ID/findings, ...) that scripts can use too.

    Binds 127.0.0.1. With another --host every request needs a token: $HARNESS_VIEW_TOKEN, or a new one printed once in
    the URL.

    Exit codes: 0 stopped, 2 bad input (no such folder, port in use).
    """
    from harness.cli.run import live_status
    from harness.core.paths import transcripts_dir
    from harness.view.app import Server, create_app
    from harness.view.security import TOKEN_ENV, is_loopback, new_token

    root = (folder or transcripts_dir()).expanduser()
    if not root.is_dir():
        raise HarnessError(f"{root} is not a folder; give the transcripts folder that holds the run folders "
                           f"(`harness runs` lists them).")
    token = None
    if not is_loopback(host):
        token = os.environ.get(TOKEN_ENV) or new_token()
        if len(token) < 16:
            raise HarnessError(f"${TOKEN_ENV} is shorter than 16 characters; use a longer, random token.")
    app = create_app(root, token=token, status_of=live_status)
    server = Server(app, host=host, port=port)
    try:
        server.start()
    except RuntimeError:
        raise HarnessError(f"Cannot listen on {host}:{port} (in use, or not an address of this machine); "
                           "try another --port.") from None
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{shown if ':' not in shown else f'[{shown}]'}:{server.port}/"
    console.print(assemble("harness view: ", (str(root.resolve()), "bold"), " at ", (url, "bold")), soft_wrap=True)
    if token is not None:
        where = "" if os.environ.get(TOKEN_ENV) else " (printed once; set $" + TOKEN_ENV + " to choose it)"
        console.print(assemble(("Open: ", "yellow"), f"{url}?token={token}", where), soft_wrap=True)
    console.print("Ctrl-C stops it.")
    if not no_browser:
        webbrowser.open(url + (f"?token={token}" if token else ""))
    try:
        assert server.thread is not None
        while server.thread.is_alive():
            server.thread.join(0.5)
    except KeyboardInterrupt:
        console.print("stopped.")
    finally:
        server.stop()


def register(app: typer.Typer) -> None:
    """Attach this module's command to the main app."""
    app.command("view")(view)
