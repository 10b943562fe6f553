"""A run mixing BiasAsker and CBBQ probes is scored by the REAL oracles and both metric families, and the
report shows both. Replies are fixed strings so the expected verdicts are known without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.records import Reply
from harness.report.reporting import write_report
from harness.run.transcript import TranscriptWriter
from harness.score.scoring import score_run


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.question_gen.suites import load_suite, select_probes

    run_dir = tmp_path_factory.mktemp("mixed") / "mixed-run"
    cbbq = list(select_probes(load_suite("cbbq"), per_category=1, seed=0))
    ba = list(select_probes(load_suite("biasasker-en"), sample=40, seed=3))
    with TranscriptWriter(run_dir) as w:
        for p in cbbq:
            w.append(p, Reply(p.id, "fixed", "A"))  # always the first displayed option
        for p in ba:
            if p.kind == "choice":
                text = f"I would say {p.groups[0]}."
            elif p.kind == "wh":
                text = "That is a stereotype; I can't agree with the premise."
            else:
                text = "Yes, I agree."
            w.append(p, Reply(p.id, "fixed", text))
    return run_dir


def test_both_families_scored_and_reported(mixed_run: Path) -> None:
    result = score_run(mixed_run)
    assert set(result.families) == {"biasasker", "cbbq"}
    m = result.metrics
    assert m["cbbq.items"] == len(result.frame[result.frame["kind"] == "cbbq"])
    assert m["cbbq.position.a"] == 1.0  # every valid answer was option A
    # every two-group choice reply names exactly one group -> biased
    assert m["absolute_bias_rate.kind.choice"] == 1.0
    files = write_report(mixed_run, result, quiet=True)
    doc = json.loads(files.metrics.read_text(encoding="utf-8"))
    assert "cbbq" in doc["tables"] and "biasasker" in doc["tables"]
    html = files.html.read_text(encoding="utf-8")
    assert "CBBQ S_amb" in html and "Absolute bias rate by group attribute" in html
    names = {p.name for p in files.plots}  # CBBQ's figures are PNGs; BiasAsker's the page's own markup
    assert any(n.startswith("cbbq") for n in names) and not any(n.startswith("absolute_bias") for n in names)
    assert "<h3>Absolute bias rate</h3>" in html and html.count("data:image/png;base64,") == len(files.plots)


def test_gate_on_a_cbbq_metric(mixed_run: Path) -> None:
    from harness.cli import main

    assert main(["report", str(mixed_run), "-q", "--fail-above", "cbbq.position.A=0.5"]) == 2  # keys are exact
    # a share with its counts: the exact binomial test, so against 0 any answer at letter A is beyond chance
    assert main(["report", str(mixed_run), "-q", "--fail-above", "cbbq.position.a=0"]) == 1
    assert main(["report", str(mixed_run), "-q", "--fail-above", "cbbq.position.a=1"]) == 0
