"""`harness calibrate` end to end on a tiny GPT-2: MODE 1 and MODE 2 (f_debias trained from judged texts),
the trade-off table, the saved target, and bad input as one sentence with exit 2."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

import pytest
from political_models import political_lm

from harness.cli import main
from harness.core.errors import EXIT_USAGE

FAST = ["-p", "keywords_per_option=1", "-p", "samples=1", "-p", "max_new_tokens=3", "--steps", "2",
        "--bootstrap", "20", "--permutations", "0", "--no-progress"]


def parity(texts: list[str]) -> list[float]:
    """A judge with both leanings in any sample: 0.8 or 0.2 by a checksum of the text."""
    return [0.8 if zlib.crc32(t.encode()) % 2 else 0.2 for t in texts]


@pytest.fixture
def tiny_model(run_env: Path) -> Path:
    return political_lm()


def test_mode1_and_mode2_tables_and_saved_target(tiny_model: Path, run_env: Path, capsys: pytest.CaptureFixture[str]):
    judge = f"py:{__name__}:parity"  # the name pytest imported this module by
    assert main(["calibrate", "-m", str(tiny_model), "--mode", "1", "--judge", judge, "--lambda", "0.5",
                 "--save-target", "tinycal", *FAST]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "Ind. B." in out and "PPL" in out and "0.5" in out
    report = json.loads(next((run_env / "transcripts").glob("calibrate__*mode1*/tradeoff.json")).read_text())
    assert [r["lam"] for r in report["rows"]] == [0.0, 0.5]
    for row in report["rows"]:
        assert row["texts"] == 20 and row["perplexity"] > 1 and 0 <= row["indirect"] <= 1
    assert report["rows"][0]["mean_kl"] == 0.0  # lambda 0 is the vanilla model
    assert 'adapter = "hf-calibrated"' in (run_env / "targets.toml").read_text()
    assert main(["calibrate", "-m", str(tiny_model), "--mode", "2", "--judge", judge, "--lambda", "0.5", *FAST]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "f_debias: held-out accuracy" in out
    report2 = json.loads(next((run_env / "transcripts").glob("calibrate__*mode2*/tradeoff.json")).read_text())
    assert report2["head"]["texts"] == 20 and Path(report2["head"]["path"]).is_file()


def test_bad_input_is_one_sentence(tiny_model: Path, run_env: Path, capsys: pytest.CaptureFixture[str]):
    odd = run_env / "odd.txt"
    odd.write_text("zyxwvutsrq\nqqqqqqqqqq\n")
    assert main(["calibrate", "-m", str(tiny_model), "--mode", "1", "--words-liberal", str(odd), *FAST]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "None of the words of" in err and "is a single token" in err and "Traceback" not in err
    assert main(["calibrate", "-m", str(tiny_model), "--mode", "3", *FAST]) == EXIT_USAGE
    assert "mode must be 1" in " ".join(capsys.readouterr().err.split())
    assert main(["calibrate", "-m", str(tiny_model), "--mode", "2", *FAST]) == EXIT_USAGE
    assert "MODE 2 needs f_debias" in " ".join(capsys.readouterr().err.split())
