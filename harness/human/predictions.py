"""Another tool's predictions in, scored like any import: `harness import --suite S --target T --predictions F`.

A user who already has a model's outputs from lm-evaluation-harness, HELM or their own pipeline writes them as
JSON lines, one item each:

    {"id": "<the upstream item id>", "reply": "<the model's text>"}

and the harness matches each line to the suite's probe carrying that upstream id, records the replies as a run
(the folder `harness manual` and sheets use, so the run is scored, reported, compared and reviewed like any
other) and scores it.

Which id: a generator puts the item's upstream id in the probe's meta under UPSTREAM_ID_KEY ("upstream_id": BBQ
`<Category>:<example_id>` such as `Religion:0`, CBBQ `<category>/<context>/<example_id>`, CrowS-Pairs the
pair's number); a probe without one answers to its harness probe id (`harness questions -f jsonl` lists them;
BiasAsker's data has no item ids of its own). A suite that gives one upstream id to several probes (e.g.
`-p permute=rotate`, three orders of one question) cannot tell which one a line answers: such a line is a
problem of its own.

A scores file is the other form: one JSON object whose values are lists of {"id": "<an option's id>", "score":
<a number>} (StereoSet's upstream predictions.json: {"intrasentence": [...], "intersentence": [...]}, one entry
per candidate sentence, higher = likelier). It answers every probe whose meta lists its options' ids
(SCORED_IDS_KEY) when the file scores all of them: the reply is the best-scored option's letter and its usage
holds the options' scores (`option_scores`, display order), which the kind's reader reads as the model's
scores. Ids the suite does not hold (the other task's) are skipped and counted; a probe with some but not all
of its ids scored, a score that is not a number, or a file matching no probe, is a problem.

Strict, as sheets are: the whole file is checked before anything is written, and any problem (a line that is
not a JSON object, an unknown id, an id seen before, a line without a reply) is named with its line number and
nothing is imported. A file may answer only part of a suite (some categories): the run holds the probes it
answers. Importing again into the same run adds new lines, skips the same reply again, and refuses a different
reply unless `replace`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.records import Probe

#: the Probe.meta key a generator sets to the item's upstream id
UPSTREAM_ID_KEY = "upstream_id"
#: the Probe.meta key listing the ids of a probe's options, in display order, by which a scores file answers it
SCORED_IDS_KEY = "scored_ids"
MAX_PROBLEMS_SHOWN = 15


@dataclass(frozen=True, slots=True)
class Prediction:
    line: int  # 1-based line of the file
    id: str
    reply: str
    usage: dict[str, Any] = field(default_factory=dict)  # recorded with the reply (a scores file's scores)


@dataclass
class PredictionsPlan:
    """What an import would do: the (line, probe, reply) to record, what is skipped, and the problems."""

    accepted: list[tuple[Prediction, Probe]] = field(default_factory=list)
    already: int = 0
    problems: list[str] = field(default_factory=list)
    skipped_ids: int = 0  # a scores file's ids that no probe of the suite lists


def upstream_id(probe: Probe) -> str:
    """The id a predictions line names this probe by: its upstream id, else its harness probe id."""
    value = probe.meta.get(UPSTREAM_ID_KEY)
    return str(value) if value not in (None, "") else probe.id


def read_predictions(path: Path) -> tuple[list[Prediction], list[str]]:
    """Every line of a predictions file, and the problems of the lines that are not predictions."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise HarnessError(f"{path} is not UTF-8 text; save the predictions as UTF-8 JSON lines.") from None
    except OSError as exc:
        raise HarnessError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    out: list[Prediction] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            problems.append(f"line {number} is not JSON ({exc.msg})")
            continue
        if not isinstance(obj, dict):
            problems.append(f"line {number} is not a JSON object with an id and a reply")
            continue
        raw_id = obj.get("id")
        if isinstance(raw_id, bool) or not isinstance(raw_id, str | int) or not str(raw_id).strip():
            problems.append(f"line {number} has no id")
            continue
        reply = obj.get("reply")
        if not isinstance(reply, str) or not reply.strip():
            problems.append(f"line {number} (id {str(raw_id)!r}) has no reply")
            continue
        out.append(Prediction(number, str(raw_id).strip(), reply.replace("\r\n", "\n").strip()))
    return out, problems


