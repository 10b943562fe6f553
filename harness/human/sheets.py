"""Answer sheets: questions out to CSV/XLSX, a person's answers back in, recorded as a run.

For chatbots with no API, a sheet lets the questions travel (to a colleague with the phone, to a
crowd-worker) and the answers come back later. Import is where the risk is, so it is strict:

* everything is validated before anything is written: unknown or duplicate probe ids, edited question
  text, unreadable encodings; each problem is reported with its sheet row number (row 1 = header, as
  Excel shows it) and nothing is imported while any problem remains (all-or-nothing);
* an empty reply means "not answered yet": reported and left out, never recorded as an empty answer;
* replies already in the run's transcript are never overwritten: the same text again is skipped (so a
  sheet can be re-imported after more rows were filled in), a different text is a problem unless
  `replace=True` (then the new line supersedes the old one, which stays on disk);
* a conversation (a multi-turn probe, Probe.turns) shows its turns in the question cell as "[Turn 1] ...",
  "[Turn 2] ..." lines; its reply cell holds each turn's reply in order, separated by a line holding only
  `---`, and a reply with the wrong number of parts is a problem of its row;
* encodings: UTF-8 with or without BOM, UTF-16 (Excel "Unicode text"), and GBK/GB18030, the default of
  Chinese Excel on Windows; `,` `;` or tab separated.

The run folder is the same one `harness manual` uses for the same suite/label/sample/seed (see
harness.human.manual.ManualRun), so typing and sheets can be mixed.
"""

from __future__ import annotations

import codecs
import csv
import io
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.records import Probe, Reply
from harness.run.transcript import TranscriptWriter

REQUIRED = ("probe_id", "question", "reply")
VISIBLE = ("probe_id", "suite", "lang", "question", "reply")
EXTRA = ("kind", "bias_type", "groups", "options", "sample", "seed")
COLUMNS = VISIBLE + EXTRA
MAX_PROBLEMS_SHOWN = 15
#: the line between two turns' replies in a conversation's reply cell
TURN_SEPARATOR = "---"


def question_cell(probe: Probe) -> str:
    """What the sheet shows as the question: the text, or a conversation's turns one per line."""
    turns = probe.turns
    if len(turns) == 1:
        return probe.text
    return "\n".join(f"[Turn {i}] {t}" for i, t in enumerate(turns, start=1))


def split_turns(probe: Probe, reply: str) -> tuple[str, ...] | None:
    """A conversation's reply cell as one reply per turn (None when the number of parts is wrong)."""
    parts = [p.strip() for p in re.split(rf"^[ \t]*{re.escape(TURN_SEPARATOR)}[ \t]*$", reply, flags=re.MULTILINE)]
    return tuple(parts) if len(parts) == len(probe.turns) and all(parts) else None


@dataclass(frozen=True, slots=True)
class SheetRow:
    row: int  # 1-based row number as a spreadsheet shows it (header is row 1)
    values: dict[str, str]

    def get(self, column: str) -> str:
        return self.values.get(column, "") or ""


