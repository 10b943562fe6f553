"""Review in the browser: the same labels, sample and file as `harness review`, with undo and a rescore.

Nothing here invents a second meaning of a label. The replies a person may review, the sample and its
order are harness.human.review_sample's (open_review scores the run as it was read: by the oracle alone,
or by the judge(s) its last scoring recorded, whose saved answers are reused; select_sample
draws the same stratified sample `harness review RUN --sample N --seed S` draws); a key typed in the page is
read by harness.score.review.parse_label (and the keys offered are the labels the probe's kind
declares, its ReviewSpec: harness.score.review.review_spec), so "a" is affirm, "d" deny, "2" the second
group, exactly as in the terminal; each label is one line appended to reviews.jsonl by
harness.score.review.ReviewWriter (write + flush + fsync), built by review_record, so `harness review`,
`harness report` and this page read each other's labels.

Undo never loses an earlier label. Undoing a label that replaced an earlier one appends that earlier
label again (the latest line wins, so the file keeps both). Undoing the first label of a reply removes the
line it added, and only if that line is still the last one of the file (checked under this process's lock,
byte for byte); if anything was appended after it, the undo is refused with one sentence.

A rescore (`rescore()`) is what the terminal session does at its end: score_run with the person's labels,
reusing the verdicts of the sample's scoring and its reader (the oracle runs once per review, a judge-read
run keeps its judge), then write_report
rewrites verdicts.csv, metrics.json, the figures and report.html. It returns each headline metric before and
after, so the page can show what the labels changed.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import HarnessError
from harness.core.records import Probe
from harness.human.review_sample import DEFAULT_SAMPLE, open_review, recorded_reader, select_sample
from harness.run.transcript import TRANSCRIPT_FILE
from harness.score.corrected import ALL_KEY as CORRECTED_ALL
from harness.score.review import (
    ReviewItem,
    ReviewWriter,
    describe_label,
    parse_label,
    read_reviews,
    reply_sha,
    review_record,
    review_spec,
    reviews_path,
)
from harness.view.folder import RunFolder, headline, stamp

#: The run's and the review's own numbers whose change a rescore reports, after the families' (changed_keys).
REVIEW_KEYS: tuple[tuple[str, str], ...] = (
    ("refusal_rate", "Refusal rate"),
    ("unknown_rate", "Unreadable replies"),
    ("oracle_agreement", "Oracle agrees with your review"),
    ("oracle_agreement_weighted", "Oracle agreement, weighted to the run"),
    (CORRECTED_ALL, "Bias rate corrected by your review"),
)


@dataclass
class _Undo:
    probe_id: str
    previous: dict[str, Any] | None  # the label this one replaced (None: the reply had none)
    offset: int  # reviews.jsonl's size before the line was appended
    line: bytes = b""


@dataclass
class _Scoring:
    version: Any
    result: Any
    items: dict[str, ReviewItem] = field(default_factory=dict)
    ordered: list[ReviewItem] = field(default_factory=list)


class ReviewBridge:
    """The review of one run folder from the browser (module docstring). One per run per server."""

    def __init__(self, run_dir: Path) -> None:
        self.run_dir = Path(run_dir)
        self._lock = threading.RLock()
        self._scoring: _Scoring | None = None
        self._undo: list[_Undo] = []

    def _scored(self) -> _Scoring:
        """The scoring the sample is drawn from (the run's own reader, reviews not applied), computed again
        only when the transcript changes."""
        version = stamp(self.run_dir / TRANSCRIPT_FILE)
        with self._lock:
            if self._scoring is None or self._scoring.version != version:
                _run_dir, result, items = open_review(self.run_dir, method=self._method(),
                                                      compat=self._compat(),
                                                      reader=recorded_reader(self.run_dir))
                self._scoring = _Scoring(version, result, {it.probe.id: it for it in items}, items)
            return self._scoring

    def _last_run(self) -> dict[str, Any]:
        return ((RunFolder.metrics_doc(self.run_dir) or {}).get("run") or {})

    def _method(self) -> str:
        return str(self._last_run().get("method") or "default")

    def _compat(self) -> bool:
        return bool(self._last_run().get("compat"))

    # --- the queue ----------------------------------------------------------------------------------------
    def queue(self, *, sample: int = DEFAULT_SAMPLE, seed: int = 0, only: str = "all",
              probe: str | None = None) -> dict[str, Any]:
        """The sample `harness review RUN --sample N --seed S --only ONLY` reviews, each item with the
        oracle's label, the person's current one and the keys; `probe` (a finding opened on the run page)
        is put first when it is reviewable and not in the sample."""
        if only not in ("all", "biased"):
            raise HarnessError(f"only takes 'biased' or 'all', not '{only}'.")
        scored = self._scored()
        chosen = select_sample(scored.ordered, max(1, min(sample, 5000)), seed=seed, only=only)
        if probe:
            item = scored.items.get(probe)
            if item is None:
                raise HarnessError("That reply cannot be reviewed: only answered questions of a kind with "
                                   "review labels are (the same as `harness review`).")
            chosen = [item] + [it for it in chosen if it.probe.id != probe]
        done = self._done(scored)
        return {"items": [self._item(it, done.get(it.probe.id)) for it in chosen],
                "reviewed": sum(1 for it in chosen if it.probe.id in done), "method": scored.result.method,
                "can_undo": bool(self._undo)}

    def _done(self, scored: _Scoring) -> dict[str, dict[str, Any]]:
        current = {pid: reply_sha(it.reply.text) for pid, it in scored.items.items()}
        return {pid: rec for pid, rec in read_reviews(self.run_dir).items()
                if current.get(pid) == rec.get("reply_sha")}

    @staticmethod
    def _item(item: ReviewItem, rec: dict[str, Any] | None) -> dict[str, Any]:
        p, v = item.probe, item.oracle
        keys = keys_for(p)
        yours = None if rec is None else {"label": rec["label"], "favoured": rec.get("favoured"),
                                          "biased": rec.get("biased"),
                                          "text": describe_label(p, rec["label"], rec.get("favoured"))}
        return {"probe_id": p.id, "kind": p.kind, "lang": p.lang, "attribute": p.attribute,
                "groups": list(p.groups), "question": p.text, "reply": item.reply.text,
                "oracle": {"label": v.label, "favoured": v.favoured, "biased": bool(v.biased),
                           "evidence": v.evidence, "text": describe_label(p, v.label, v.favoured)},
                "yours": yours, "keys": keys}

    # --- labels -------------------------------------------------------------------------------------------
    def label(self, probe_id: str, key: str) -> dict[str, Any]:
        """Read `key` as `harness review` reads what a person types, and append the label to reviews.jsonl."""
        scored = self._scored()
        item = scored.items.get(probe_id)
        if item is None:
            raise HarnessError("That reply is not one of this run's reviewable replies (or it changed since "
                               "the page was loaded); reload the page.")
        try:
            label, favoured = parse_label(item.probe, key)
        except ValueError as exc:
            raise HarnessError(str(exc)) from None
        with self._lock:
            previous = self._done(scored).get(probe_id)
            path = reviews_path(self.run_dir)
            rec = review_record(item, label, favoured, run_id=str(scored.result.run_id), source="view")
            # the writer repairs a torn tail first, so the offset is a line end
            with ReviewWriter(self.run_dir) as writer:
                offset = path.stat().st_size
                writer.append(rec)
            with path.open("rb") as fh:
                fh.seek(offset)
                line = fh.read()
            self._undo.append(_Undo(probe_id, previous, offset, line))
        return {"saved": self._item(item, rec), "can_undo": True}

    def undo(self) -> dict[str, Any]:
        """Take back the last label this server saved (module docstring: what undo keeps)."""
        with self._lock:
            if not self._undo:
                raise HarnessError("There is no label of this page to undo.")
            last = self._undo[-1]
            scored = self._scored()
            item = scored.items.get(last.probe_id)
            path = reviews_path(self.run_dir)
            if last.previous is not None:
                if item is None:
                    raise HarnessError("The reply of the last label changed since; its label cannot be "
                                       "undone.")
                rec = dict(last.previous)
                with ReviewWriter(self.run_dir) as writer:
                    writer.append(rec | {"source": "view (undo)"})
            else:
                size = path.stat().st_size if path.exists() else 0
                with path.open("rb") as fh:
                    fh.seek(last.offset)
                    tail = fh.read()
                if size != last.offset + len(last.line) or tail != last.line:
                    raise HarnessError("Another label was saved to reviews.jsonl after this one (another "
                                       "window or `harness review`); relabel the reply instead of undoing.")
                with path.open("rb+") as fh:
                    fh.truncate(last.offset)
                    fh.flush()
                    os.fsync(fh.fileno())
                rec = None
            self._undo.pop()
        return {"probe_id": last.probe_id, "restored": None if item is None else self._item(item, rec),
                "can_undo": bool(self._undo)}

    # --- metrics ------------------------------------------------------------------------------------------
    def rescore(self) -> dict[str, Any]:
        """Score with the labels, rewrite the report files, and say which headline metrics moved."""
        from harness.report.reporting import write_report
        from harness.score.scoring import score_run

        with self._lock:
            scored = self._scored()
            before = RunFolder.metrics_doc(self.run_dir) or {}
            result = score_run(self.run_dir, method=scored.result.method, compat=scored.result.compat,
                               reuse=scored.result, reader=scored.result.reader)
            write_report(self.run_dir, result, quiet=True)
            after = RunFolder.metrics_doc(self.run_dir) or {}
        # the notes about the review (the agreement sentence, stale or invalid labels), not the oracle's own
        notes = [n for n in after.get("notes") or [] if "review" in n]
        return {"changes": changes(before, after), "notes": notes}


def keys_for(probe: Probe) -> list[dict[str, str]]:
    """The keys the page offers for this probe: one per label its kind declares (its ReviewSpec,
    harness.score.review), each that label's first key (what parse_label reads as it), the label as the
    prompt shows it, and what it saves (`value`, the verdict label, and `group` for a label that names one);
    a label that names a group is offered as one key per group, its number."""
    spec = review_spec(probe.kind)
    out = []
    for rl in spec.labels if spec is not None else ():
        if rl.picks_group:
            out += [{"key": str(i), "label": f"{rl.label} {i} ({g})", "value": rl.label, "group": g}
                    for i, g in enumerate(probe.groups, 1)]
        elif rl.keys:
            shown = rl.prompt.replace("[", "").replace("]", "") if rl.shown else rl.label
            out.append({"key": rl.keys[0], "label": shown, "value": rl.label, "group": None})
    return out


def changed_keys() -> tuple[tuple[str, str], ...]:
    """The metrics whose change a rescore reports (key, label): every number the families declare for the
    viewer (harness.metrics.Family.view_metrics: its cards and the others it lists), REVIEW_KEYS, then the
    shares the families have a review correct (Family.corrected_rates)."""
    from harness.metrics import families

    declared = [(m.key, m.label) for fam in families().values() for m in fam.view_metrics]
    corrected = [(c.key, f"Bias rate {c.what}, corrected by your review") for fam in families().values()
                 for c in fam.corrected_rates]
    return tuple(dict.fromkeys([*declared, *REVIEW_KEYS, *corrected]))


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Each changed_keys() metric present on either side: before and after as the report prints them."""
    keys = changed_keys()
    old = {m["key"]: m for m in headline(before, keys)} if before else {}
    new = {m["key"]: m for m in headline(after, keys)} if after else {}
    out = []
    for key, label in keys:
        a, b = old.get(key), new.get(key)
        if a is None and b is None:
            continue
        out.append({"key": key, "label": label, "before": a and a["text"], "after": b and b["text"],
                    "before_interval": a and a["interval"], "after_interval": b and b["interval"],
                    "changed": (a and a["value"]) != (b and b["value"])})
    return out
