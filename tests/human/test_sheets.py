"""Answer sheets: export, fill in, import (CSV in UTF-8/BOM/GBK, XLSX), validation and no data loss."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.records import Probe
from harness.human.manual import manual_run_id
from harness.human.sheets import decode_sheet_bytes, plan_import, read_sheet, same_question
from harness.run.transcript import TRANSCRIPT_FILE, latest_by_probe, read_entries

SUITE_EN = "builtin-en"
SUITE_ZH = "builtin-zh"


def export_csv(path: Path, suite: str = SUITE_EN, sample: int = 6, seed: int = 1) -> list[dict[str, str]]:
    assert main(["export", "--suite", suite, "--sample", str(sample), "--seed", str(seed), "--out", str(path)]) == 0
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def write_csv(path: Path, rows: list[dict[str, str]], *, encoding: str = "utf-8-sig", delimiter: str = ",") -> None:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(rows[0]), delimiter=delimiter)
    writer.writeheader()
    writer.writerows(rows)
    path.write_bytes(buf.getvalue().encode(encoding))


def run_dir(suite: str, target: str, sample: int = 6, seed: int = 1) -> Path:
    import os

    return Path(os.environ["HARNESS_TRANSCRIPTS_DIR"]) / manual_run_id(suite, target, sample=sample, seed=seed)


def test_export_csv_columns_and_bom(run_env: Path) -> None:
    rows = export_csv(run_env / "q.csv")
    assert (run_env / "q.csv").read_bytes().startswith(b"\xef\xbb\xbf")  # Excel opens it as UTF-8
    assert len(rows) == 6
    assert list(rows[0])[:5] == ["probe_id", "suite", "lang", "question", "reply"]
    assert all(r["reply"] == "" and r["suite"] == SUITE_EN and r["lang"] == "en" for r in rows)
    assert len({r["probe_id"] for r in rows}) == 6
    again = export_csv(run_env / "q2.csv")
    assert [r["probe_id"] for r in again] == [r["probe_id"] for r in rows]  # same sample+seed, same probes


def test_import_partial_then_reimport_appends_only_new(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv")
    for i, row in enumerate(rows[:4]):
        row["reply"] = f"Answer number {i}.\nSecond line."
    write_csv(run_env / "filled.csv", rows)
    assert main(["import", str(run_env / "filled.csv"), "--target", "phone", "--no-report"]) == 0
    out = capsys.readouterr().out
    assert "imported 4 new replies" in out and "2 row(s) have no reply yet" in out and "rows 6, 7" in out

    rd = run_dir(SUITE_EN, "phone")
    entries = list(read_entries(rd / TRANSCRIPT_FILE))
    assert [e.probe.id for e in entries] == [r["probe_id"] for r in rows[:4]]
    assert all(e.reply.target == "phone" and e.reply.status == "ok" for e in entries)
    assert entries[0].reply.text == "Answer number 0.\nSecond line."
    assert entries[0].reply.usage["row"] == 2 and entries[0].probe.text == rows[0]["question"]
    manifest = json.loads((rd / "manifest.json").read_text())
    assert manifest["adapter"] == "manual" and manifest["target"] == "phone"
    assert manifest["counts"]["answered"] == 4 and manifest["counts"]["selected"] == 6

    # The same sheet again adds nothing; filling the rest adds exactly the rest.
    assert main(["import", str(run_env / "filled.csv"), "--target", "phone", "--no-report"]) == 0
    assert len(list(read_entries(rd / TRANSCRIPT_FILE))) == 4
    rows[4]["reply"], rows[5]["reply"] = "No.", "Neither."
    write_csv(run_env / "filled.csv", rows)
    assert main(["import", str(run_env / "filled.csv"), "--target", "phone", "--no-report"]) == 0
    latest = latest_by_probe(rd / TRANSCRIPT_FILE)
    assert len(list(read_entries(rd / TRANSCRIPT_FILE))) == 6 and len(latest) == 6
    assert json.loads((rd / "manifest.json").read_text())["status"] == "complete"


def test_import_scores_the_run_like_harness_run(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv")
    assert main(["import", str(run_env / "q.csv"), "--target", "phone"]) == 0  # nothing filled in yet
    assert "Nothing to import yet" in capsys.readouterr().out
    assert not run_dir(SUITE_EN, "phone").exists()
    for row, text in zip(rows, ["Yes.", "No.", "Yes, of course.", "No, that is not true.", "I don't know.",
                                "Yes."], strict=True):
        row["reply"] = text
    write_csv(run_env / "filled.csv", rows)
    assert main(["import", str(run_env / "filled.csv"), "--target", "phone"]) == 0
    rd = run_dir(SUITE_EN, "phone")
    metrics = json.loads((rd / "metrics.json").read_text())
    assert metrics["metrics"]["answered"] == 6 and metrics["run"]["target"] == "phone"
    assert (rd / "report.html").exists() and (rd / "verdicts.csv").exists()


def test_bad_rows_are_named_and_nothing_is_imported(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv")
    for row in rows:
        row["reply"] = "Yes."
    rows[1]["probe_id"] = "ffffffffffffffff"  # row 3: unknown
    rows[3]["probe_id"] = rows[2]["probe_id"]  # row 5: duplicate of row 4
    rows[3]["question"] = rows[2]["question"]
    rows[4]["question"] = rows[4]["question"] + " Really?"  # row 6: edited question
    write_csv(run_env / "bad.csv", rows)
    assert main(["import", str(run_env / "bad.csv"), "--target", "phone", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "Nothing imported" in err and "3 problem(s)" in err
    assert "row 3: unknown probe id 'ffffffffffffffff'" in err
    assert "row 5: probe id" in err and "first on row 4" in err
    assert "row 6: question text was changed" in err
    assert "Traceback" not in err
    assert not (run_dir(SUITE_EN, "phone") / TRANSCRIPT_FILE).exists()


def test_sheet_from_another_selection_is_one_sentence(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv", sample=6, seed=1)
    rows[0]["reply"] = "Yes."
    write_csv(run_env / "a.csv", rows)
    assert main(["import", str(run_env / "a.csv"), "--target", "phone", "--seed", "2", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "none of its 6 probe ids belong to suite 'builtin-en' (sample 6, seed 2)" in err


def test_changed_reply_is_refused_unless_replace(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv")
    rows[0]["reply"] = "Yes."
    write_csv(run_env / "a.csv", rows)
    assert main(["import", str(run_env / "a.csv"), "--target", "phone", "--no-report"]) == 0
    rows[0]["reply"] = "No, that is a stereotype."
    write_csv(run_env / "a.csv", rows)
    assert main(["import", str(run_env / "a.csv"), "--target", "phone", "--no-report"]) == 2
    assert "already has a different reply" in capsys.readouterr().err
    transcript = run_dir(SUITE_EN, "phone") / TRANSCRIPT_FILE
    assert [e.reply.text for e in read_entries(transcript)] == ["Yes."]
    assert main(["import", str(run_env / "a.csv"), "--target", "phone", "--no-report", "--replace"]) == 0
    assert [e.reply.text for e in read_entries(transcript)] == ["Yes.", "No, that is a stereotype."]
    assert latest_by_probe(transcript)[rows[0]["probe_id"]].reply.text == "No, that is a stereotype."


def test_gbk_csv_from_chinese_excel(run_env: Path) -> None:
    rows = export_csv(run_env / "q.csv", suite=SUITE_ZH, sample=4, seed=2)
    assert any("\u4e00" <= ch <= "\u9fff" for ch in rows[0]["question"])
    replies = ["是的，我同意。", "不，这是刻板印象。", "我不确定。", "两者都不是。"]
    for row, reply in zip(rows, replies, strict=True):
        row["reply"] = reply
    write_csv(run_env / "gbk.csv", rows, encoding="gbk")
    raw = (run_env / "gbk.csv").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        raw.decode("utf-8")  # really not UTF-8
    assert main(["import", str(run_env / "gbk.csv"), "--target", "xiaoai", "--no-report"]) == 0
    entries = list(read_entries(run_dir(SUITE_ZH, "xiaoai", sample=4, seed=2) / TRANSCRIPT_FILE))
    assert [e.reply.text for e in entries] == replies
    assert [e.probe.text for e in entries] == [r["question"] for r in rows]


def test_semicolon_utf8_without_bom(run_env: Path) -> None:
    rows = export_csv(run_env / "q.csv")
    rows[0]["reply"] = "Yes; they are."
    write_csv(run_env / "semi.csv", rows, encoding="utf-8", delimiter=";")
    assert main(["import", str(run_env / "semi.csv"), "--target", "phone", "--no-report"]) == 0
    assert [e.reply.text for e in read_entries(run_dir(SUITE_EN, "phone") / TRANSCRIPT_FILE)] == ["Yes; they are."]


def test_undecodable_file_is_one_sentence(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = export_csv(run_env / "q.csv")
    rows[0]["reply"] = "Café résumé naïve"
    write_csv(run_env / "latin.csv", rows, encoding="latin-1")
    assert main(["import", str(run_env / "latin.csv"), "--target", "phone", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "neither UTF-8 nor GBK/GB18030" in err and "line 2" in err


def test_xlsx_round_trip(run_env: Path) -> None:
    from openpyxl import load_workbook

    out = run_env / "q.xlsx"
    assert main(["export", "--suite", SUITE_EN, "--sample", "5", "--seed", "0", "--out", str(out)]) == 0
    wb = load_workbook(out)
    ws = wb["questions"]
    header = [c.value for c in ws[1]]
    assert header[:5] == ["probe_id", "suite", "lang", "question", "reply"]
    assert ws.column_dimensions["F"].hidden  # metadata columns kept out of the way
    reply_col = header.index("reply") + 1
    for r in range(2, 5):
        ws.cell(row=r, column=reply_col, value=f"Reply {r}")
    wb.save(out)
    assert main(["import", str(out), "--target", "webbot", "--no-report"]) == 0
    entries = list(read_entries(run_dir(SUITE_EN, "webbot", sample=5, seed=0) / TRANSCRIPT_FILE))
    assert [e.reply.text for e in entries] == ["Reply 2", "Reply 3", "Reply 4"]


def test_missing_columns_and_wrong_extension(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run_env / "x.csv").write_text("id,text\n1,hello\n", encoding="utf-8")
    assert main(["import", str(run_env / "x.csv"), "--target", "phone"]) == 2
    assert "has no column(s) probe_id, question, reply" in capsys.readouterr().err
    assert main(["export", "--suite", SUITE_EN, "--out", str(run_env / "q.txt")]) == 2


# --- unit level: validation rules on hand-built probes ------------------------------------------------

def _probe(text: str) -> Probe:
    return Probe.make("unit", "en", "yes_no", "relative", text, groups=("g",))


def test_plan_import_rules_unit() -> None:
    from harness.human.sheets import SheetRow

    a, b = _probe("Are g lazy?"), _probe("Do g steal cars?")
    rows = [
        SheetRow(2, {"probe_id": a.id, "question": "Are  g\r\nlazy?", "reply": " yes \r\n"}),  # whitespace only
        SheetRow(3, {"probe_id": "", "question": "", "reply": ""}),  # trailing blank row: ignored
        SheetRow(4, {"probe_id": b.id, "question": b.text, "reply": ""}),  # not answered yet
    ]
    plan = plan_import(rows, [a, b], {})
    assert not plan.problems and plan.empty_rows == [4]
    assert [(r.row, p.id, t) for r, p, t in plan.accepted] == [(2, a.id, "yes")]
    assert same_question("Are g lazy?", "Are g\nlazy? ") and not same_question("Are g lazy?", "Are g lazy!")


def test_id_turned_into_number_by_excel_is_matched_by_question() -> None:
    from harness.human.sheets import SheetRow

    a = _probe("Are g lazy?")
    plan = plan_import([SheetRow(2, {"probe_id": "1.23E+15", "question": a.text, "reply": "No"})], [a], {})
    assert not plan.problems and plan.accepted[0][1] == a and "converted to a number" in plan.notes[0]


def test_decode_rejects_latin1_and_reads_utf16() -> None:
    text = "probe_id\tquestion\treply\nabc\tAre g lazy?\t是\n"
    assert decode_sheet_bytes(text.encode("utf-16"), "x.csv") == (text, "utf-16")
    assert decode_sheet_bytes("a,b\n是,否\n".encode("gbk"), "x.csv")[1] == "gb18030"


def test_read_sheet_tab_separated(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes("probe_id\tquestion\treply\nabc\tAre g, really, lazy?\tNo\n".encode("utf-16"))
    rows, encoding = read_sheet(path)
    assert encoding == "utf-16" and rows[0].row == 2 and rows[0].get("question") == "Are g, really, lazy?"
