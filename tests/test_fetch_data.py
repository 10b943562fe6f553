"""scripts/fetch_data.sh, which scripts/setup.sh runs: the pinned data sets fetched into an empty data directory
from a real HTTP server on 127.0.0.1 (every file's sha256 checked by `harness data pull`), left alone when
they are there, and one line, never a failed setup, when they cannot be fetched (issue 26)."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.core import datasets
from harness.core.paths import data_dir

REPO = Path(__file__).resolve().parent.parent
HARNESS = str(Path(sys.executable).with_name("harness"))


def fetch(env: dict[str, str], *names: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "scripts/fetch_data.sh", *names], cwd=REPO, capture_output=True, text=True,
                          timeout=300, env={**os.environ, "HARNESS_BIN": HARNESS, **env})


def closed_port() -> int:
    """A port nothing listens on (bound, then released): connections to it are refused, as offline."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        return None


@pytest.mark.needs_data("chbias")
def test_missing_sets_are_fetched_verified_and_then_left_alone(tmp_path: Path) -> None:
    # A mirror with the data directory's layout (NAME/PATH), served from this session's copy.
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(data_dir())))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    target = tmp_path / "data"
    env = {"HARNESS_DATA_DIR": str(target), "HARNESS_DATA_MIRROR": f"http://127.0.0.1:{server.server_port}"}
    try:
        first = fetch(env, "chbias")
        fetched = {f: (target / "chbias" / f).stat().st_mtime_ns for f in datasets.check("chbias", target)}
        second = fetch(env, "chbias")
    finally:
        server.shutdown()
        server.server_close()
    assert first.returncode == 0 and first.stderr == "", first.stderr
    assert set(datasets.check("chbias", target).values()) == {datasets.FileState.OK}  # sha256 as pinned
    assert second.returncode == 0 and second.stderr == ""
    assert {f: (target / "chbias" / f).stat().st_mtime_ns for f in fetched} == fetched  # not fetched again


def test_offline_is_one_line_and_never_a_failed_setup(tmp_path: Path) -> None:
    env = {"HARNESS_DATA_DIR": str(tmp_path / "data"), "HARNESS_DATA_MIRROR": f"http://127.0.0.1:{closed_port()}"}
    proc = fetch(env, "biasasker", "cbbq")
    assert proc.returncode == 0
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("note: could not fetch the data sets biasasker cbbq into")
    assert "harness data pull NAME" in lines[0] and str(tmp_path / "data") in lines[0]
