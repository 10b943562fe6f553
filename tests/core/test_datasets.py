"""Data-set registry, pull, verify and paths, against a real http.server on 127.0.0.1.

The server serves a temporary copy of ../shared/data (the data-dir layout), one file of which is
corrupted, so `pull` must reject exactly that file, keep nothing bad, and fetch the rest. Nothing is ever
written into ../shared.
"""

from __future__ import annotations

import functools
import hashlib
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.cli import main
from harness.core import datasets
from harness.core.datasets import FileState

SHARED = Path(__file__).resolve().parent.parent.parent.parent / "shared" / "data"
pytestmark = pytest.mark.skipif(not SHARED.is_dir(), reason="needs ../shared/data")

CORRUPTED = "dataset/groups.csv"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - signature is http.server's
        return None


@pytest.fixture()
def serve() -> Iterator:
    """Start real threaded HTTP servers over given folders; yields a function folder -> base URL."""
    servers: list[ThreadingHTTPServer] = []

    def start(root: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(root))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture()
def mirror(tmp_path: Path) -> Path:
    """A copy of the shared biasasker set in the data-dir layout, with one file corrupted."""
    root = tmp_path / "mirror"
    shutil.copytree(SHARED / "biasasker", root / "biasasker")
    bad = root / "biasasker" / CORRUPTED
    data = bytearray(bad.read_bytes())
    data[100:110] = b"XXXXXXXXXX"  # same size, wrong content: only the checksum can tell
    bad.write_bytes(bytes(data))
    return root


@pytest.fixture()
def data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "data"
    monkeypatch.setenv("HARNESS_DATA_DIR", str(home))
    monkeypatch.delenv("HARNESS_DATA_MIRROR", raising=False)
    return home


# ------------------------------------------------------------------------------------------ registry

def test_registry_pins_every_shared_file_with_its_checksum() -> None:
    on_disk = {
        p.relative_to(SHARED).as_posix()
        for p in SHARED.rglob("*")
        if p.is_file() and p.name != "NOTICE.md" and p != SHARED / "README.md"  # those two are not upstream
        and p != SHARED / "stereoset" / "README.md"  # what the offline rebuild of dev.json changed (made-up ids)
    }
    # a set no copy of which is reachable here (discrim-eval, on Hugging Face) is pinned by its revision and its
    # files' shape (rows and fields), not by a checksum of a copy in ../shared
    registered = {f"{n}/{f.path}" for n, ds in datasets.registry().items() for f in ds.files
                  if not f.optional and not f.rows}
    assert registered == on_disk
    for name, ds in datasets.registry().items():
        assert len(ds.commit) == 40
        for f in ds.files:
            if f.rows:
                assert f.url.startswith("https://huggingface.co/datasets/") and f"/resolve/{ds.commit}/" in f.url
                assert not f.sha256 and not f.git_blob and f.fields, f.path
                continue
            assert f.url.startswith("https://raw.githubusercontent.com/") and f"/{ds.commit}/" in f.url
            if f.optional and not (SHARED / name / f.path).is_file():  # pinned by upstream's git blob id only
                assert len(f.git_blob) == 40 and not f.sha256, f.path
                continue
            assert f.sha256 == hashlib.sha256((SHARED / name / f.path).read_bytes()).hexdigest()


def test_registry_licenses_and_transforms() -> None:
    reg = datasets.registry()
    assert (reg["biasasker"].license, reg["cbbq"].license, reg["chbias"].license) == (
        "MIT", "CC BY-SA 4.0", "MIT")
    transformed = {f.path for f in reg["biasasker"].files if f.transform}
    assert transformed == {f"data_sample/{n}" for n in (
        "groups_for_auto.csv", "groups_for_manual.csv", "sample_bias_data_for_auto.csv",
        "sample_bias_data_for_manual.csv")}
    # Upstream paths that differ from the data-dir layout are mapped, not guessed.
    assert reg["chbias"].file("LICENSE").url.endswith("/data/LICENSE")
    assert reg["cbbq"].file("reference/gender/ambiguous.csv").url.endswith(
        "/data/gender/ambiguous/ambiguous.csv")


def test_shared_copy_verifies_clean() -> None:
    for name, ds in datasets.registry().items():
        states = datasets.check(name, root=SHARED)
        required = {p: s for p, s in states.items() if not ds.file(p).optional and not ds.file(p).rows}
        if not required:  # a revision-pinned set with no copy in ../shared (discrim-eval)
            continue
        assert set(required.values()) == {FileState.OK}, name


# ------------------------------------------------------------------------------------------ pull

def test_pull_rejects_corrupted_file_and_keeps_the_rest(serve, mirror: Path, data_home: Path, capsys) -> None:
    url = serve(mirror)
    rc = main(["data", "pull", "biasasker", "--mirror", url])
    err = capsys.readouterr().err
    assert rc == 3
    assert CORRUPTED in err and "checksum mismatch" in err

    base = data_home / "biasasker"
    assert not (base / CORRUPTED).exists()  # nothing bad kept under a good name
    assert not list(base.rglob(".part-*"))  # no temporary leftovers
    states = datasets.check("biasasker")
    assert states[CORRUPTED] is FileState.MISSING
    assert all(s is FileState.OK for p, s in states.items() if p != CORRUPTED)
    assert "MIT" in (base / "NOTICE.md").read_text(encoding="utf-8")

    # Fix the mirror: the second pull fetches only the missing file and skips the valid ones.
    shutil.copy2(SHARED / "biasasker" / CORRUPTED, mirror / "biasasker" / CORRUPTED)
    result = datasets.pull("biasasker", mirror=url)
    assert result.ok
    assert result.fetched == (CORRUPTED,)
    assert len(result.skipped) == len(datasets.get_dataset("biasasker").files) - 1
    assert main(["data", "verify", "biasasker"]) == 0


