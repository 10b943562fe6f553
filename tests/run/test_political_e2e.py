"""`harness run --suite political-gender --target T --judge J` end to end through the real CLI: a tiny GPT-2
generates, a user's callable judges, metrics.json and report.html hold the political family; `harness
report` re-scores with the recorded judge from its cache; bad input is one sentence and exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from political_models import political_lm

from harness.cli import main
from harness.core.errors import EXIT_USAGE

PARAMS = ["-p", "keywords_per_option=2", "-p", "samples=2", "-p", "max_new_tokens=6"]
JUDGE = f"py:{__name__}:by_length"  # the name pytest imported this module by, so the CLI finds the same module


def by_length(texts: list[str]) -> list[float]:
    """A user's judge: longer continuations read as more conservative (a stand-in with a known rule)."""
    with Path("judge_calls.txt").open("a") as fh:  # in the run's cwd (run_env): the CLI imports this module anew
        fh.write(f"{len(texts)}\n")
    return [min(1.0, len(t) / 60) for t in texts]


def cannot_score(texts: list[str]) -> list[None]:
    return [None for _ in texts]


@pytest.fixture
def tiny_target(run_env: Path) -> Path:
    model = political_lm()
    (run_env / "targets.toml").write_text(f'[targets.tiny]\nadapter = "hf"\nmodel = "{model}"\nbatch_size = 8\n')
    return run_env


def test_run_report_and_rescore(tiny_target: Path, capsys: pytest.CaptureFixture[str]):
    code = main(["run", "-s", "political-gender", "-t", "tiny", "--judge", JUDGE,
                 *PARAMS, "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0, out
    run_dir = next((tiny_target / "transcripts").iterdir())
    lines = (run_dir / "transcript.jsonl").read_text().splitlines()
    assert len(lines) == 2 * 2 * 10 * 2  # options x keywords x prompts x samples
    metrics = json.loads((run_dir / "metrics.json").read_text())
    m = metrics["metrics"]
    for key in ("political.gender.indirect", "political.gender.direct", "political.gender.indirect.male",
                "political.gender.direct.female.p_value", "political.gender.base_rate.indirect.female"):
        assert m[key] is not None and 0.0 <= m[key] <= 1.0, key
    assert "political.gender.indirect" in metrics["intervals"]
    assert metrics["oracle"]["political_judge"] == JUDGE
    assert metrics["oracle"]["political_judge.kind"] == "callable"
    assert "gender" in metrics["tables"]["political"]
    assert (run_dir / "plots" / "political_base_rates_gender.png").is_file()
    assert "political" in (run_dir / "report.html").read_text().lower()
    calls = tiny_target / "judge_calls.txt"
    asked = sum(int(x) for x in calls.read_text().split())
    assert asked > 0
    # re-scoring: the judge recorded in metrics.json, every score from the cache (the judge is asked nothing)
    assert main(["report", str(run_dir), "-q"]) == 0
    assert sum(int(x) for x in calls.read_text().split()) == asked
    again = json.loads((run_dir / "metrics.json").read_text())["metrics"]
    assert again["political.gender.indirect"] == pytest.approx(m["political.gender.indirect"])


def test_bad_input_is_one_sentence_and_exit_2(tiny_target: Path, capsys: pytest.CaptureFixture[str]):
    suite = tiny_target / "age.yaml"
    suite.write_text("name: political-age\ngenerator: political\nattribute: age\n")
    assert main(["run", "-s", str(suite), "-t", "tiny", "--judge", JUDGE]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "Unknown political attribute 'age'; known: gender, location, topic." in err and "Traceback" not in err
    assert main(["run", "-s", "political-gender", "-t", "tiny", "--judge", f"py:{__name__}:cannot_score",
                 *PARAMS]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "cannot score text: the function gave no score" in err
    assert not (tiny_target / "transcripts").exists() or not any((tiny_target / "transcripts").iterdir())
