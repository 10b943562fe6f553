"""End to end: a sampled `cbbq` run (1 instance per category and context = 28 questions) asked through
`harness run` of the REAL Qwen2.5-Coder-0.5B-Instruct behind llama_cpp.server -> transcript, CBBQ scores and the
report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from project_env import project_home

pytestmark = [pytest.mark.slow, pytest.mark.needs_data("cbbq")]  # every test asks CBBQ questions
#: The in-process Qwen tests load it in bfloat16: float32 held 2.9 GB and peaked at 3.6 GB while loading, the most
#: memory of the whole suite (a laptop runs it); bfloat16 holds 1.5 GB, peaks at 2.7. What is tested is the
#: pipeline (the adapter, the answer modes, the scores and the report), not the model's float32 numbers.
BFLOAT16 = 'dtype = "bfloat16"\n'


def harness_child(project: Path, *args: str) -> int:
    """`harness ARGS` in a child process whose project is `project` (its cwd, transcripts, cache and config), as
    a user runs it: the in-process model is loaded there and its memory goes back to the system when the run
    ends, instead of staying in the test process beside everything the session already holds."""
    env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(project / "transcripts"),
           "HARNESS_CACHE_DIR": str(project / "cache"), "XDG_CONFIG_HOME": str(project / "config")}
    proc = subprocess.run([sys.executable, "-m", "harness", *args, "--no-progress"], cwd=project, env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        print(proc.stdout[-4000:], proc.stderr[-4000:])  # shown with the failure
    return proc.returncode


@pytest.fixture(scope="module")
def cbbq_run(qwen_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.cli import main

    root = tmp_path_factory.mktemp("cbbq-e2e")
    # not "qwen": that name is a preset (DashScope), and a table of a preset's name overlays it key by key
    (root / "targets.toml").write_text(
        f'[targets.qwen-served]\nadapter = "openai"\nmodel = "local"\nbase_url = "{qwen_server}"\n'
        'temperature = 0.0\nmax_tokens = 48\nconcurrency = 2\ntimeout_s = 120\n', encoding="utf-8")
    with project_home(root):
        code = main(["run", "--suite", "cbbq", "--target", "qwen-served", "--param", "per_category=1",
                     "--run-id", "cbbq-qwen-e2e", "--no-progress"])
    assert code == 0, (f"harness run exited {code}; exit 3 with connection errors means llama_cpp.server died "
                       "(e.g. a llama-cpp build using CPU instructions this machine forbids; see the server log)")
    return root / "transcripts" / "cbbq-qwen-e2e"


def test_run_produces_cbbq_scores(cbbq_run: Path) -> None:
    lines = (cbbq_run / "transcript.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 28
    replies = [json.loads(line)["reply"] for line in lines]
    assert all(r["status"] == "ok" and r["text"] for r in replies)
    doc = json.loads((cbbq_run / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    assert m["cbbq.items"] == 28
    assert 0.0 <= m["cbbq.invalid_rate"] <= 1.0
    # a 0.5B model answers most of these with a letter; the scores exist and are proportions
    assert m["cbbq.valid"] >= 14
    for key in ("cbbq.s_amb", "cbbq.s_disamb", "cbbq.s_total", "cbbq.accuracy"):
        assert 0.0 <= m[key] <= 1.0, key
    assert m["cbbq.s_total"] == pytest.approx(0.4 * m["cbbq.s_amb"] + 0.6 * m["cbbq.s_disamb"])
    assert "cbbq.s_amb" in doc["intervals"]


def test_report_shows_cbbq(cbbq_run: Path) -> None:
    html = (cbbq_run / "report.html").read_text(encoding="utf-8")
    assert "CBBQ S_total" in html or "cbbq.s_total" in html
    pngs = {p.name for p in cbbq_run.rglob("*.png")}
    assert {"cbbq_scores.png", "cbbq_answers.png"} <= pngs
    assert (cbbq_run / "verdicts.csv").stat().st_size > 0


def test_loglik_run_with_in_process_qwen(tmp_path: Path) -> None:
    """`harness run --answer-mode loglik` on the real Qwen2.5-Coder-0.5B (hf adapter, in the run's process): every
    answer is the argmax of the three recorded log-likelihoods, and the CBBQ scores come out."""
    (tmp_path / "targets.toml").write_text(f"[targets.local-zh-hf]\n{BFLOAT16}", encoding="utf-8")
    code = harness_child(tmp_path, "run", "--suite", "cbbq", "--target", "local-zh-hf", "--answer-mode", "loglik",
                         "--param", "per_category=1", "--param", "prompt=instruction", "--limit", "8",
                         "--run-id", "cbbq-loglik")
    assert code == 0
    run = tmp_path / "transcripts" / "cbbq-loglik"
    entries = [json.loads(line) for line in (run / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 8
    for e in entries:
        ll = e["reply"]["usage"]["loglik"]
        assert len(ll) == 3 and all(x < 0 for x in ll)
        assert e["reply"]["text"] == "ABC"[max(range(3), key=lambda i: ll[i])]
    m = json.loads((run / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    assert m["cbbq.items"] == 8 and m["cbbq.invalid_rate"] == 0.0
    assert 0.0 <= m["cbbq.s_total"] <= 1.0


def test_generated_answers_with_in_process_qwen(tmp_path: Path) -> None:
    """The same pipeline with generated text from the real Qwen2.5-Coder-0.5B in the run's process (hf adapter):
    parser, scores, report."""
    (tmp_path / "targets.toml").write_text(
        '[targets.qwen-hf]\nadapter = "hf"\nmodel = "callable:harness.core.local_models:qwen_gguf_path"\n'
        f'max_new_tokens = 12\nbatch_size = 4\nconcurrency = 1\ntimeout_s = 900\n{BFLOAT16}', encoding="utf-8")
    code = harness_child(tmp_path, "run", "--suite", "cbbq", "--target", "qwen-hf", "--param", "per_category=1",
                         "--param", "permute=shuffle", "--limit", "8", "--run-id", "cbbq-hf")
    assert code == 0
    run = tmp_path / "transcripts" / "cbbq-hf"
    doc = json.loads((run / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    assert m["cbbq.items"] == 8 and m["cbbq.valid"] >= 4
    assert 0.0 <= m["cbbq.s_amb"] <= 1.0
    for key in ("cbbq.s_disamb", "cbbq.s_total"):  # absent only if every disambiguated answer was "unknown"
        assert 0.0 <= m.get(key, 0.0) <= 1.0, key
    html = (run / "report.html").read_text(encoding="utf-8")
    assert "CBBQ" in html
    assert {"cbbq_scores.png", "cbbq_answers.png"} <= {p.name for p in run.rglob("*.png")}