def test_pull_replaces_a_corrupt_local_file(serve, data_home: Path) -> None:
    shutil.copytree(SHARED / "biasasker", data_home / "biasasker")
    local = data_home / "biasasker" / "vocab" / "pos_list.txt"
    local.write_text("tampered\n", encoding="utf-8")
    result = datasets.pull("biasasker", mirror=serve(SHARED))
    assert result.fetched == ("vocab/pos_list.txt",)
    assert local.read_bytes() == (SHARED / "biasasker" / "vocab" / "pos_list.txt").read_bytes()


def test_pull_deletes_a_corrupt_local_file_when_the_download_is_bad_too(serve, mirror: Path,
                                                                       data_home: Path) -> None:
    shutil.copytree(SHARED / "biasasker", data_home / "biasasker")
    local = data_home / "biasasker" / CORRUPTED
    local.write_text("Group,Category\n", encoding="utf-8")
    result = datasets.pull("biasasker", mirror=serve(mirror))
    assert [p for p, _ in result.failed] == [CORRUPTED]
    assert not local.exists()


def test_pull_applies_the_upstream_gb18030_transform(serve, tmp_path: Path, data_home: Path) -> None:
    """Upstream serves data_sample/*.csv in GB18030; the stored file must be the registered UTF-8 bytes."""
    upstream = tmp_path / "upstream" / "biasasker"
    shutil.copytree(SHARED / "biasasker", upstream)
    sample = upstream / "data_sample" / "groups_for_auto.csv"
    sample.write_bytes(sample.read_text(encoding="utf-8").encode("gb18030"))
    assert sample.read_bytes() != (SHARED / "biasasker" / "data_sample" / "groups_for_auto.csv").read_bytes()
    result = datasets.pull("biasasker", mirror=serve(tmp_path / "upstream"))
    assert result.ok
    stored = data_home / "biasasker" / "data_sample" / "groups_for_auto.csv"
    assert "聋哑人" in stored.read_text(encoding="utf-8")


def test_pull_reports_http_errors_and_uses_env_mirror(serve, tmp_path: Path, data_home: Path,
                                                      monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("HARNESS_DATA_MIRROR", serve(empty))
    assert main(["data", "pull", "chbias"]) == 3
    assert "HTTP 404" in capsys.readouterr().err
    assert not [p for p in data_home.rglob("*") if p.is_file()]


# ------------------------------------------------------------------------------------------ verify / list / path

def test_verify_detects_corruption_and_missing_files(data_home: Path, capsys) -> None:
    shutil.copytree(SHARED / "biasasker", data_home / "biasasker")
    assert main(["data", "verify", "biasasker"]) == 0
    capsys.readouterr()
    (data_home / "biasasker" / "dataset" / "bias_translate.csv").write_bytes(b"Translation\r\n")
    (data_home / "biasasker" / "vocab" / "neg_list.txt").unlink()
    assert main(["data", "verify", "biasasker"]) == 2
    out = capsys.readouterr().out
    assert "corrupt" in out and "dataset/bias_translate.csv" in out
    assert "missing" in out and "vocab/neg_list.txt" in out
    states = datasets.check("biasasker")
    assert states["dataset/bias_translate.csv"] is FileState.CORRUPT
    assert datasets.summary_state(states) == "corrupt"


def test_verify_all_with_nothing_present(data_home: Path, capsys) -> None:
    assert main(["data", "verify"]) == 2
    out = capsys.readouterr().out
    assert "biasasker: 0/" in out and "cbbq: 0/" in out and "chbias: 0/" in out


def test_list_shows_sets_licenses_and_state(data_home: Path, capsys) -> None:
    shutil.copytree(SHARED / "chbias", data_home / "chbias")
    assert main(["data", "list"]) == 0
    out = capsys.readouterr().out
    for word in ("biasasker", "cbbq", "chbias", "MIT", "CC BY-SA 4.0", "present", "missing"):
        assert word in out


def test_path_and_unknown_name(data_home: Path, capsys) -> None:
    assert main(["data", "path"]) == 0
    assert capsys.readouterr().out.strip() == str(data_home)
    assert main(["data", "path", "cbbq"]) == 0
    assert capsys.readouterr().out.strip() == str(data_home / "cbbq")
    assert main(["data", "pull", "nosuchset"]) == 2
    err = capsys.readouterr().err
    assert "Unknown data set 'nosuchset'" in err and "Traceback" not in err


def test_require_file_sentences(data_home: Path) -> None:
    with pytest.raises(datasets.DataMissingError, match=r"harness data pull biasasker"):
        datasets.require_file("biasasker", "dataset/groups.csv")
    target = data_home / "biasasker" / "dataset" / "groups.csv"
    target.parent.mkdir(parents=True)
    target.write_text("Group,Category\n", encoding="utf-8")
    with pytest.raises(datasets.DataCorruptError, match=r"harness data verify biasasker"):
        datasets.require_file("biasasker", "dataset/groups.csv")


def test_unreachable_host_is_one_sentence(data_home: Path, capsys) -> None:
    with socket.socket() as s:  # a port nobody listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rc = main(["data", "pull", "biasasker", "--mirror", f"http://127.0.0.1:{port}"])
    err = capsys.readouterr().err
    assert rc == 3
    assert "Cannot reach 127.0.0.1 to download biasasker" in err and "Traceback" not in err
