"""Review sheets: `harness review RUN --export FILE` / `--import FILE` for people who prefer a spreadsheet.

Reading goes through harness.human.sheets.read_sheet (encodings, XLSX, row numbers) like manual mode's sheets;
the whole sheet is validated before one line is appended to reviews.jsonl.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.human.sheets import write_rows
from harness.score.review import (
    ReviewItem,
    ReviewWriter,
    group_label,
    human_verdict,
    label_as_typed,
    parse_label,
    read_reviews,
    reply_sha,
    review_record,
)

SHEET_COLUMNS = ("probe_id", "run_id", "lang", "kind", "question", "groups", "reply", "oracle_label",
                 "evidence", "your_label")
_HOW_TO = ("'ok' accepts the oracle's label. Leave it empty to leave the reply unreviewed.",
           "Do not edit probe_id, run_id or reply. Import with: harness review RUN --import THIS_FILE")


def sheet_notes() -> tuple[str, ...]:
    """The sheet's notes: how each reviewable kind's labels are typed (its ReviewSpec.sheet_note), then how
    to fill in and import the sheet."""
    from harness.core.kinds import registered_kinds
    from harness.score.review import reviewable_kinds

    kinds = reviewable_kinds()  # loads the families, whose modules declare their kinds
    ways = [spec.review.sheet_note or f"{name} questions {' / '.join(spec.review_labels)}"
            for name, spec in registered_kinds().items() if name in kinds and spec.review is not None]
    return (f"Fill in 'your_label' with the label you read in the reply: {'; '.join(ways)}. {_HOW_TO[0]}",
            _HOW_TO[1])


def check_export_path(out: Path) -> Path:
    """A .csv/.xlsx name that holds nothing yet: an existing file may be a sheet someone has filled in and
    not imported, and overwriting it would lose their labels."""
    out = Path(out)
    if out.suffix.lower() not in (".csv", ".xlsx"):
        raise HarnessError(f"Cannot write '{out.name}': use a .csv or .xlsx file name with --export.")
    if out.exists():
        raise HarnessError(f"{out} already exists; import it first (--import) or export to a new file name.")
    return out


def export_sheet(run_id: str, sample: Sequence[ReviewItem], done: Mapping[str, Mapping[str, Any]], out: Path) -> int:
    """Write the sample as a CSV (UTF-8 with BOM, for Excel) or XLSX sheet; labels already entered are
    filled in so a re-import changes nothing. Returns the number of rows."""
    out = check_export_path(out)
    rows = []
    for it in sample:
        p, v = it.probe, it.oracle
        rec = done.get(p.id)
        rows.append({"probe_id": p.id, "run_id": run_id, "lang": p.lang, "kind": p.kind, "question": p.text,
                     "groups": " | ".join(f"{i}. {g}" for i, g in enumerate(p.groups, 1)) if group_label(p)
                     else " | ".join(p.groups),
                     "reply": it.reply.text, "oracle_label": label_as_typed(p, v.label, v.favoured),
                     "evidence": v.evidence or "",
                     "your_label": label_as_typed(p, rec["label"], rec.get("favoured")) if rec else ""})
    write_rows(rows, out, columns=SHEET_COLUMNS, notes=sheet_notes(),
               widths={"probe_id": 18, "question": 50, "reply": 70, "evidence": 30, "groups": 24, "your_label": 14})
    return len(rows)


@dataclass
class ReviewImport:
    accepted: list[tuple[ReviewItem, str, str | None]] = field(default_factory=list)
    already: int = 0
    empty: int = 0


def plan_review_import(path: Path, run_id: str, items: Sequence[ReviewItem],
                       done: Mapping[str, Mapping[str, Any]]) -> ReviewImport:
    """Validate the whole sheet before anything is written; HarnessError names every problem."""
    from harness.human.sheets import MAX_PROBLEMS_SHOWN, read_sheet, same_question

    path = Path(path)
    rows, _ = read_sheet(path)
    if rows and "your_label" not in rows[0].values:
        raise HarnessError(f"{path.name} has no 'your_label' column; it is not a review sheet (write one with "
                           f"`harness review RUN --export FILE`).")
    runs = {r.get("run_id").strip() for r in rows if r.get("probe_id").strip()} - {""}
    if runs and runs != {run_id}:
        raise HarnessError(f"{path.name} was exported from run {', '.join(sorted(runs))}, not {run_id}; import it "
                           f"into that run.")
    by_id = {it.probe.id: it for it in items}
    plan, problems, seen = ReviewImport(), [], set()
    for row in rows:
        pid, typed = row.get("probe_id").strip(), row.get("your_label").strip()
        if not pid and not typed:
            continue
        item = by_id.get(pid)
        if item is None:
            problems.append(f"row {row.row}: probe id '{pid}' has no scored reply in run {run_id}")
            continue
        if pid in seen:
            problems.append(f"row {row.row}: probe id {pid} appears twice")
            continue
        seen.add(pid)
        if not typed:
            plan.empty += 1
            continue
        if not same_question(row.get("reply"), item.reply.text):  # the label is for the reply they read
            problems.append(f"row {row.row}: the run's reply to {pid} is no longer the one in the sheet (asked "
                            f"again?); export a new sheet for it")
            continue
        if typed.lower() == "ok":
            label, favoured = item.oracle.label, item.oracle.favoured
        else:
            try:
                label, favoured = parse_label(item.probe, typed)
            except ValueError as exc:
                problems.append(f"row {row.row}: {str(exc).rstrip('.')}")
                continue
        old = done.get(pid)
        # compare as stored: an affirm of a comparison is stored with the group it favours (human_verdict)
        human = human_verdict(item.probe, label, favoured)
        if old is not None and (old.get("label"), old.get("favoured")) == (human.label, human.favoured):
            plan.already += 1
            continue
        plan.accepted.append((item, label, favoured))
    if problems:
        shown = problems[:MAX_PROBLEMS_SHOWN]
        more = f"; and {len(problems) - len(shown)} more" if len(problems) > len(shown) else ""
        raise HarnessError(f"Nothing imported from {path.name}: {len(problems)} problem(s): {'; '.join(shown)}{more}.")
    return plan


def import_sheet(path: Path, run_dir: Path, run_id: str, items: Sequence[ReviewItem]) -> ReviewImport:
    """Validate, then append every new or changed label (a changed one supersedes the earlier line)."""
    current = {it.probe.id: reply_sha(it.reply.text) for it in items}
    done = {pid: rec for pid, rec in read_reviews(run_dir).items() if current.get(pid) == rec.get("reply_sha")}
    plan = plan_review_import(path, run_id, items, done)
    if plan.accepted:
        with ReviewWriter(run_dir) as writer:
            for item, label, favoured in plan.accepted:
                writer.append(review_record(item, label, favoured, run_id=run_id, source=f"sheet:{Path(path).name}"))
    return plan
