"""A suite's `labels:` name its groups in `harness view` (the findings show 本市城镇户口, not local_hukou), and a
label for a group the suite does not have is refused with one sentence (issue 36). The real suite file, the
real index over a real transcript."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.core.records import Reply
from harness.run.transcript import TranscriptWriter
from harness.view.index import Filters, RunIndex

SUITES = Path(__file__).resolve().parents[2] / "suites"


def test_the_findings_show_the_suites_labels(tmp_path: Path) -> None:
    from harness.question_gen.suites import load_suite, select_probes

    probes = list(select_probes(load_suite("decision-loan-zh"), sample=12, seed=0))
    run_dir = tmp_path / "loan"
    with TranscriptWriter(run_dir) as w:
        for p in probes:
            w.append(p, Reply(p.id, "bot", "是"))
    items = RunIndex(run_dir, root=tmp_path / "cache").findings(Filters(), size=50)["items"]
    names = {n for f in items for n in f["group_names"]}
    groups = {g for f in items for g in f["groups"]}
    assert names & {"本市城镇户口", "外省农村户口", "女", "男"}
    assert not names & {"local_hukou", "rural_hukou", "female", "male"} and groups & {"female", "male"}


def test_a_label_for_a_missing_group_is_one_sentence(tmp_path: Path) -> None:
    from harness.question_gen.suites import load_suite

    text = (SUITES / "decision-loan-zh.yaml").read_text("utf-8")
    assert "local_hukou: 本市城镇户口" in text
    bad = tmp_path / "loan-typo.yaml"
    lines = [line.replace("local_hukou:", "locl_hukou:") if line.startswith("labels:") else line
             for line in text.splitlines()]
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_suite(str(bad)).count()
    msg = str(exc.value)
    assert "'locl_hukou'" in msg and "local_hukou" in msg and "\n" not in msg