def read_scores(text: str) -> dict[str, Any] | None:
    """A scores file's id -> score (module docstring), or None when the text is not one JSON object of lists."""
    try:
        obj = json.loads(text)
    except ValueError:
        return None
    if not isinstance(obj, dict) or not obj or not all(isinstance(v, list) for v in obj.values()):
        return None
    return {str(e.get("id")): e.get("score") for v in obj.values() for e in v if isinstance(e, dict)}


def plan_scores(scores: dict[str, Any], probes: Iterable[Probe], existing: dict[str, str], *,
                replace: bool = False) -> PredictionsPlan:
    """Every probe whose options' ids the file scores, answered by its best-scored option (module docstring)."""
    plan, used = PredictionsPlan(), set()
    for probe in probes:
        ids = probe.meta.get(SCORED_IDS_KEY)
        if not isinstance(ids, list) or not ids:
            continue
        found = [i for i in ids if str(i) in scores]
        if not found:
            continue
        values = [scores.get(str(i)) for i in ids]
        used.update(found)
        if len(found) < len(ids) or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
            plan.problems.append(f"line 1: probe {probe.id} ({upstream_id(probe)}) has {len(found)} of its "
                                 f"{len(ids)} option ids scored, or a score that is not a number")
            continue
        best = max(range(len(values)), key=lambda i: (values[i], -i))
        reply = "ABCDEFGHIJ"[best] if best < 10 else str(best)
        old = existing.get(probe.id)
        if old is not None and old.strip() == reply:
            plan.already += 1
            continue
        if old is not None and not replace:
            plan.problems.append(f"line 1: probe {probe.id} already has a different reply in this run; use "
                                 "--replace to record the new one")
            continue
        plan.accepted.append((Prediction(1, upstream_id(probe), reply, {"option_scores": [float(v) for v in values]}),
                              probe))
    plan.skipped_ids = len(set(scores) - used)
    if not plan.accepted and not plan.already and not plan.problems:
        plan.problems.append("line 1: no id of the file is an option id of the suite's probes")
    return plan


def plan_predictions(predictions: Sequence[Prediction], probes: Iterable[Probe], existing: dict[str, str], *,
                     suite: str, replace: bool = False) -> PredictionsPlan:
    """Match every prediction to its probe by upstream id, against the replies already recorded."""
    plan = PredictionsPlan()
    by_id: dict[str, list[Probe]] = {}
    for probe in probes:
        by_id.setdefault(upstream_id(probe), []).append(probe)
    seen: dict[str, int] = {}
    for pred in predictions:
        matches = by_id.get(pred.id, [])
        if not matches:
            plan.problems.append(f"line {pred.line}: unknown id {pred.id!r} (no item of suite '{suite}' has it)")
            continue
        if len(matches) > 1:
            plan.problems.append(f"line {pred.line}: id {pred.id!r} names {len(matches)} probes of suite '{suite}' "
                                 "(one question in several orders?), so the reply cannot be placed")
            continue
        if pred.id in seen:
            plan.problems.append(f"line {pred.line}: id {pred.id!r} appears again (first on line {seen[pred.id]})")
            continue
        seen[pred.id] = pred.line
        probe = matches[0]
        old = existing.get(probe.id)
        if old is not None:
            if old.strip() == pred.reply:
                plan.already += 1
                continue
            if not replace:
                plan.problems.append(f"line {pred.line}: id {pred.id!r} already has a different reply in this run; "
                                     "use --replace to record the new one")
                continue
        plan.accepted.append((pred, probe))
    return plan


