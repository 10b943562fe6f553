"""Replies cut at max_tokens (issue 36): recorded with their finish_reason, marked in verdicts.csv, counted in the
run summary. A real OpenAI-compatible server on 127.0.0.1 cuts every other reply ("length"), through the CLI."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from adapter_servers import Reply, scripted_server

from harness.cli import main
from harness.run.transcript import latest_by_probe


def _answer(request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
    prompt = json.loads(request.body)["messages"][-1]["content"]
    cut = sum(map(ord, prompt)) % 2 == 0  # a fixed half of the questions, whatever order they come in
    body = {"choices": [{"index": 0, "message": {"role": "assistant",
                                                 "content": "No, I would not say that about" if cut else "No."},
                         "finish_reason": "length" if cut else "stop"}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 7 if cut else 2}}
    return Reply(200, json.dumps(body).encode())


def test_cut_replies_are_recorded_marked_and_counted(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with scripted_server() as srv:
        url = srv.route("/v1", _answer)
        (run_env / "targets.toml").write_text(
            f'[targets.cutter]\nadapter = "openai"\nmodel = "m"\nbase_url = "{url}"\n', encoding="utf-8")
        code = main(["run", "--suite", "builtin-en", "--sample", "12", "--seed", "3", "--target", "cutter",
                     "--no-progress"])
    said = "".join(capsys.readouterr())
    assert code == 0, said
    (run_dir,) = (run_env / "transcripts").iterdir()
    latest = latest_by_probe(run_dir / "transcript.jsonl")
    cut_ids = {pid for pid, e in latest.items() if e.reply.was_cut}
    assert 0 < len(cut_ids) < len(latest) == 12
    assert all(e.reply.finish_reason in ("length", "stop") for e in latest.values())
    assert f"cut at max_tokens {len(cut_ids)}" in " ".join(said.split()), said
    with (run_dir / "verdicts.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["probe_id"] for r in rows if r["cut"] == "True"} == cut_ids
    assert {r["cut"] for r in rows} == {"True", "False"}
