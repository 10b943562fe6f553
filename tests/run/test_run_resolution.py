"""One answer to "which folder is run X?" and one manifest reader, for resuming and for scoring alike.

A run to resume needs its manifest.json (the selection to ask again); a run to score needs only its
transcript.jsonl (each line carries its probe), so imported transcripts and hand-made folders score
without a manifest, or with a partial one. A manifest file that is not a JSON object is one sentence in
both cases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR, Probe, Reply
from harness.run import manifest as mf
from harness.run.transcript import TRANSCRIPT_FILE, TranscriptWriter
from harness.score import scoring


def _imported_run(folder: Path, *, answered: bool = True) -> Path:
    """A folder as `harness import` or a hand copy leaves it: a transcript, no manifest."""
    w = TranscriptWriter(folder)
    for i, (group, text) in enumerate((("nurses", "Yes, they are kind."), ("pilots", "No, they are not."))):
        p = Probe.make("imported", "en", "yes_no", "relative", f"Are {group} kind? #{i}", groups=(group,),
                       attribute="profession", property="are kind", categories=("Personality",),
                       meta={"template": "yes_no"})
        reply = Reply(p.id, "phone-bot", text) if answered else Reply(
            p.id, "phone-bot", "", status=STATUS_ERROR, error="typed by nobody")
        w.append(p, reply)
    w.close()
    return folder


def test_a_run_is_found_by_id_by_folder_and_by_a_file_inside(run_env: Path) -> None:
    folder = _imported_run(run_env / "transcripts" / "imp1")
    for given in ("imp1", folder, folder / TRANSCRIPT_FILE):
        assert mf.resolve_run(given, require_manifest=False) == folder
        assert scoring.resolve_run(given) == folder  # the name harness.cli.report imports: the same lookup
    mf.write_manifest(folder, mf.new_manifest(run_id="imp1", suite="builtin-en", target="bot",
                                              adapter="openai", settings={}))
    for given in ("imp1", folder, folder / mf.MANIFEST_FILE):
        assert mf.resolve_run(given) == folder


def test_a_transcript_without_manifest_is_scored_but_not_resumed(run_env: Path) -> None:
    folder = _imported_run(run_env / "transcripts" / "imp2", answered=False)
    result = scoring.score_run("imp2")
    assert result.manifest == {} and result.run_id == "imp2"
    assert result.metrics["total"] == 2 and result.metrics["errors"] == 2
    with pytest.raises(HarnessError, match=r"has no manifest\.json, so it cannot be resumed"):
        mf.resolve_run("imp2")
    assert main(["run", "--resume", str(folder)]) == 2


def test_an_answered_imported_transcript_is_scored_by_the_real_oracle(run_env: Path) -> None:
    folder = _imported_run(run_env / "imported")
    result = scoring.score_run(folder)
    assert result.metrics["answered"] == 2 and result.manifest == {}
    labels = dict(zip(result.frame["reply"], result.frame["label"], strict=True))
    assert labels == {"Yes, they are kind.": "affirm", "No, they are not.": "deny"}


def test_a_partial_manifest_is_enough_to_score_but_not_to_resume(run_env: Path) -> None:
    folder = _imported_run(run_env / "transcripts" / "imp3", answered=False)
    (folder / mf.MANIFEST_FILE).write_text(json.dumps({"run_id": "imp3", "target": "phone-bot"}), "utf-8")
    assert mf.read_manifest(folder, complete=False) == {"run_id": "imp3", "target": "phone-bot"}
    assert scoring.score_run(folder).manifest["target"] == "phone-bot"
    with pytest.raises(HarnessError, match="it needs 'suite', 'target' and 'selection'"):
        mf.read_manifest(folder)


@pytest.mark.parametrize("content", [b"[]", b'"a run"', b"\xff\xfe{\x00}\x00", b"{not json"])
def test_a_manifest_that_is_not_an_object_stops_scoring_in_one_sentence(
        run_env: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _imported_run(run_env / "transcripts" / "imp4", answered=False)
    (folder / mf.MANIFEST_FILE).write_bytes(content)
    with pytest.raises(HarnessError, match=r"is not (a harness run manifest|valid JSON)"):
        scoring.score_run(folder)
    assert main(["report", "imp4"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and str(folder / mf.MANIFEST_FILE) in " ".join(err.split())
    assert (folder / TRANSCRIPT_FILE).stat().st_size > 0  # nothing collected is touched


def test_missing_runs_are_one_sentence_for_each_use(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(HarnessError, match="No run 'nosuch' found"):
        mf.resolve_run("nosuch")
    with pytest.raises(HarnessError, match="No run folder 'nosuch'"):
        mf.resolve_run("nosuch", require_manifest=False)
    empty = run_env / "empty"
    empty.mkdir()
    with pytest.raises(HarnessError, match=r"empty has no transcript\.jsonl"):
        scoring.resolve_run(empty)
    assert main(["report", str(empty)]) == 2
    assert "has no transcript.jsonl" in capsys.readouterr().err
