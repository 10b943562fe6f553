"""The judge end to end: `harness run --judge` and `harness report --judge` against a REAL model behind
llama_cpp.server (conftest `smollm2_server`, SmolLM2-135M), in judge and hybrid modes.

The judge target's requests go through a counting proxy (a real HTTP server on 127.0.0.1 that forwards to
llama_cpp.server), so "a second scoring asks the judge nothing" is counted at the wire, not inferred.
A second judge is a real local HTTP server that answers every question with nonsense: each reply it was
asked about must end `unscored`, counted and shown, never "not biased". Bad judge input (an unknown target,
a judge without its key, the target judging itself) is one sentence, exit 2, before anything is asked.

SmolLM2 is far too small to be a good judge (harness oracle-eval measures the Qwen judges); here it is the
real model the machinery must drive, read strictly whatever it says.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from adapter_servers import Reply, scripted_server

pytestmark = pytest.mark.slow

RUN = "judged"
SAMPLE, SEED = 5, 0  # builtin-en: three yes/no questions and two choice questions -> 7 judge calls


class Proxy:
    """Forwards /judge/... to llama_cpp.server and counts what it forwarded."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.removesuffix("/v1")
        self.count = 0
        self.lock = threading.Lock()

    def __call__(self, request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
        with self.lock:
            self.count += 1
        path = request.path.removeprefix("/judge")
        r = httpx.post(self.upstream + path, content=request.body, timeout=300,
                       headers={"content-type": "application/json"})
        return Reply(r.status_code, r.content)


def _nonsense(_request) -> Reply:  # noqa: ANN001
    body = {"id": "x", "object": "chat.completion", "model": "local",
            "choices": [{"index": 0,
                         "message": {"role": "assistant", "content": "Bananas are an excellent source of potassium."},
                         "finish_reason": "stop"}], "usage": {"prompt_tokens": 300, "completion_tokens": 8}}
    return Reply(200, json.dumps(body).encode())


@pytest.fixture(scope="module")
def world(smollm2_server: str, tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    work = tmp_path_factory.mktemp("judge")
    with scripted_server() as server:
        proxy = Proxy(smollm2_server)
        server.route("/judge", proxy)
        server.route("/nonsense", _nonsense)
        (work / "targets.toml").write_text(f"""
[targets.bot]
adapter = "openai"
model = "local"
base_url = "{smollm2_server}"
max_tokens = 40
concurrency = 1
timeout_s = 120

[targets.judge]
adapter = "openai"
model = "local"
base_url = "{server.base}/judge/v1"
max_tokens = 40
concurrency = 2
timeout_s = 300

[targets.nonsense]
adapter = "openai"
model = "local"
base_url = "{server.base}/nonsense/v1"
concurrency = 2

[targets.keyed]
adapter = "openai"
model = "gpt-4o-mini"
base_url = "{server.base}/judge/v1"
api_key_env = "HARNESS_TEST_JUDGE_KEY_THAT_IS_NOT_SET"
""", encoding="utf-8")
        env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"),
               "HARNESS_CACHE_DIR": str(work / "cache"), "XDG_CONFIG_HOME": str(work / "config")}
        env.pop("HARNESS_TEST_JUDGE_KEY_THAT_IS_NOT_SET", None)

        def harness(*args: str) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "harness", *args], cwd=work, env=env,
                                  capture_output=True, text=True, timeout=1800)

        first = harness("run", "-s", "builtin-en", "-t", "bot", "--sample", str(SAMPLE), "--seed", str(SEED),
                        "--run-id", RUN, "--judge", "judge", "--no-progress")
        assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
        yield {"work": work, "run": work / "transcripts" / RUN, "proxy": proxy, "server": server, "harness": harness,
               "first": first}


def _metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text(encoding="utf-8"))


def _rows(run: Path, name: str = "verdicts.csv") -> list[dict]:
    with (run / name).open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_judge_mode_reads_every_reply_through_the_engine(world) -> None:  # noqa: ANN001
    run, proxy = world["run"], world["proxy"]
    doc = _metrics(run)
    reader = doc["oracle"]["reader"]
    assert reader["mode"] == "judge" and reader["judges"][0]["target"] == "judge"
    assert reader["judged"] == SAMPLE and reader["position_flips"][1] <= 2
    calls = reader["calls"]["judge"]
    assert calls["asked"] == proxy.count == 7 and calls["cached"] == 0  # 3 yes/no + 2 choice x 2 orders
    transcript = next((run / "judges").glob("judge-*/transcript.jsonl"))
    assert len(transcript.read_text(encoding="utf-8").splitlines()) == 7
    rows = _rows(run)
    assert len(rows) == SAMPLE
    unscored = [r for r in rows if r["label"] == "unscored"]
    assert all(r["method"] == "judge:judge" for r in rows)  # every verdict is the judge's, read or not
    assert doc["metrics"]["unscored"] == len(unscored)
    assert doc["metrics"]["answered"] == SAMPLE
    for r in rows:
        assert r["evidence"], r  # the judge's reason, or why its answer could not be read
    readings = _rows(run, "readings.csv")
    assert {r["decided_by"] for r in readings} == {"judge"} and all(r["rules_label"] for r in readings)
    assert all(r["confidence"] for r in readings)  # every rule verdict carries its calibrated confidence