def _refuse(path: Path, problems: Sequence[str]) -> HarnessError:
    shown = list(problems[:MAX_PROBLEMS_SHOWN])
    more = len(problems) - len(shown)
    detail = "; ".join(shown) + (f"; and {more} more" if more > 0 else "")
    return HarnessError(f"Nothing imported from {path.name}: {len(problems)} problem(s): {detail}.")


def import_predictions(path: Path, suite: str, target: str, *, run_id: str | None = None,
                       replace: bool = False) -> tuple[Any, PredictionsPlan]:
    """Check the whole file, then record its replies as a run of the probes they answer (all or nothing).

    Returns (ManualRun, plan); raises HarnessError naming every problem (with its line) when any line is wrong.
    """
    from harness.human.manual import ManualRun, manual_reply
    from harness.question_gen.suites import load_suite, select_probes
    from harness.run import manifest as mf
    from harness.run.transcript import TranscriptWriter, latest_by_probe

    path = Path(path)
    predictions, problems = read_predictions(path)
    scores = read_scores(path.read_text(encoding="utf-8-sig")) if problems else None
    if scores is not None:
        predictions, problems = [], []
    elif not predictions and not problems:
        raise HarnessError(f"Nothing imported from {path.name}: it holds no predictions.")
    suite_obj = load_suite(suite)
    probes = list(select_probes(suite_obj))
    rid = run_id or mf.default_run_id(suite, target, extra="predictions")
    manifest = mf.read_manifest(mf.run_dir_for(rid))
    if manifest and manifest.get("adapter") not in ("manual", None):
        raise HarnessError(f"Run '{rid}' holds answers from the '{manifest.get('adapter')}' adapter, not imported "
                           "ones; choose another --target label or --run-id.")
    entries = latest_by_probe(mf.run_dir_for(rid) / "transcript.jsonl")
    existing = {pid: e.reply.text for pid, e in entries.items() if e.reply.ok}
    plan = (plan_scores(scores, probes, existing, replace=replace) if scores is not None
            else plan_predictions(predictions, probes, existing, suite=suite_obj.name, replace=replace))
    problems = sorted(problems + plan.problems, key=lambda p: int(p.split()[1].rstrip(":")))
    if problems:
        raise _refuse(path, problems)
    held = {p.id for _pred, p in plan.accepted} | set(existing)
    run_probes = [p for p in probes if p.id in held]  # the run holds the probes the file answers
    run = ManualRun.open(suite, target, run_id=rid, mode="import", probes=run_probes, suite_obj=suite_obj)
    run.manifest["settings"] = {"source": "predictions"}
    run.manifest["probes_selected"] = len(run_probes)
    run.manifest["model"] = {"name": target, "source": f"the label given with --target; predictions imported "
                                                       f"from {path.name}"}
    status = mf.STATUS_INTERRUPTED
    try:
        with TranscriptWriter(run.run_dir, fsync_every=0) as writer:
            for pred, probe in plan.accepted:
                writer.append(probe, manual_reply(probe, target, pred.reply, source="predictions",
                                                  predictions=path.name, line=pred.line,
                                                  revised=probe.id in existing, **pred.usage))
        status = mf.STATUS_COMPLETE
    finally:
        run.close(status, {"imported": len(plan.accepted), "already": plan.already, "predictions": path.name})
    return run, plan


def describe(plan: PredictionsPlan) -> list[str]:
    """Human lines for the import summary."""
    n = len(plan.accepted)
    lines = [f"imported {n} new repl{'y' if n == 1 else 'ies'} matched by upstream id"]
    if plan.already:
        lines.append(f"{plan.already} already in the run with the same text: skipped")
    if plan.skipped_ids:
        lines.append(f"{plan.skipped_ids} scored id(s) of the file name no option of this suite: skipped")
    return lines
