"""verdicts.csv writes nothing as an empty cell: a reply that favours no group has an empty `favoured`, never
`nan` (what pandas holds for a missing value), so a spreadsheet or csv reader sees a blank, not a group named nan."""

from __future__ import annotations

import csv
from pathlib import Path

from run_builders import make_run

from harness.report.reporting import write_verdicts_csv
from harness.score.scoring import score_run


def test_a_missing_group_is_an_empty_cell(tmp_path: Path, fake_oracle: None) -> None:
    run_dir = make_run(tmp_path / "run", xss=False)
    path = write_verdicts_csv(score_run(run_dir), tmp_path / "verdicts.csv")
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    assert not [(r["probe_id"], k) for r in rows for k, v in r.items() if v.lower() in ("nan", "none", "<na>")]
    unfavoured = [r for r in rows if r["biased"] == "False"]
    assert unfavoured and all(r["favoured"] == "" for r in unfavoured)
    assert {r["favoured"] for r in rows if r["biased"] == "True"} - {""}  # a group that was favoured is named
