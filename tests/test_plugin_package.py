"""A plugin package outside the harness's folders goes through every stage with no edit to a harness file.

tests/plugin_pkg/ is the package `echoplug` with its dist-info (entry_points.txt): a probe kind, a metric
family, a rule reader and a suite generator, registered by entry points alone (harness.kinds,
harness.families, harness.readers, harness.generators). The `harness` commands run as a user runs them,
in their own processes with the plugin on PYTHONPATH (so importlib.metadata finds its entry points), against
real HTTP servers on 127.0.0.1: two bots (A says "cats" and "dogs" back when asked and nothing else, B says
every animal back) and a judge model that answers the plugin's own question.

run -> score -> report -> gate (the kind's default gate) -> harness view (the run page's headline metric,
a finding with its partner, review labels through the JSON API) -> review in the terminal (the plugin's
labels) -> leaderboard (the family's declared table, tested and marked) -> judge (harness report --judge).

Figures by hand: suite echoplug-en asks 4 animals x 2 pairs x 2 styles = 16 probes. Bot A says the name for
cats and dogs: echo rate 8/16 = 0.5; bot B: 16/16 = 1. The two rates' test: expected cells 16 x 0.25 = 4 < 5,
so Fisher's exact test; with 24 echoes among 32 replies, A's count X is hypergeometric and symmetric about 12,
so the two-sided p = 2 P(X = 8) = 2 C(24, 8) C(8, 8) / C(32, 16). The judge says ECHOED only for a reply
that says the name and is not about dogs: A's echo rate read by the judge is 4/16 = 0.25.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from adapter_servers import Reply, Request, scripted_server

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "tests" / "plugin_pkg"
SUITE = PLUGIN / "echoplug" / "echo.yaml"
RUN_A, RUN_B = "echo-a", "echo-b"
ANIMALS = ("cats", "dogs", "owls", "bees")
RATE = "echoplug.echo_rate"
POST = {"x-harness-view": "1"}


def _chat(text: str) -> Reply:
    body = {"id": "x", "object": "chat.completion", "model": "local",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 20, "completion_tokens": 3}}
    return Reply(200, json.dumps(body).encode())


def _bot(says: tuple[str, ...]):  # noqa: ANN202 - a route handler
    def answer(request: Request) -> Reply:
        prompt = json.loads(request.body)["messages"][-1]["content"]
        animal = next((a for a in says if a in prompt), None)
        return _chat(f"{animal}!" if animal else "I'd rather not.")
    return answer


def _judge(request: Request) -> Reply:
    """The judge model: reads the framed reply and answers the plugin's question (dogs never count)."""
    messages = json.loads(request.body)["messages"]
    text = " ".join(m["content"] for m in messages if isinstance(m["content"], str))
    # the frame itself, not the sentence of the prompt that names its markers
    framed = re.findall(r"<(reply-[0-9a-f]+)>\n(.*?)\n</\1>", text, re.S)
    reply = framed[-1][1] if framed else ""
    echoed = "!" in reply and "dogs" not in reply
    return _chat("ECHOED - it said the name." if echoed else "SILENT - it did not say the name.")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict]:
    work = tmp_path_factory.mktemp("plugin")
    with scripted_server() as server:
        server.route("/bota", _bot(("cats", "dogs")))
        server.route("/botb", _bot(ANIMALS))
        server.route("/judge", _judge)
        targets = "".join(f'[targets.{name}]\nadapter = "openai"\nmodel = "local"\n'
                          f'base_url = "{server.base}/{name}/v1"\nconcurrency = 4\n\n'
                          for name in ("bota", "botb", "judge"))
        (work / "targets.toml").write_text(targets, encoding="utf-8")
        env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"),
               "HARNESS_CACHE_DIR": str(work / "cache"), "XDG_CONFIG_HOME": str(work / "config"),
               "COLUMNS": "200",
               "PYTHONPATH": os.pathsep.join(p for p in (str(PLUGIN), os.environ.get("PYTHONPATH", "")) if p)}

        def harness(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-m", "harness", *args], cwd=work, env=env, input=stdin,
                                  capture_output=True, text=True, timeout=600)

        runs = [subprocess.Popen([sys.executable, "-m", "harness", "run", "-s", str(SUITE), "-t", bot,
                                  "--run-id", run, "--no-progress", "--fail-above", gate],
                                 cwd=work, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                for bot, run, gate in (("bota", RUN_A, f"{RATE}=0.1"), ("botb", RUN_B, f"{RATE}=1"))]
        done = [(p.wait(timeout=600), *p.communicate()) for p in runs]
        yield {"work": work, "server": server, "env": env, "harness": harness, "runs": done,
               "folder": work / "transcripts"}


def _metrics(world: dict, run: str) -> dict:
    return json.loads((world["folder"] / run / "metrics.json").read_text("utf-8"))


def test_run_score_report_and_gate(world: dict) -> None:
    (code_a, out_a, err_a), (code_b, out_b, err_b) = world["runs"]
    assert code_b == 0, out_b[-2000:] + err_b[-2000:]  # B's echo rate 1 is not above the gate's 1
    # A's 0.5 (8 of 16) is above 0.1 beyond chance: the exact binomial test of the family's counts, p = 6.1e-5
    # (against the kind's default gate, 0.4, 8 of 16 is within chance: p = 0.28, so it would pass)
    assert code_a == 1, out_a[-2000:] + err_a[-2000:]
    assert RATE in out_a and "Echo rate" in out_a  # the gate and the family's headline, in the terminal
    a, b = _metrics(world, RUN_A), _metrics(world, RUN_B)
    assert a["metrics"][RATE] == 0.5 and a["counts"][RATE] == [8, 16]
    assert b["metrics"][RATE] == 1.0
    by_animal = {k: a["metrics"][f"{RATE}.{k}"] for k in ANIMALS}
    assert by_animal == {"cats": 1.0, "dogs": 1.0, "owls": 0.0, "bees": 0.0}
    html = (world["folder"] / RUN_A / "report.html").read_text("utf-8")
    assert "Echo rate by animal" in html  # the family's section
    verdicts = (world["folder"] / RUN_A / "verdicts.csv").read_text("utf-8")
    assert "echoplug-rules" in verdicts  # every reply read by the plugin's rule reader
    # the kind's declared default gate, found through the plugin's entry points (what a CI check starts from)
    code = ("from harness.gates.defaults import default_gates\n"
            "print([str(g) for g in default_gates({'echo_pair'})])")
    gates = subprocess.run([sys.executable, "-c", code], env=world["env"], capture_output=True, text=True,
                           timeout=300)
    assert gates.stdout.strip() == f"['{RATE} <= 0.4']", gates.stderr[-2000:]


def test_view_shows_the_plugin_metric_partner_and_labels(world: dict) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "harness", "view", str(world["folder"]), "--port", "0",
                             "--no-browser"], cwd=world["work"], env=world["env"], text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = None
        for line in proc.stdout:
            found = re.search(r"http://127\.0\.0\.1:\d+", line)
            if found:
                url = found.group(0)
                break
        assert url, "harness view printed no address"
        runs = httpx.get(f"{url}/api/runs", timeout=60).json()
        assert {"key": RATE, "label": "Echo rate"} in runs["columns"]  # the family's headline, by default
        a = next(r for r in runs["runs"] if r["id"] == RUN_A)
        card = next(m for m in a["metrics"] if m["key"] == RATE)
        assert card["text"] == "50.0%" and card["n"] == "8 / 16"
        base = f"{url}/api/runs/{RUN_A}"
        page = httpx.get(base, timeout=60).json()
        assert next(m for m in page["metrics"] if m["key"] == RATE)["value"] == 0.5
        hits = httpx.get(f"{base}/findings", params={"q": "Say the word owls", "size": 10}, timeout=60).json()
        plain = next(f for f in hits["items"] if f["question"] == "Say the word owls.")
        finding = httpx.get(f"{base}/findings/{plain['probe_id']}", timeout=60).json()
        assert finding["role"] == "echopair plain"
        assert [p["question"] for p in finding["partners"]] == ["Please say the word owls, if you would."]
        assert finding["review_labels"] == ["affirm", "deny", "refuse"]  # the kind's ReviewSpec
        queue = httpx.get(f"{base}/review", params={"sample": 2, "probe": finding["probe_id"]},
                          timeout=120).json()
        item = queue["items"][0]
        assert item["probe_id"] == finding["probe_id"]
        assert [(k["key"], k["label"], k["value"]) for k in item["keys"]] == [
            ("e", "echoed", "affirm"), ("s", "silent", "deny"), ("r", "refuse", "refuse")]
        saved = httpx.post(f"{base}/review", json={"probe_id": item["probe_id"], "key": "e"}, headers=POST,
                           timeout=60).json()
        assert saved["saved"]["yours"]["label"] == "affirm"
        httpx.post(f"{base}/review/undo", headers=POST, timeout=60).raise_for_status()
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_review_in_the_terminal_with_the_plugin_labels(world: dict) -> None:
    out = world["harness"]("review", RUN_B, "--sample", "2", "--seed", "0", stdin="s\ns\n")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "[e]choed" in out.stdout and "[s]ilent" in out.stdout
    reviews = (world["folder"] / RUN_B / "reviews.jsonl").read_text("utf-8")
    lines = [json.loads(x) for x in reviews.splitlines()]
    assert [r["label"] for r in lines] == ["deny", "deny"]
    assert all(r["oracle_label"] == "affirm" for r in lines)
    doc = _metrics(world, RUN_B)
    assert doc["metrics"][RATE] == 14 / 16  # the two labels replace the reader's verdicts
    assert doc["metrics"]["oracle_agreement"] == 0.0


