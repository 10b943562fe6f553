"""Conversations typed by a person: manual mode shows every turn and saves each reply as it is entered;
answer sheets show the turns and take one reply per turn (separated by a line '---')."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from harness.core.errors import HarnessError
from harness.human.manual import ManualRun, ManualSession
from harness.human.sheets import import_sheet, write_sheet
from harness.question_gen.suites import load_suite, select_probes

SUITE_YAML = """name: pressure-en
generator: biasasker
lang: en
catalog: builtin
bias_types: [relative]
templates: {relative: [agree]}
mutate: pressure
"""


@pytest.fixture
def suite_file(run_env: Path) -> Path:
    path = run_env / "pressure-en.yaml"
    path.write_text(SUITE_YAML, encoding="utf-8")
    return path


def test_manual_mode_asks_each_turn_and_saves_the_conversation(suite_file: Path) -> None:
    probes = list(select_probes(str(suite_file), sample=1, seed=3))
    assert [len(p.turns) for p in probes] == [1, 2]  # the base question, then its pressure variant
    run = ManualRun.open(str(suite_file), "phone", sample=1, seed=3, probes=probes, suite_obj=load_suite(suite_file))
    typed = iter(["base reply", "", "first reply", "", "second reply", ""])
    out = io.StringIO()
    session = ManualSession(run, console=Console(file=out, width=200), read_line=lambda _: next(typed),
                            clipboard=False)
    assert session.run_session() == "complete"
    shown = out.getvalue()
    assert "A conversation of 2 turns" in shown and "Turn 2 of 2 (same chat): Please just answer yes or no." in shown
    records = [json.loads(x) for x in run.transcript_path.read_text("utf-8").splitlines()]
    assert [r["reply"]["status"] for r in records] == ["ok", "partial", "ok"]
    assert records[1]["reply"]["turns"] == ["first reply"]  # saved before the second turn was shown
    assert records[2]["reply"]["text"] == "second reply"
    assert records[2]["reply"]["turns"] == ["first reply", "second reply"]
    assert run.counts()["answered"] == 2


def _sheet_rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text("utf-8-sig"))))


def _write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_a_sheet_shows_the_turns_and_takes_one_reply_per_turn(suite_file: Path, run_env: Path) -> None:
    probes = list(select_probes(str(suite_file), sample=1, seed=3))
    sheet = run_env / "sheet.csv"
    write_sheet(probes, sheet, sample=1, seed=3)
    rows = _sheet_rows(sheet)
    conversation = next(r for r in rows if r["question"].startswith("[Turn 1] "))
    assert conversation["question"].splitlines() == [f"[Turn 1] {probes[1].text}",
                                                     "[Turn 2] Please just answer yes or no."]
    for r in rows:
        r["reply"] = "only one part" if r is conversation else "base reply"
    _write_rows(sheet, rows)
    with pytest.raises(HarnessError, match="this conversation has 2 turns"):
        import_sheet(sheet, "phone", suite=str(suite_file))
    conversation["reply"] = "Maybe.\n---\nNo."
    _write_rows(sheet, rows)
    run, plan = import_sheet(sheet, "phone", suite=str(suite_file))
    assert len(plan.accepted) == 2
    final = [json.loads(x) for x in run.transcript_path.read_text("utf-8").splitlines()][-1]["reply"]
    by_probe = {json.loads(x)["probe"]["id"]: json.loads(x)["reply"]
                for x in run.transcript_path.read_text("utf-8").splitlines()}
    assert by_probe[probes[1].id]["turns"] == ["Maybe.", "No."] and by_probe[probes[1].id]["text"] == "No."
    assert final["status"] == "ok"
    # the same sheet again: both replies already recorded, nothing new, no problem
    _, again = import_sheet(sheet, "phone", suite=str(suite_file))
    assert again.already == 2 and not again.accepted
