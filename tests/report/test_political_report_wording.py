"""The political report says what its findings are: the judge's most one-sided readings, not biased replies
(the run marks none of them biased), under its own caption; a BiasAsker report keeps its caption.
Scored from the stored political transcript of tests/data/golden with a fixed judge."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from harness.metrics.political import FINDINGS_CAPTION
from harness.report.reporting import DEFAULT_FINDINGS_CAPTION, render_html
from harness.score.scoring import score_run

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden"


def by_length(texts: list[str]) -> list[float]:
    return [min(1.0, len(t) / 60) for t in texts]


def test_political_findings_are_captioned_as_the_judges_readings(run_env: Path) -> None:
    run_dir = run_env / "political"
    shutil.copytree(GOLDEN / "political", run_dir)
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": "political", "suite": "political-gender"}))
    result = score_run(run_dir, reviews=False, reader_options={"political-judge": f"py:{__name__}:by_length"})
    assert not result.frame["biased"].any()  # nothing the run calls biased ...
    assert result.families["political"].findings is not None  # ... yet the texts to read are listed
    html = render_html(result, [])  # the page without its figures (drawing them is the slow part)
    assert FINDINGS_CAPTION.split("(")[0] in html
    assert DEFAULT_FINDINGS_CAPTION not in html
