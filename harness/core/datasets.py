"""The upstream data sets the harness reads (BiasAsker, CBBQ, CHBias, CrowS-Pairs, Schema-Guided Dialogue): registry,
pull, verify, paths.

The project never ships upstream data. Instead `harness/data_registry.json` names, for every file a
loader needs, its path inside the data directory (the same layout as ../shared/data), the upstream
download URL pinned to one commit, and the sha256 the file must have on disk. That makes three things
possible with one table: downloading exactly the bytes the paper used, telling a user precisely which
file is missing or damaged, and refusing to parse a file that is not the one the loaders were written
for (a truncated CSV would otherwise give silently wrong counts).

A file with a `transform` (BiasAsker's data_sample/*.csv are GB18030 upstream) is stored after the
transform, and its sha256 is that of the transformed bytes; a mirror serves the data-dir layout, so a
download whose raw bytes already match is kept as is and only otherwise transformed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.errors import DataMissingError, HarnessError, InfrastructureError
from harness.core.paths import data_dir

MIRROR_ENV = "HARNESS_DATA_MIRROR"
NOTICE_FILE = "NOTICE.md"
_CHUNK = 1 << 16

if TYPE_CHECKING:  # httpx costs ~0.1 s to import; loaders that only read local files never need it
    import httpx


class FileState(StrEnum):
    OK = "ok"
    MISSING = "missing"
    CORRUPT = "corrupt"


@dataclass(frozen=True, slots=True)
class DataFile:
    """One file of a data set: where it lives under the set's folder and the bytes it must hold."""

    path: str
    url: str
    sha256: str
    size: int
    transform: str | None = None
    #: upstream's git blob id (SHA-1 of "blob <size>\0" + bytes), the pin of a file whose sha256 could not be
    #: computed when it was registered (BBQ's five released files not in ../shared/data): still exact bytes
    git_blob: str = ""
    #: the loaders can do without it (BBQ builds a category from its templates when the released file is absent)
    optional: bool = False
    #: the pin of a file served only through a host whose checksums could not be read when it was registered
    #: (discrim-eval's Hugging Face LFS files): the URL names one revision, and the file must be JSON lines,
    #: exactly `rows` of them, each an object with every name in `fields`. Weaker than a checksum (it catches a
    #: truncated, empty or wrong file, not an edited row), so used only where neither hash is known.
    rows: int = 0
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Dataset:
    name: str
    title: str
    license: str
    license_url: str
    source: str
    commit: str
    notice: str
    files: tuple[DataFile, ...]

    def file(self, path: str) -> DataFile:
        for f in self.files:
            if f.path == path:
                return f
        raise KeyError(f"{path} is not a file of data set {self.name}")

    @property
    def total_size(self) -> int:
        return sum(f.size for f in self.files)


class DataCorruptError(HarnessError):
    """A data file exists but is not the file the registry pins (wrong checksum) or cannot be parsed."""


@cache
def registry() -> dict[str, Dataset]:
    """The registry, read once from package data."""
    raw = json.loads(resources.files("harness.core").joinpath("data_registry.json").read_text("utf-8"))
    out: dict[str, Dataset] = {}
    for name, d in raw["datasets"].items():
        files = tuple(DataFile(**{**f, "fields": tuple(f.get("fields", ()))}) for f in d["files"])
        out[name] = Dataset(name=name, title=d["title"], license=d["license"], license_url=d["license_url"],
                            source=d["source"], commit=d["commit"], notice=d["notice"], files=files)
    return out


def get_dataset(name: str) -> Dataset:
    try:
        return registry()[name]
    except KeyError:
        known = ", ".join(registry())
        raise HarnessError(f"Unknown data set {name!r}; known data sets are: {known}.") from None


