"""`harness import --predictions` of a StereoSet scores file in upstream's format ({"intrasentence": [{"id",
"score"}], "intersentence": [...]}): matched by sentence id, scored into SS / LMS / ICAT, the run's own
predictions.json giving back the same scores; a file missing a candidate's score is refused whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.question_gen import stereoset as gen

pytestmark = pytest.mark.needs_data("stereoset")

SUITE = "name: ss-religion-mini\ngenerator: stereoset\nlang: en\ntask: intrasentence\nbias_type: religion\n"
SCORE = {"stereotype": 0.3, "anti-stereotype": 0.2, "unrelated": 0.1}


def _file(path: Path, drop_one: bool = False) -> tuple[Path, dict[str, float]]:
    examples = gen.selection({"task": "intrasentence", "bias_type": "religion"})
    scores = {sid: SCORE[label] for ex in examples for sid, label in zip(ex.sentence_ids, gen.LABELS, strict=True)}
    if drop_one:
        scores.pop(examples[3].sentence_ids[2])
    doc = {"intrasentence": [{"id": i, "score": s} for i, s in scores.items()],
           "intersentence": [{"id": f"other-task-{n}", "score": 0.5} for n in range(6)]}
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path, scores


def test_a_scores_file_is_imported_by_sentence_id(run_env: Path) -> None:
    suite = run_env / "ss-religion-mini.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    preds, scores = _file(run_env / "predictions_gpt2.json")
    assert main(["import", "--suite", str(suite), "--target", "gpt2-upstream", "--predictions", str(preds)]) == 0
    run_dir = next((run_env / "transcripts").glob("ss-religion-mini__gpt2-upstream*"))
    m = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    # every stereotype above its anti-stereotype and both above the unrelated: SS 100, LMS 100, ICAT 0
    assert (m["stereoset.ss"], m["stereoset.lms"], m["stereoset.icat"]) == (100.0, 100.0, 0.0)
    assert m["stereoset.examples"] == 79
    back = json.loads((run_dir / "predictions.json").read_text(encoding="utf-8"))
    assert {e["id"]: e["score"] for e in back["intrasentence"]} == scores


def test_a_missing_candidate_score_is_refused_whole(run_env: Path) -> None:
    suite = run_env / "ss-religion-mini.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    preds, _scores = _file(run_env / "preds.json", drop_one=True)
    assert main(["import", "--suite", str(suite), "--target", "t2", "--predictions", str(preds)]) != 0
    assert not list((run_env / "transcripts").glob("ss-religion-mini__t2*/transcript.jsonl"))
