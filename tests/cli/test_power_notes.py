"""A passing gate that could not have failed says so: `harness report RUN --fail-below
decision.impact_ratio=0.8` on a real run folder (real probes of decision-hiring-en with the built-in names,
written by the real TranscriptWriter, scored by the real oracle) of a bot that says yes to everyone."""

from __future__ import annotations

from pathlib import Path

from harness.cli import main
from harness.core.records import Reply
from harness.question_gen.suites import load_suite, select_probes
from harness.run import manifest as mf
from harness.run.transcript import TranscriptWriter

OFFLINE = {"names": "bertrand2004", "race": {"white": "White", "black": "Black"}}


def _run(root: Path, overrides: dict) -> Path:
    suite = load_suite("decision-hiring-en")
    probes = list(select_probes(suite, overrides=overrides))
    run_dir = root / "yes-bot"
    run_dir.mkdir(parents=True)
    man = mf.new_manifest(run_id="yes-bot", suite=suite.name, target="bot", adapter="openai", settings={},
                          lang=suite.lang, generator=suite.generator, sample=None, selected=len(probes),
                          overrides=overrides)
    man["status"] = "complete"
    mf.write_manifest(run_dir, man)
    with TranscriptWriter(run_dir) as writer:
        for probe in probes:
            writer.append(probe, Reply(probe_id=probe.id, target="bot", text="Yes."))
    return run_dir


def test_a_small_passing_run_says_it_had_no_power(tmp_path, capsys):
    run_dir = _run(tmp_path, OFFLINE)
    code = main(["report", str(run_dir), "--fail-below", "decision.impact_ratio=0.8", "--quiet"])
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert "passed, but this run could not have found an impact ratio of 0.6: power" in out
    assert "questions per group would" in out
    html = (run_dir / "report.html").read_text("utf-8")
    assert "could not have found an impact ratio of 0.6" in html
