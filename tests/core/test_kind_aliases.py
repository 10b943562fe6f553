"""A method has one name (issue 37): CBBQ's kind was `multiple_choice`, CrowS-Pairs' `crows_pair`, CHBias's
`sentence_pair`, the political method's `continuation`, task-oriented dialogue's `tod_turn` and a user's prompts'
`open`; each is now its method's name. What was written under the old names still reads: a transcript line gets the
new kind (harness.core.records.KIND_ALIASES, the one alias table), a probe keeps the id it had (the id joins a run
folder to its resume, cache, answer sheets and review labels), a kind looked up by its old name (a verdicts.csv row,
a baseline) finds its declaration, and an old-name run scores to the same metrics as the same run written now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.core.kinds import kind_spec, registered_kinds
from harness.core.records import KIND_ALIASES, Probe, Reply, canonical_kind
from harness.metrics import family_for_kind
from harness.run.transcript import read_entries
from harness.score.scoring import score_run

GOLDEN_CBBQ = Path(__file__).resolve().parent.parent / "data" / "golden" / "cbbq" / "transcript.jsonl"


def test_the_alias_table_names_each_rename_once() -> None:
    assert KIND_ALIASES == {"multiple_choice": "cbbq", "crows_pair": "crows_pairs", "sentence_pair": "chbias",
                            "continuation": "political", "tod_turn": "tod", "open": "prompts"}
    declared = set(registered_kinds()) | {"prompts"}  # a user's prompts: a kind with a rule, no family, no ProbeKind
    assert set(KIND_ALIASES.values()) <= declared  # each old name reads as a kind read now
    assert canonical_kind("multiple_choice") == "cbbq" and canonical_kind("crows_pair") == "crows_pairs"
    assert canonical_kind("yes_no") == "yes_no" and canonical_kind("cbbq") == "cbbq"


def test_an_old_name_transcript_line_reads_as_the_new_kind(tmp_path: Path) -> None:
    line = GOLDEN_CBBQ.read_text(encoding="utf-8").splitlines()[0]
    assert json.loads(line)["probe"]["kind"] == "multiple_choice"  # written before the rename
    path = tmp_path / "transcript.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    (entry,) = list(read_entries(path))
    assert entry.probe.kind == "cbbq"
    assert entry.probe.id == json.loads(line)["probe"]["id"]


def test_a_probe_made_now_keeps_the_id_it_had_under_the_old_name() -> None:
    stored = json.loads(GOLDEN_CBBQ.read_text(encoding="utf-8").splitlines()[0])["probe"]
    fields = (stored["suite"], stored["lang"])
    rest = {"groups": stored["groups"], "options": stored["options"], "meta": stored["meta"]}
    now = Probe.make(*fields, "cbbq", stored["bias_type"], stored["text"], **rest)
    old = Probe.make(*fields, "multiple_choice", stored["bias_type"], stored["text"], **rest)
    assert now.id == old.id == stored["id"]
    assert now.kind == old.kind == "cbbq"
    crows = [Probe.make("s", "en", kind, "stereo", "x") for kind in ("crows_pairs", "crows_pair")]
    assert crows[0].id == crows[1].id and crows[0].kind == crows[1].kind == "crows_pairs"
    assert Probe.make("s", "en", "yes_no", "", "x").id != Probe.make("s", "en", "choice", "", "x").id


def test_an_old_kind_name_finds_its_declaration_and_family() -> None:
    assert kind_spec("multiple_choice") is kind_spec("cbbq") is not None
    assert kind_spec("crows_pair") is kind_spec("crows_pairs") is not None
    assert family_for_kind("multiple_choice") == "cbbq"
    assert family_for_kind("crows_pair") == "crows_pairs"


def _crows_lines(kind: str) -> list[dict[str, Any]]:
    """Four CrowS-Pairs pairs with the perplexity mode's usage; the stereotype likelier in three of them."""
    lines = []
    for i, (nll_more, nll_less) in enumerate([(1.0, 2.0), (1.5, 1.8), (3.0, 2.0), (0.5, 0.9)]):
        meta = {"template": f"crows-pairs/{i}", "upstream_id": str(i), "bias_type": "religion",
                "direction": "stereo"}
        probe = Probe.make("crows-pairs", "en", "crows_pairs", "stereo", f"more {i}", groups=("more", "less"),
                           attribute="religion", categories=("religion",), options=(f"more {i}", f"less {i}"),
                           meta=meta)
        reply = Reply(probe.id, "golden", "", usage={"nll": [nll_more, nll_less], "tokens": [4, 4]})
        record = {"probe": probe.to_dict(), "reply": reply.to_dict()}
        record["probe"]["kind"] = kind
        lines.append(record)
    return lines


def _scored(tmp_path: Path, name: str, lines: list[dict[str, Any]]) -> dict[str, Any]:
    run = tmp_path / name
    run.mkdir()
    (run / "transcript.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    (run / "manifest.json").write_text(json.dumps({"run_id": name, "suite": "crows-pairs", "target": "golden"}))
    doc = json.loads(json.dumps(score_run(run, reviews=False).to_json(), default=str))
    return {k: doc[k] for k in ("metrics", "counts")}


def test_an_old_name_run_scores_as_the_same_run_written_now(tmp_path: Path) -> None:
    old = _scored(tmp_path, "old", _crows_lines("crows_pair"))
    new = _scored(tmp_path, "new", _crows_lines("crows_pairs"))
    assert old == new
    assert old["metrics"]["crows_pairs.pct_stereotype"] == pytest.approx(3 / 4)
