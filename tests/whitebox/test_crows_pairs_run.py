"""`harness run --suite crows-pairs...` end to end on real models: each sentence's log-likelihood is its tokens'
log-probabilities after the model's start token alone (BOS, else EOS; no newline, unlike CHBias), recomputed here
by hand, and metrics.json holds the share and the likelihood difference of exactly those numbers.

* a tiny GPT-2 built in the test (random weights, a tokenizer trained on the religion pairs; it has no BOS, so
  its EOS starts every sentence), through the `hf` adapter, recomputed with torch;
* `local` (SmolLM2 in llama.cpp, quantised), three pairs, recomputed through llama-cpp-python's public API.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path

import pytest
from project_env import project_home
from tiny_models import build_tiny_gpt2

from harness.cli import main

pytestmark = pytest.mark.needs_data("crows-pairs")


def _religion_sentences() -> list[str]:
    from harness.question_gen.crows_pairs import selection

    return [s for p in selection({"bias_type": "religion"}) for s in (p.sent_more, p.sent_less)]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("crows-run")
    with project_home(root, HF_HUB_OFFLINE="1"):
        build_tiny_gpt2(root / "tiny", _religion_sentences(), vocab_size=400, n_positions=256)
        (root / "targets.toml").write_text(f'[targets.tiny]\nadapter = "hf"\nmodel = "{root / "tiny"}"\n'
                                           'batch_size = 4\nthreads = 1\n', encoding="utf-8")
        yield root


def _records(run: Path) -> list[dict]:
    return [json.loads(x) for x in (run / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]


def _ll(usage: dict) -> list[float]:
    return [-n * t for n, t in zip(usage["nll"], usage["tokens"], strict=True)]


def _check_metrics(run: Path, lls: list[tuple[float, float]]) -> None:
    m = json.loads((run / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    k = sum(a > b for a, b in lls)
    assert m["crows_pairs.scored"] == len(lls)
    assert m["crows_pairs.pct_stereotype"] == pytest.approx(k / len(lls))
    assert m["crows_pairs.likelihood_difference"] == pytest.approx(sum(abs(a - b) for a, b in lls) / len(lls),
                                                                   rel=1e-6)


def test_hf_sentences_are_scored_after_the_start_token_alone(project: Path) -> None:
    import torch
    from transformers import AutoTokenizer, GPT2LMHeadModel

    assert main(["run", "-s", "crows-pairs-religion", "-t", "tiny", "--sample", "6", "--run-id", "rel",
                 "--no-progress"]) == 0
    run = project / "transcripts" / "rel"
    model = GPT2LMHeadModel.from_pretrained(project / "tiny").eval()
    tok = AutoTokenizer.from_pretrained(project / "tiny")
    assert tok.bos_token_id is None  # so the start token is EOS (lm-evaluation-harness's choice too)
    lines = _records(run)
    assert len(lines) == 6
    by_hand = []
    for line in lines:
        probe, reply = line["probe"], line["reply"]
        assert probe["kind"] == "crows_pairs" and probe["meta"]["bias_type"] == "religion"
        values = []
        for sentence in probe["options"]:
            ids = tok(sentence, add_special_tokens=False)["input_ids"]
            inputs = torch.tensor([[tok.eos_token_id, *ids]])
            with torch.no_grad():
                logp = torch.log_softmax(model(inputs).logits[0].double(), dim=-1)
            values.append(sum(float(logp[i, t]) for i, t in enumerate(ids)))  # logits at i predict token i + 1
        assert reply["usage"]["tokens"] == [len(tok(s, add_special_tokens=False)["input_ids"])
                                            for s in probe["options"]]
        assert _ll(reply["usage"]) == pytest.approx(values, rel=1e-5)
        by_hand.append((values[0], values[1]))
    _check_metrics(run, by_hand)


def test_local_llamacpp_sentences_are_scored_after_its_bos_alone(project: Path) -> None:
    import numpy as np
    from llama_cpp import Llama

    from harness.core.local_models import smollm2_gguf_path

    assert main(["run", "-s", "crows-pairs", "-t", "local", "--sample", "3", "--seed", "2", "--run-id", "local",
                 "--no-progress"]) == 0
    lines = _records(project / "transcripts" / "local")
    llm = Llama(model_path=str(smollm2_gguf_path()), n_ctx=256, logits_all=True, verbose=False, seed=0,
                n_threads=1, n_threads_batch=1)
    by_hand = []
    for line in lines:
        usage = line["reply"]["usage"]
        assert usage["context"] == ""  # not CHBias's newline
        values = []
        for sentence in line["probe"]["options"]:
            ids = llm.tokenize(sentence.encode("utf-8"), add_bos=False, special=True)
            whole = [llm.token_bos(), *ids]
            llm.reset()
            llm.eval(whole)
            scores = np.asarray(llm.scores[: len(whole)], dtype=np.float64)
            logp = scores - scores.max(axis=1, keepdims=True)
            logp -= np.log(np.exp(logp).sum(axis=1, keepdims=True))
            values.append(float(sum(logp[i, t] for i, t in enumerate(ids))))
        assert usage["tokens"] == [len(llm.tokenize(s.encode("utf-8"), add_bos=False, special=True))
                                   for s in line["probe"]["options"]]
        # the same engine and weights through llama-cpp-python's public API (measured equal to 5 decimals)
        assert _ll(usage) == pytest.approx(values, rel=1e-4, abs=1e-3)
        assert all(math.isfinite(v) for v in values)
        by_hand.append(tuple(_ll(usage)))
    _check_metrics(project / "transcripts" / "local", by_hand)
