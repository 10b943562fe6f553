"""A full disk mid-run (issue 36): one sentence naming the cause and `--resume`, no partial line, no reply the
server sent left unsaid, a manifest that says "stopped: disk full", no .tmp left; after space is freed the
resume completes and does not call anything "torn by a kill" or "died".

The real `harness run` against a real OpenAI-compatible server on 127.0.0.1. The disk is the transcript
writer's own `os.write` given a byte budget: it writes real bytes to the real file until the budget is spent
(a short write, as a filling disk does), then fails with ENOSPC; a small filesystem would need root.
"""

from __future__ import annotations

import errno
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from fault_server import FaultServer

from harness.cli import main

N = 30


class FillingDisk:
    """`os` as harness.run.transcript sees it, with a disk that has `budget` bytes left."""

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def write(self, fd: int, data: Any) -> int:
        if self.budget <= 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        written = os.write(fd, bytes(data[: self.budget]))
        self.budget -= written
        return written

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_a_full_disk_stops_cleanly_and_resumes(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    disk = FillingDisk(budget=9_000)  # a dozen lines, then a line cut short
    monkeypatch.setattr("harness.run.transcript.os", disk)
    with FaultServer(healed=True, delay_s=0.02) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        args = ["run", "--suite", "builtin-en", "--sample", str(N), "--target", "bot", "--concurrency", "4",
                "--no-report", "--no-progress"]
        assert main(args) == 3
        err = capsys.readouterr().err
        assert "the disk is full" in err and "harness run --resume builtin-en__bot__s30-seed0" in err, err
        assert "Traceback" not in err and len(err.strip().splitlines()) <= 3, err
        run_dir = run_env / "transcripts" / "builtin-en__bot__s30-seed0"
        data = (run_dir / "transcript.jsonl").read_bytes()
        assert data.endswith(b"\n")  # no partial line: the short write was cut back
        lines = data.splitlines()
        assert 0 < len(lines) < N and all(json.loads(line)["reply"]["status"] == "ok" for line in lines)
        said = re.search(r"([\d,]+) repl(?:y|ies) received after that could not be recorded", err)
        unwritten = int(said.group(1).replace(",", "")) if said else 0
        assert len(lines) + unwritten == server.total_requests  # every reply sent is on disk or counted
        manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
        assert manifest["status"] == "interrupted" and manifest["stopped"] == "stopped: disk full"
        assert manifest["sessions"][-1]["stopped"] == "stopped: disk full"
        assert not [p.name for p in run_dir.iterdir() if p.name.endswith(".tmp")]

        disk.budget = 1 << 30  # space freed
        assert main(args) == 0
        out = capsys.readouterr().out
        assert "torn by a kill" not in out and "died" not in out and "damaged" not in out, out
    manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
    assert manifest["status"] == "complete" and manifest["counts"]["answered"] == N
    assert "stopped" not in manifest and [s["status"] for s in manifest["sessions"]] == ["interrupted", "complete"]


def test_a_manifest_write_on_a_full_disk_leaves_no_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.run import manifest as mf

    mf.write_manifest(tmp_path, {"status": "running", "counts": {"answered": 1}})
    real = Path.write_bytes

    def full(self: Path, data: bytes) -> int:
        if self.name.endswith(".tmp"):
            self.touch()  # the file is created, its bytes find no room
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", full)
    mf.write_manifest(tmp_path, {"status": "interrupted", "stopped": "stopped: disk full"})  # fits its blocks
    assert json.loads((tmp_path / "manifest.json").read_text())["stopped"] == "stopped: disk full"
    with pytest.raises(OSError):
        mf.write_manifest(tmp_path, {"status": "x" * 10_000})  # would need more blocks: refused, old one kept
    assert json.loads((tmp_path / "manifest.json").read_text())["status"] == "interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def test_verdicts_csv_on_a_full_disk_leaves_no_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    import pandas as pd

    from harness.report import reporting

    cols = ["probe_id", "suite", "lang", "kind", "bias_type", "attribute", "groups", "property", "categories",
            "text", "reply", "label", "biased", "favoured", "score", "method", "evidence"]
    result = types.SimpleNamespace(frame=pd.DataFrame([dict.fromkeys(cols, "x")]), unscored=None)

    real_writer = reporting.csv.writer

    class FullDisk:
        """A csv writer whose file fills up once the header is written: the rows' write fails with ENOSPC."""

        def __init__(self, fh: Any) -> None:
            self.inner = real_writer(fh)

        def writerow(self, row: Any) -> Any:
            return self.inner.writerow(row)

        def writerows(self, rows: Any) -> Any:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(reporting.csv, "writer", FullDisk)  # the disk fills as the first row is written
    with pytest.raises(OSError):
        reporting.write_verdicts_csv(result, tmp_path / "verdicts.csv")  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