@dataclass
class ImportPlan:
    """The outcome of validation: what would be written and what stops the import."""

    accepted: list[tuple[SheetRow, Probe, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    empty_rows: list[int] = field(default_factory=list)
    already: int = 0
    encoding: str = ""


# --- export ------------------------------------------------------------------------------------------

def _row_for(probe: Probe, sample: int | None, seed: int) -> dict[str, str]:
    return {
        "probe_id": probe.id, "suite": probe.suite, "lang": probe.lang, "question": question_cell(probe), "reply": "",
        "kind": probe.kind, "bias_type": probe.bias_type, "groups": " | ".join(probe.groups),
        "options": "\n".join(f"{letter}. {opt}" for letter, opt in zip("ABCDEFGH", probe.options, strict=False)),
        "sample": "" if sample is None else str(sample), "seed": str(seed),
    }


def write_sheet(probes: Iterable[Probe], out: Path, *, sample: int | None, seed: int) -> int:
    """Write the sheet; the format follows the extension (.csv or .xlsx). Returns the number of rows."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".csv", ".xlsx"):
        raise HarnessError(f"Cannot write '{out.name}': use a .csv or .xlsx file name with --out.")
    rows = [_row_for(p, sample, seed) for p in probes]
    write_rows(rows, out, columns=COLUMNS, widths={"probe_id": 18, "suite": 14, "lang": 6, "question": 70, "reply": 70},
               hidden=EXTRA, notes=ANSWER_SHEET_NOTES)
    return len(rows)


ANSWER_SHEET_NOTES = (
    "Fill in the 'reply' column with what the chatbot answered, one row per question.",
    "Leave a reply empty if the question was not asked yet; it is simply not imported.",
    "Do not edit probe_id or question; rows may be re-ordered or deleted.",
    "A question of [Turn 1], [Turn 2] lines is a conversation: ask the turns one after another in the same chat "
    f"and enter each turn's reply in order, separated by a line holding only {TURN_SEPARATOR}.",
    "Import with: harness import THIS_FILE --target LABEL",
)


def write_rows(rows: Sequence[Mapping[str, str]], out: Path, *, columns: Sequence[str],
               widths: Mapping[str, int], notes: Sequence[str], hidden: Iterable[str] = ()) -> None:
    """A sheet for a person to fill in (answer sheets, review sheets): CSV or XLSX by the file's extension.
    CSV is written as utf-8-sig: the BOM makes Excel (also Chinese Excel) open it as UTF-8 instead of GBK.
    XLSX streams rows in write-only mode (a 30,000-question sheet needs neither minutes nor gigabytes),
    keeps every cell text (ids like "12e45" and replies starting with '=' never become numbers or
    formulas), hides the columns kept only for import, and carries the notes on an "about" sheet."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.suffix.lower() == ".csv":
        with out.open("w", encoding="utf-8-sig", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(columns))
            writer.writeheader()
            writer.writerows(rows)
        return
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("questions")  # the sheet read_sheet reads first
    hidden = set(hidden)
    for i, name in enumerate(columns, 1):
        dim = ws.column_dimensions[get_column_letter(i)]
        dim.width = widths.get(name, 12)
        dim.hidden = name in hidden
    ws.freeze_panes = "A2"
    bold, wrap = Font(bold=True), Alignment(wrap_text=True, vertical="top")

    def cell(value: str, *, header: bool = False) -> WriteOnlyCell:
        c = WriteOnlyCell(ws, value=value)
        c.data_type = "s"
        if header:
            c.font = bold
        else:
            c.alignment = wrap
        return c

    ws.append([cell(name, header=True) for name in columns])
    for row in rows:
        ws.append([cell(row[c]) for c in columns])
    about = wb.create_sheet("about")
    about.column_dimensions["A"].width = 100
    for line in notes:
        about.append([line])
    wb.save(out)


# --- reading -----------------------------------------------------------------------------------------

def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def decode_sheet_bytes(data: bytes, name: str) -> tuple[str, str]:
    """Decode CSV bytes: BOMs first, then UTF-8, then GB18030 (a superset of GBK/GB2312).

    GB18030 accepts many byte sequences, so a non-UTF-8 file is taken as Chinese only when it decodes
    cleanly AND contains CJK characters; otherwise the error names the first bad line.
    """
    for bom, enc in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                     (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(enc), enc
            except UnicodeDecodeError as exc:
                raise HarnessError(f"{name} starts like {enc} but line {_line_of(data, exc.start)} is not valid "
                                   f"{enc}; save it again as 'CSV UTF-8'.") from None
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as utf8_exc:
        bad_line = _line_of(data, utf8_exc.start)
    try:
        text = data.decode("gb18030")
    except UnicodeDecodeError:
        text = ""
    if text and re.search(r"[\u3400-\u9fff]", text):
        return text, "gb18030"
    raise HarnessError(f"{name} is neither UTF-8 nor GBK/GB18030 (first bad byte on line {bad_line}); "
                       f"save it as 'CSV UTF-8' and import again.")


def _norm_header(name: Any) -> str:
    return re.sub(r"\s+", "_", str(name or "").strip().lower())


def read_sheet(path: Path) -> tuple[list[SheetRow], str]:
    """Rows of a CSV or XLSX sheet as strings, with their spreadsheet row numbers; and the encoding used."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise HarnessError(f"Cannot read sheet {path}: {exc.strerror or exc}.") from None
    if data.startswith(b"PK\x03\x04"):
        return _read_xlsx(path), "xlsx"
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        raise HarnessError(f"{path.name} is not a valid .xlsx file; export it again from the spreadsheet program.")
    text, encoding = decode_sheet_bytes(data, path.name)
    sample = text[:8192]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect)
    try:
        raw_rows = list(reader)
    except csv.Error as exc:
        raise HarnessError(f"{path.name} is not a readable CSV file (line {reader.line_num}: {exc}).") from None
    if not raw_rows:
        raise HarnessError(f"{path.name} is empty; export a sheet with `harness export`.")
    header = [_norm_header(h) for h in raw_rows[0]]
    rows = []
    for number, raw in enumerate(raw_rows[1:], start=2):
        rows.append(SheetRow(number, {h: (raw[i] if i < len(raw) else "") for i, h in enumerate(header) if h}))
    _check_header(header, path.name)
    return rows, encoding


def _read_xlsx(path: Path) -> list[SheetRow]:
    from openpyxl import load_workbook

    try:
        wb = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises several types for damaged files
        raise HarnessError(f"{path.name} is not a readable .xlsx file ({type(exc).__name__}).") from None
    try:
        ws = wb["questions"] if "questions" in wb.sheetnames else wb.worksheets[0]
        rows_iter = ws.iter_rows(values_only=True)
        try:
            header = [_norm_header(h) for h in next(rows_iter)]
        except StopIteration:
            raise HarnessError(f"{path.name} has an empty first sheet.") from None
        _check_header(header, path.name)
        rows = []
        for number, raw in enumerate(rows_iter, start=2):
            values = {}
            for i, h in enumerate(header):
                if not h:
                    continue
                cell = raw[i] if i < len(raw) else None
                values[h] = _cell_text(cell)
            rows.append(SheetRow(number, values))
        return rows
    finally:
        wb.close()


def _cell_text(cell: Any) -> str:
    if cell is None:
        return ""
    if isinstance(cell, float) and cell.is_integer():
        return str(int(cell))
    return str(cell)


def _check_header(header: Sequence[str], name: str) -> None:
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise HarnessError(f"{name} has no column(s) {', '.join(missing)} in its first row; it needs "
                           f"{', '.join(REQUIRED)} (as written by `harness export`).")


# --- validation and import ------------------------------------------------------------------------------

def same_question(a: str, b: str) -> bool:
    """Equal up to whitespace, line endings and Unicode normalisation (spreadsheets change those)."""

    def norm(s: str) -> str:
        return " ".join(unicodedata.normalize("NFC", s).split())

    return norm(a) == norm(b)


def _short(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def sheet_selection(rows: Sequence[SheetRow], name: str, *, suite: str | None, sample: int | None,
                    seed: int | None) -> tuple[str, int | None, int]:
    """The suite/sample/seed the sheet was exported with (from its columns), unless given explicitly."""

    def single(column: str) -> str | None:
        values = {r.get(column).strip() for r in rows if r.get("probe_id").strip()}
        values.discard("")
        if len(values) > 1:
            raise HarnessError(f"{name} mixes several values in column '{column}' ({', '.join(sorted(values)[:5])}); "
                               f"import one export at a time or pass --{column}.")
        return values.pop() if values else None

    suite = suite or single("suite")
    if not suite:
        raise HarnessError(f"{name} has no 'suite' column values; pass --suite NAME.")

    def as_int(text: str | None, column: str) -> int | None:
        if text is None:
            return None
        try:
            return int(float(text))
        except ValueError:
            raise HarnessError(f"{name}: column '{column}' holds '{text}', not a whole number.") from None

    if sample is None:
        sample = as_int(single("sample"), "sample")
    if seed is None:
        seed = as_int(single("seed"), "seed") or 0
    return suite, sample, seed


def plan_import(rows: Sequence[SheetRow], probes: Sequence[Probe], existing: dict[str, str], *,
                replace: bool = False, suite: str = "") -> ImportPlan:
    """Validate every row against the selected probes and the answers already recorded."""
    plan = ImportPlan()
    by_id = {p.id: p for p in probes}
    by_text: dict[str, list[Probe]] = {}
    for p in probes:
        by_text.setdefault(" ".join(question_cell(p).split()), []).append(p)
    seen: dict[str, int] = {}
    for row in rows:
        pid, question, reply = row.get("probe_id").strip(), row.get("question"), row.get("reply")
        if not pid and not question.strip() and not reply.strip():
            continue  # a blank line at the end of a sheet
        probe = by_id.get(pid)
        if probe is None:
            matches = by_text.get(" ".join(question.split()), [])
            if len(matches) == 1 and pid and re.fullmatch(r"[0-9.E+\-]+", pid, re.IGNORECASE):
                probe = matches[0]  # Excel turned an all-digit/exponent id into a number
                plan.notes.append(f"row {row.row}: probe id '{pid}' looks converted to a number by the "
                                  f"spreadsheet; matched it by its question to {probe.id}")
            else:
                label = f"'{pid}'" if pid else "(empty)"
                plan.problems.append(f"row {row.row}: unknown probe id {label} (not among the {len(probes)} "
                                     f"questions of {suite or 'the suite'} with this selection)")
                continue
        if probe.id in seen:
            plan.problems.append(f"row {row.row}: probe id {probe.id} appears again (first on row {seen[probe.id]})")
            continue
        seen[probe.id] = row.row
        if not same_question(question, question_cell(probe)):
            plan.problems.append(f"row {row.row}: question text was changed (sheet: \"{_short(question)}\"; "
                                 f"suite: \"{_short(question_cell(probe))}\")")
            continue
        text = reply.replace("\r\n", "\n").strip()
        if not text:
            plan.empty_rows.append(row.row)
            continue
        if len(probe.turns) > 1 and split_turns(probe, text) is None:
            plan.problems.append(f"row {row.row}: this conversation has {len(probe.turns)} turns; enter each "
                                 f"turn's reply, separated by a line holding only {TURN_SEPARATOR}")
            continue
        old = existing.get(probe.id)
        if old is not None:
            scored = split_turns(probe, text)[-1] if len(probe.turns) > 1 else text  # type: ignore[index]
            if old.strip() == scored:
                plan.already += 1
                continue
            if not replace:
                plan.problems.append(f"row {row.row}: probe {probe.id} already has a different reply in this run "
                                     f"(\"{_short(old)}\"); use --replace to record the new one")
                continue
        plan.accepted.append((row, probe, text))
    return plan


def _rows_text(numbers: Sequence[int]) -> str:
    shown = ", ".join(map(str, numbers[:12]))
    return shown + (f" and {len(numbers) - 12} more" if len(numbers) > 12 else "")


def import_sheet(path: Path, target: str, *, suite: str | None = None, sample: int | None = None,
                 seed: int | None = None, run_id: str | None = None, replace: bool = False) -> tuple[Any, ImportPlan]:
    """Validate the whole sheet, then append its new answers to the run transcript (all or nothing).

    Returns (ManualRun, plan), or (None, plan) when the sheet has no answers and no run exists yet.
    Raises HarnessError listing every problem when any row is wrong.
    """
    from harness.human.manual import ManualRun, manual_reply, select_suite_probes

    path = Path(path)
    rows, encoding = read_sheet(path)
    suite, sample, seed = sheet_selection(rows, path.name, suite=suite, sample=sample, seed=seed)
    suite_obj, probes = select_suite_probes(suite, sample=sample, seed=seed, limit=None)
    from harness.human.manual import manual_run_id
    from harness.run import manifest as mf

    rid = run_id or manual_run_id(suite, target, sample=sample, seed=seed)
    existing_manifest = mf.read_manifest(mf.run_dir_for(rid))
    if existing_manifest and existing_manifest.get("adapter") not in ("manual", None):
        raise HarnessError(f"Run '{rid}' holds answers from the '{existing_manifest.get('adapter')}' adapter, "
                           f"not from a person; choose another --target label or --run-id.")
    from harness.run.transcript import latest_by_probe

    transcript = mf.run_dir_for(rid) / "transcript.jsonl"
    existing = {pid: e.reply.text for pid, e in latest_by_probe(transcript).items() if e.reply.ok}
    plan = plan_import(rows, probes, existing, replace=replace, suite=suite)
    plan.encoding = encoding
    filled = [r for r in rows if r.get("probe_id").strip() or r.get("question").strip()]
    unknown = sum(1 for p in plan.problems if "unknown probe id" in p)
    if filled and unknown == len(filled):
        selection = f"sample {sample}, seed {seed}" if sample else "all probes"
        raise HarnessError(f"Nothing imported from {path.name}: none of its {len(filled)} probe ids belong to suite "
                           f"'{suite}' ({selection}); was it exported with another --suite/--sample/--seed or "
                           f"another harness version? Pass the right --suite/--sample/--seed.")
    if plan.problems:
        shown = plan.problems[:MAX_PROBLEMS_SHOWN]
        more = len(plan.problems) - len(shown)
        detail = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
        raise HarnessError(f"Nothing imported from {path.name}: {len(plan.problems)} problem(s): {detail}.")
    if not plan.accepted and not existing_manifest:
        return None, plan  # nothing answered yet: no empty run folder is created
    run = ManualRun.open(suite, target, sample=sample, seed=seed, run_id=rid, mode="import",
                         probes=probes, suite_obj=suite_obj)
    status = mf.STATUS_INTERRUPTED
    try:
        with TranscriptWriter(run.run_dir, fsync_every=0) as writer:
            for row, probe, text in plan.accepted:
                reply = manual_reply(probe, target, text, sheet=path.name, row=row.row, revised=probe.id in existing)
                turns = split_turns(probe, text) if len(probe.turns) > 1 else None
                if turns:  # a conversation: every turn's reply, the last one scored
                    reply = Reply(probe_id=reply.probe_id, target=target, text=turns[-1], usage=reply.usage,
                                  turns=turns)
                writer.append(probe, reply)
        counts = run.counts()
        status = mf.STATUS_COMPLETE if counts["unanswered"] == 0 else mf.STATUS_INTERRUPTED
    finally:
        run.close(status, {"imported": len(plan.accepted), "already": plan.already,
                           "empty": len(plan.empty_rows), "sheet": path.name, "encoding": encoding})
    return run, plan


def describe_plan(plan: ImportPlan) -> list[str]:
    """Human lines for the import summary."""
    lines = [f"imported {len(plan.accepted)} new repl{'y' if len(plan.accepted) == 1 else 'ies'} "
             f"(encoding {plan.encoding})"]
    if plan.already:
        lines.append(f"{plan.already} already in the run with the same text: skipped")
    if plan.empty_rows:
        lines.append(f"{len(plan.empty_rows)} row(s) have no reply yet and were not imported: "
                     f"rows {_rows_text(plan.empty_rows)}")
    lines.extend(plan.notes)
    return lines
