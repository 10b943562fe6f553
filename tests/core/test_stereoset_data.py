"""The StereoSet data set's pins: dev.json is pinned both by upstream's git blob id and by the sha256 of the offline
rebuild in ../shared/data, and either exact file is accepted, nothing else; `harness data pull stereoset` from
a mirror (a real HTTP server on 127.0.0.1) fetches and verifies both files."""

from __future__ import annotations

import functools
import hashlib
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.cli import main
from harness.core import datasets
from harness.core.datasets import DataFile, matches_pin


def _blob(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data, usedforsecurity=False).hexdigest()


def test_a_file_pinned_both_ways_accepts_either_exact_bytes(tmp_path: Path) -> None:
    upstream, rebuild = b'{"data": "upstream"}', b'{"data": "rebuilt, made-up ids"}'
    pin = DataFile("dev.json", "https://x", hashlib.sha256(rebuild).hexdigest(), len(rebuild), git_blob=_blob(upstream))
    path = tmp_path / "dev.json"
    for data, ok in ((upstream, True), (rebuild, True), (rebuild[:-1] + b"!", False), (b"", False)):
        path.write_bytes(data)
        assert matches_pin(path, pin) is ok, data
    sha_only = DataFile("dev.json", "https://x", hashlib.sha256(rebuild).hexdigest(), len(rebuild))
    path.write_bytes(upstream)
    assert not matches_pin(path, sha_only)  # a sha256-only pin stays exactly as strict as before


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.needs_data("stereoset")
def test_pull_from_a_mirror_verifies_and_writes_the_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.core.paths import data_dir

    mirror = tmp_path / "mirror"
    shutil.copytree(data_dir() / "stereoset", mirror / "stereoset")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(mirror)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path / "data"))
    try:
        assert main(["data", "pull", "stereoset", "--mirror", f"http://127.0.0.1:{server.server_address[1]}"]) == 0
    finally:
        server.shutdown()
        server.server_close()
    assert set(datasets.check("stereoset").values()) == {datasets.FileState.OK}
    assert "CC BY-SA 4.0" in (tmp_path / "data" / "stereoset" / "NOTICE.md").read_text(encoding="utf-8")