def test_leaderboard_sets_the_plugin_table_side_by_side(world: dict) -> None:
    board = world["work"] / "board"
    out = world["harness"]("leaderboard", RUN_A, RUN_B, "--out", str(board))
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert "Echo rate by animal (echoplug)" in " ".join(out.stdout.split())  # the title may wrap
    data = json.loads((board / "leaderboard.json").read_text("utf-8"))
    table = next(t for t in data["tables"] if t["title"] == "Echo rate by animal (echoplug)")
    rows = {r["metric"]: r for r in table["rows"]}
    overall = rows[RATE]
    b_rate = _metrics(world, RUN_B)["metrics"][RATE]  # B may have been relabelled by the review test
    assert overall["values"] == {"R1": 0.5, "R2": b_rate}
    test = next(p for p in data["pairwise"] if p["metric"] == RATE)
    if b_rate == 1.0:
        assert test["p_value"] == pytest.approx(2 * math.comb(24, 8) / math.comb(32, 16), rel=1e-9)
    assert test["p_holm"] >= test["p_value"]
    assert overall["most_biased"] == ("R2" if test["significant"] else None)
    assert rows[f"{RATE}.cats"]["most_biased"] is None  # 4/4 against 4/4: nothing to mark


def test_judge_reads_the_plugin_kind_with_its_own_question(world: dict) -> None:
    server = world["server"]
    before = sum(r.path.startswith("/judge") for r in server.requests)
    out = world["harness"]("report", RUN_A, "--judge", "judge", "-q")
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    asked = [json.loads(r.body) for r in server.requests[before:] if r.path.startswith("/judge")]
    assert len(asked) == 16  # one question per reply: the kind's question shows no groups
    assert all("say the animal's name back" in json.dumps(q) for q in asked)
    doc = _metrics(world, RUN_A)
    assert doc["metrics"][RATE] == 4 / 16  # cats only: the judge never counts dogs
    verdicts = (world["folder"] / RUN_A / "verdicts.csv").read_text("utf-8")
    assert "judge:judge" in verdicts


TYPO_METHOD = '''
from harness.core.method import FamilySpec, Method

METHOD = Method(name="typoplug", family=FamilySpec(compute=lambda df: {}, headlines=()))
'''


def test_a_plugin_with_a_misspelt_field_fails_at_registration_in_one_sentence(tmp_path: Path) -> None:
    """A declaration's misspelt field (`headlines` for `headline`) is one sentence naming the method and the
    field, exit 2, when the harness first reads the methods: never a traceback, never a silent nothing."""
    site = tmp_path / "site"
    (site / "typoplug").mkdir(parents=True)
    (site / "typoplug" / "__init__.py").write_text(TYPO_METHOD, "utf-8")
    info = site / "typoplug-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: typoplug\nVersion: 0.1\n", "utf-8")
    (info / "entry_points.txt").write_text("[harness.methods]\ntypoplug = typoplug:METHOD\n", "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)}
    out = subprocess.run([sys.executable, "-m", "harness", "suites"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 2, out.stdout[-2000:] + out.stderr[-2000:]
    said = " ".join((out.stdout + out.stderr).split())
    assert "Method 'typoplug': FamilySpec has no field 'headlines' (did you mean 'headline'?)." in said
    assert "Traceback" not in out.stderr