def dataset_dir(name: str, root: Path | None = None) -> Path:
    """Folder of one data set inside the data directory (which need not exist yet)."""
    get_dataset(name)
    return (root if root is not None else data_dir()) / name


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def git_blob_file(path: Path) -> str:
    """The id git gives the file's bytes (`git hash-object`): SHA-1 over "blob <size>\\0" + content."""
    h = hashlib.sha1(f"blob {path.stat().st_size}\0".encode(), usedforsecurity=False)
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def matches_pin(path: Path, f: DataFile) -> bool:
    """The file holds the registered bytes: its sha256 (and size), else its upstream git blob id, else (a
    revision-pinned file whose hashes are unknown) the registered number of JSON rows with their fields. A file
    pinned both ways accepts either exact bytes: upstream's by its git blob id, and by sha256 the offline rebuild
    that ../shared/data holds in its place (StereoSet's dev.json, with made-up ids: its README)."""
    if f.sha256 and path.stat().st_size == f.size and sha256_file(path) == f.sha256:
        return True
    if f.git_blob:
        return git_blob_file(path) == f.git_blob
    if f.sha256:
        return False
    return f.rows > 0 and jsonl_shape_ok(path, f.rows, f.fields)


def jsonl_shape_ok(path: Path, rows: int, fields: tuple[str, ...]) -> bool:
    """`path` holds exactly `rows` non-empty JSON lines, each an object with every name in `fields`."""
    seen = 0
    try:
        with path.open(encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    continue
                row = json.loads(line)
                if not isinstance(row, dict) or any(name not in row for name in fields):
                    return False
                seen += 1
    except (UnicodeDecodeError, json.JSONDecodeError, OSError):
        return False
    return seen == rows


def file_state(ds: Dataset, f: DataFile, root: Path | None = None) -> FileState:
    path = dataset_dir(ds.name, root) / f.path
    if not path.is_file():
        return FileState.MISSING
    if not matches_pin(path, f):
        return FileState.CORRUPT
    return FileState.OK


def check(name: str, root: Path | None = None) -> dict[str, FileState]:
    """State of every registered file of a data set, keyed by its relative path."""
    ds = get_dataset(name)
    return {f.path: file_state(ds, f, root) for f in ds.files}


def summary_state(states: dict[str, FileState]) -> str:
    """One word for a whole set: ok, missing (nothing there), partial, or corrupt."""
    values = set(states.values())
    if values == {FileState.OK}:
        return "ok"
    if FileState.CORRUPT in values:
        return "corrupt"
    if values == {FileState.MISSING}:
        return "missing"
    return "partial"


def require_file(name: str, path: str, *, verify: bool = True) -> Path:
    """Path of a data file a loader is about to parse, or one sentence telling the user what to run.

    Verification costs a sha256 over at most a few MB, once per loaded catalog (loaders cache), and it
    turns a damaged download into a clear message instead of wrong numbers.
    """
    ds = get_dataset(name)
    f = ds.file(path)
    full = dataset_dir(name) / path
    if not full.is_file():
        raise DataMissingError(
            f"The {name} data set is not in {data_dir()} ({path} is missing); "
            f"run `harness data pull {name}` or set HARNESS_DATA_DIR."
        )
    if verify and file_state(ds, f) is not FileState.OK:
        raise DataCorruptError(
            f"Data file {full} does not match its registered checksum; "
            f"run `harness data verify {name}` and then `harness data pull {name}` to replace it."
        )
    return full


# ---------------------------------------------------------------------------------------------- pull

@dataclass(frozen=True, slots=True)
class PullResult:
    fetched: tuple[str, ...]
    skipped: tuple[str, ...]
    failed: tuple[tuple[str, str], ...]  # (path, reason)

    @property
    def ok(self) -> bool:
        return not self.failed


def _transform(kind: str, data: bytes) -> bytes:
    if kind == "gb18030-to-utf8":
        return data.decode("gb18030").encode("utf-8")
    raise ValueError(f"unknown transform {kind!r}")


def _source_url(ds: Dataset, f: DataFile, mirror: str | None) -> str:
    if mirror:
        return f"{mirror.rstrip('/')}/{ds.name}/{f.path}"
    return f.url


def _download(client: httpx.Client, url: str, dest_dir: Path, on_bytes: Callable[[int], None]) -> Path:
    """Stream url into a temporary file in dest_dir (same file system, so the final rename is atomic)."""
    dest_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=".part-", dir=dest_dir)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out, client.stream("GET", url) as resp:
            resp.raise_for_status()
            for chunk in resp.iter_bytes(_CHUNK):
                out.write(chunk)
                on_bytes(len(chunk))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _accept(tmp: Path, f: DataFile) -> str | None:
    """Make tmp hold the registered bytes (applying the transform if the raw bytes don't match).

    Returns None when it does, else the reason it can't.
    """
    if matches_pin(tmp, f):
        return None
    if f.transform:
        try:
            tmp.write_bytes(_transform(f.transform, tmp.read_bytes()))
        except (UnicodeDecodeError, ValueError) as exc:
            return f"cannot apply {f.transform}: {exc}"
        if matches_pin(tmp, f):
            return None
    return "checksum mismatch"


