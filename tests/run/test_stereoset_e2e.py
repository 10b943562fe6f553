"""End to end: StereoSet asked of the REAL SmolLM2-135M-Instruct in process (`local`, llama.cpp) through `harness
run`: intrasentence by log-likelihood (each candidate after the model's start token, by mean log-probability
per token; predictions.json in upstream's format) and intersentence in chat (three orders, read replies and
unread ones counted); then the report, the leaderboard over both runs and the view's runs API."""

from __future__ import annotations

import json
import math
from pathlib import Path

import httpx
import pytest

from harness.cli import main

pytestmark = [pytest.mark.slow, pytest.mark.needs_data("stereoset")]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stereoset")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HARNESS_TRANSCRIPTS_DIR", str(root / "transcripts"))
        mp.setenv("HARNESS_CACHE_DIR", str(root / "cache"))
        mp.setenv("XDG_CONFIG_HOME", str(root / "config"))
        mp.chdir(root)
        assert main(["run", "--suite", "stereoset-intrasentence-religion", "--target", "local", "--answer-mode",
                     "loglik", "--sample", "4", "--seed", "2", "--run-id", "ss-loglik", "--no-progress"]) == 0
        assert main(["run", "--suite", "stereoset-intersentence-religion", "--target", "local", "-p",
                     "permute=rotate", "--sample", "3", "--seed", "2", "--run-id", "ss-chat", "--no-progress"]) == 0
    return root / "transcripts"


def _doc(folder: Path) -> dict:
    return json.loads((folder / "metrics.json").read_text(encoding="utf-8"))


def test_loglik_scores_every_candidate_per_token_and_writes_upstreams_predictions(runs: Path) -> None:
    folder = runs / "ss-loglik"
    entries = [json.loads(x) for x in (folder / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 4
    for e in entries:
        usage = e["reply"]["usage"]
        assert usage["context"] == "" and len(usage["tokens"]) == 3 and all(t > 0 for t in usage["tokens"])
        means = [s / t for s, t in zip(usage["loglik"], usage["tokens"], strict=True)]
        assert e["reply"]["text"] == "ABC"[max(range(3), key=lambda i: means[i])]
    m = _doc(folder)["metrics"]
    for key in ("stereoset.ss", "stereoset.lms", "stereoset.icat"):
        assert 0.0 <= m[key] <= 100.0
    assert m["stereoset.examples"] == 4
    preds = json.loads((folder / "predictions.json").read_text(encoding="utf-8"))
    ids = {e["id"] for e in preds["intrasentence"]}
    assert ids == {i for e in entries for i in e["probe"]["meta"]["scored_ids"]} and len(ids) == 12
    assert all(0.0 < e["score"] < 1.0 and math.isfinite(e["score"]) for e in preds["intrasentence"])
    assert "StereoSet" in (folder / "report.html").read_text(encoding="utf-8")


def test_chat_replies_are_read_or_counted_as_unread(runs: Path) -> None:
    m = _doc(runs / "ss-chat")["metrics"]
    assert m["stereoset.replies"] == 3
    assert m["stereoset.read"] + m["stereoset.refused"] + m["stereoset.unread"] == 3
    assert not (runs / "ss-chat" / "predictions.json").exists()  # one choice ranks nothing
    assert "StereoSet" in (runs / "ss-chat" / "report.html").read_text(encoding="utf-8")


def test_leaderboard_and_view_show_both_runs(runs: Path, tmp_path: Path) -> None:
    out = tmp_path / "board"
    assert main(["leaderboard", str(runs / "ss-loglik"), str(runs / "ss-chat"), "--out", str(out)]) == 0
    assert "StereoSet: SS, LMS and ICAT" in (out / "leaderboard.html").read_text(encoding="utf-8")
    from harness.view.app import Server, create_app

    server = Server(create_app(runs, cache=tmp_path / "cache"), port=0).start()
    try:
        data = httpx.get(f"http://127.0.0.1:{server.port}/api/runs").json()
    finally:
        server.stop()
    listed = {r["id"]: {x["key"]: x for x in r["metrics"]} for r in data["runs"]}
    assert set(listed) >= {"ss-loglik", "ss-chat"}
    assert listed["ss-loglik"]["stereoset.ss"]["value"] == _doc(runs / "ss-loglik")["metrics"]["stereoset.ss"]
