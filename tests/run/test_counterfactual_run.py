"""A counterfactual consistency run of a BiasAsker sample against a real local model (SmolLM2, llama.cpp):
each gender probe asked as it is and perturbed, scored by the oracle, paired, tested."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.run.transcript import latest_by_probe


@pytest.mark.slow
@pytest.mark.needs_data("biasasker")
def test_consistency_run_on_local_model(run_env: Path) -> None:
    (run_env / "targets.toml").write_text("[targets.local]\nmax_tokens = 48\nn_threads = 1\n", encoding="utf-8")
    assert main(["run", "-s", "biasasker-en", "-t", "local", "--sample", "8", "--seed", "2",
                 "-p", "attributes=[gender]",
                 "-p", "perturb=gender", "-p", "perturb_draws=1", "--no-progress"]) == 0
    (run_dir,) = (run_env / "transcripts").iterdir()
    latest = latest_by_probe(run_dir / "transcript.jsonl")
    roles = [e.probe.meta["counterfactual"]["role"] for e in latest.values()]
    assert roles.count("original") == roles.count("perturbed") == 6  # 6 of the 8 sampled have a gender word
    doc = json.loads((run_dir / "metrics.json").read_text("utf-8"))
    m = doc["metrics"]
    assert m["counterfactual.pairs"] == 6
    assert m["counterfactual.pairs_read"] >= 1  # 48 tokens: SmolLM2 states a decision on some pairs
    assert 0.0 <= m["counterfactual.consistency"] <= 1.0
    assert "counterfactual.consistency" in doc["intervals"]
    assert 0.0 < m["counterfactual.similarity"] <= 1.0
    assert "counterfactual.biased_shift_p" in m  # the paired sign test (None only without discordant pairs)
    assert doc["tables"]["counterfactual"]["counterfactual_pairs"]
    assert m["answered"] == 12