def iter_pull(
    name: str,
    *,
    mirror: str | None = None,
    root: Path | None = None,
    client: httpx.Client | None = None,
    on_bytes: Callable[[int], None] = lambda n: None,
) -> Iterator[tuple[DataFile, str, str | None]]:
    """Download the missing or damaged files of a data set, yielding (file, outcome, reason) per file.

    outcome is "skipped" (already valid), "fetched", or "failed". Nothing that fails verification is kept:
    a download goes to a temporary file beside its destination and is renamed over it only once its
    sha256 matches, so an interrupted or poisoned pull never leaves a bad file under a good name.
    """
    import httpx

    ds = get_dataset(name)
    mirror = mirror or os.environ.get(MIRROR_ENV) or None
    base = dataset_dir(name, root)
    own_client = client is None
    http = client or httpx.Client(follow_redirects=True, timeout=httpx.Timeout(30.0, connect=10.0))
    kept = 0
    try:
        for f in ds.files:
            dest = base / f.path
            state = file_state(ds, f, root)
            if state is FileState.OK:
                on_bytes(f.size)
                kept += 1
                yield f, "skipped", None
                continue
            url = _source_url(ds, f, mirror)
            try:
                tmp = _download(http, url, dest.parent, on_bytes)
            except httpx.HTTPStatusError as exc:
                yield f, "failed", f"HTTP {exc.response.status_code} from {url}"
                continue
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                # Unreachable host: every further file would fail the same way, so stop with one sentence.
                host = httpx.URL(url).host
                raise InfrastructureError(
                    f"Cannot reach {host} to download {name} ({type(exc).__name__}); check the network, "
                    f"or pass --mirror URL (or set {MIRROR_ENV}) to a server with the same layout."
                ) from None
            except httpx.HTTPError as exc:
                yield f, "failed", f"{type(exc).__name__} fetching {url}: {exc}"
                continue
            reason = _accept(tmp, f)
            if reason is None:
                os.replace(tmp, dest)
                kept += 1
                yield f, "fetched", None
            else:
                tmp.unlink(missing_ok=True)
                if state is FileState.CORRUPT:
                    # The old file was wrong too; remove it so nothing bad stays under a good name.
                    dest.unlink(missing_ok=True)
                yield f, "failed", f"{reason} for {url}"
        if kept:
            _write_notice(ds, base)
    finally:
        if own_client:
            http.close()


def _write_notice(ds: Dataset, base: Path) -> None:
    """The project's own attribution text next to pulled data (upstream ships no such file)."""
    notice = base / NOTICE_FILE
    if not notice.exists():
        notice.write_text(ds.notice + "\n", encoding="utf-8")


def pull(name: str, **kwargs) -> PullResult:
    """Non-interactive pull (the CLI wraps iter_pull with a progress bar)."""
    fetched: list[str] = []
    skipped: list[str] = []
    failed: list[tuple[str, str]] = []
    for f, outcome, reason in iter_pull(name, **kwargs):
        if outcome == "fetched":
            fetched.append(f.path)
        elif outcome == "skipped":
            skipped.append(f.path)
        else:
            failed.append((f.path, reason or "failed"))
    return PullResult(tuple(fetched), tuple(skipped), tuple(failed))


def ensure_writable(root: Path) -> None:
    """Refuse early, with one sentence, when the data directory can't be written."""
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InfrastructureError(f"Cannot create the data directory {root}: {exc.strerror}.") from None
    if not os.access(root, os.W_OK):
        raise HarnessError(
            f"The data directory {root} is not writable; set HARNESS_DATA_DIR to a writable folder."
        )