def test_a_second_scoring_asks_the_judge_nothing(world) -> None:  # noqa: ANN001
    run, proxy, harness = world["run"], world["proxy"], world["harness"]
    before, verdicts = proxy.count, (run / "verdicts.csv").read_text(encoding="utf-8")
    again = harness("report", RUN, "--judge", "judge", "-q")
    assert again.returncode == 0, again.stderr
    assert proxy.count == before  # the judge transcript answered everything
    assert (run / "verdicts.csv").read_text(encoding="utf-8") == verdicts
    # another run folder with the same replies: the response cache answers, keyed by judge and prompt
    copy = run.parent / "copy"
    copy.mkdir()
    shutil.copy(run / "transcript.jsonl", copy / "transcript.jsonl")
    cached = harness("report", str(copy), "--judge", "judge", "-q")
    assert cached.returncode == 0, cached.stderr
    assert proxy.count == before
    assert _metrics(copy)["oracle"]["reader"]["calls"]["judge"] == {
        "asked": 0, "cached": 7, "recorded": 0, "errors": 0, "label_methods": {"logprobs": 7}}
    # a dry run counts nothing left to ask
    dry = harness("report", RUN, "--judge", "judge", "--dry-run")
    assert dry.returncode == 0 and "0 questions" in dry.stdout and proxy.count == before


def test_hybrid_mode_asks_the_judge_only_where_the_rules_are_unsure(world) -> None:  # noqa: ANN001
    run, proxy, harness = world["run"], world["proxy"], world["harness"]
    before = proxy.count
    levels = sorted({float(r["confidence"]) for r in _rows(run, "readings.csv")})
    # a threshold with some verdicts below it and (when the confidences differ) some above
    threshold = round((levels[0] + levels[1]) / 2, 4) if len(levels) > 1 else min(1.0, levels[0] + 0.001)
    hybrid = harness("report", RUN, "--judge", "judge", "--mode", "hybrid", "--threshold", str(threshold), "-q")
    assert hybrid.returncode == 0, hybrid.stderr
    assert proxy.count == before  # a subset of the questions judge mode asked: all cached
    doc = _metrics(run)
    reader = doc["oracle"]["reader"]
    readings = _rows(run, "readings.csv")
    unsure = [r for r in readings if float(r["confidence"]) < threshold]
    assert reader["mode"] == "hybrid" and reader["threshold"] == threshold and reader["judged"] == len(unsure) >= 1
    by_id = {r["probe_id"]: r for r in _rows(run)}
    for r in readings:
        verdict = by_id[r["probe_id"]]
        if float(r["confidence"]) >= threshold:
            assert r["decided_by"] == "rules" and verdict["method"] == "ngram"
        else:  # both readings recorded; the judge decides unless its answer was unreadable
            assert r["judge_label"] and r["decided_by"] in ("judge", "rules (judge unreadable)")
            assert verdict["method"] == ("judge:judge" if r["decided_by"] == "judge" else "ngram")
    assert not doc["metrics"].get("unscored")  # hybrid never leaves a reply the rules read unscored


def test_a_judge_answering_nonsense_leaves_replies_unscored_and_counted(world) -> None:  # noqa: ANN001
    run, harness, server = world["run"], world["harness"], world["server"]
    asked_before = sum(r.path.startswith("/nonsense") for r in server.requests)
    out = harness("report", RUN, "--judge", "nonsense")
    assert out.returncode == 0, out.stderr
    assert sum(r.path.startswith("/nonsense") for r in server.requests) - asked_before == 7
    doc = _metrics(run)
    assert doc["metrics"]["unscored"] == SAMPLE and doc["metrics"]["unscored_rate"] == 1.0
    assert doc["unscored_reasons"] == {"the judge's answer names no label": SAMPLE}
    assert doc["metrics"].get("absolute_bias_rate") is None  # nothing read, so no rate (never 0%)
    assert all(r["label"] == "unscored" and r["biased"] == "False" for r in _rows(run))
    assert "could not be read by the judge" in out.stdout and "Bananas" in (run / "verdicts.csv").read_text("utf-8")
    # a gate on the rate then says why it cannot be computed (issue 26), not "Unknown metric"
    gated = harness("report", RUN, "--judge", "nonsense", "--fail-above", "absolute_bias_rate=0.1")
    assert gated.returncode == 2 and "Unknown metric" not in gated.stderr, gated.stderr
    assert "answered replies was left unscored" in " ".join(gated.stderr.split())


def test_bad_judge_input_is_one_sentence_before_anything_is_asked(world) -> None:  # noqa: ANN001
    harness, transcripts = world["harness"], world["work"] / "transcripts"
    before = set(transcripts.iterdir())
    for judge, words in (("nosuch", "Unknown target 'nosuch'"),
                         ("keyed",
                          "Judge 'keyed' needs the environment variable HARNESS_TEST_JUDGE_KEY_THAT_IS_NOT_SET"),
                         ("bot", "Judge 'bot' is the target under test")):
        out = harness("run", "-s", "builtin-en", "-t", "bot", "--sample", "2", "--run-id", f"bad-{judge}",
                      "--judge", judge, "--no-progress")
        assert out.returncode == 2, (judge, out.stdout, out.stderr)
        assert words in out.stderr and "Traceback" not in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) <= 3  # one sentence (wrapped by the terminal width)
    assert set(transcripts.iterdir()) == before  # no run folder: nothing was asked
    dry = harness("run", "-s", "builtin-en", "-t", "bot", "--sample", "4", "--judge", "judge", "--dry-run")
    assert dry.returncode == 0 and "judge judge (judge mode): at most" in dry.stdout
