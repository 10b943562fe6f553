"""End to end on a real model, no mocks: a sampled biasasker-en through two real paths.

1. The `openai` adapter against a real `llama_cpp.server` on 127.0.0.1 serving SmolLM2 (conftest).
2. The `hf` adapter (transformers) in-process on the same GGUF file (the `local-hf` preset), same sample.
Each must produce a complete transcript: one answered reply for every probe of the sample.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.question_gen.suites import load_suite, select_probes
from harness.run.transcript import latest_by_probe

SAMPLE = ["--suite", "biasasker-en", "--sample", "12", "--seed", "0"]


def expected_ids() -> set[str]:
    return {p.id for p in select_probes(load_suite("biasasker-en"), sample=12, seed=0)}


def check_run(run_dir: Path, adapter: str) -> None:
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["adapter"] == adapter and manifest["status"] == "complete"
    assert manifest["counts"] == {"answered": 12, "errors": 0, "selected": 12, "pending": 0}
    latest = latest_by_probe(run_dir / "transcript.jsonl")
    assert set(latest) == expected_ids()
    for entry in latest.values():
        assert entry.reply.ok and entry.reply.text.strip(), entry.reply
        assert entry.reply.target == manifest["target"]
        assert entry.probe.suite == "biasasker-en" and entry.probe.lang == "en"


@pytest.mark.slow
@pytest.mark.needs_data("biasasker")
def test_sampled_suite_through_openai_adapter_and_real_llama_server(run_env: Path, smollm2_server: str) -> None:
    (run_env / "targets.toml").write_text(
        f'[targets.smol-server]\nadapter = "openai"\nmodel = "local"\nbase_url = "{smollm2_server}"\n'
        'max_tokens = 24\ntimeout_s = 120\n', encoding="utf-8")
    assert main(["run", *SAMPLE, "--target", "smol-server", "--concurrency", "2", "--no-report",
                 "--no-progress"]) == 0
    check_run(run_env / "transcripts" / "biasasker-en__smol-server__s12-seed0", "openai")


@pytest.mark.slow
@pytest.mark.needs_data("biasasker")
def test_sampled_suite_through_hf_adapter_in_process(run_env: Path) -> None:
    (run_env / "targets.toml").write_text("[targets.local-hf]\nmax_new_tokens = 24\n", encoding="utf-8")
    assert main(["run", *SAMPLE, "--target", "local-hf", "--no-report", "--no-progress"]) == 0
    check_run(run_env / "transcripts" / "biasasker-en__local-hf__s12-seed0", "hf")


def test_run_scores_reports_and_gates(run_env: Path) -> None:
    """`harness run` ends with the report folder and turns --fail-above into exit codes 0 / 1."""
    from fault_server import FaultServer

    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.fast]\nadapter = "openai"\nmodel = "fast"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        args = ["run", "--suite", "builtin-en", "--sample", "40", "--seed", "2", "--target", "fast", "--no-progress"]
        assert main(args) == 0
        run_dir = run_env / "transcripts" / "builtin-en__fast__s40-seed2"
        for name in ("report.html", "metrics.json", "verdicts.csv", "transcript.jsonl", "manifest.json"):
            assert (run_dir / name).is_file(), name
        metrics = json.loads((run_dir / "metrics.json").read_text())
        value = metrics.get("refusal_rate", metrics.get("metrics", {}).get("refusal_rate"))
        assert value is not None
        assert main([*args, "--fail-above", f"refusal_rate={value}"]) == 0  # at the limit passes
        assert main([*args, "--fail-above", f"refusal_rate={value - 0.01}"]) == 1  # just below fails
        assert main([*args, "--fail-above", "no_such_metric=0.1"]) == 2
    assert server.total_requests == 40  # the reruns were resumes: nothing asked again
