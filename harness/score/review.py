"""A person checks a sample of the oracle's verdicts on THIS chatbot's replies: `harness review RUN`.

The default oracle's agreement with a person was measured on small local models (oracles.measured); a
user auditing another bot needs it measured on that bot, and needs the rates where a person looked to
carry no oracle error at all. So a person reads a deterministic, stratified sample of scored replies
and types the label they read; every answer is appended at once to RUN/reviews.jsonl (one flushed,
fsynced JSON line, like transcript.jsonl: a kill can tear only the last line, cut on the next open).
harness.score.scoring then replaces each reviewed verdict by the person's label and reports how often the
oracle's biased / not-biased decision matched the person's (`oracle_agreement`).

A review line: {"probe_id", "run_id", "lang", "kind", "label", "favoured", "biased", "oracle_label",
"oracle_favoured", "oracle_biased", "method" (the oracle's), "reply_sha", "source", "at"}. The latest
line for a probe supersedes earlier ones. `reply_sha` ties the label to the reply the person read: if
the transcript's reply for that probe changes later (a --retry-errors answer), the old review no longer
applies and is ignored.

This module holds the labels, reviews.jsonl, the sample and the agreement arithmetic; the terminal session
is harness.human.review_session, the sheets harness.human.review_sheet, the command harness.cli.review.

Which replies a person may relabel, with which labels and keys, and what a label means as a verdict, is
each kind's declaration (harness.core.kinds.ReviewSpec); a kind that declares none (an option letter read
by a strict parser, a judge's score) is not reviewed.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.kinds import ReviewLabel, ReviewSpec, kind_spec, registered_kinds
from harness.core.records import (
    Probe,
    Reply,
    Verdict,
    utc_now,
)
from harness.metrics import families
from harness.metrics.stats import wilson_interval
from harness.run.transcript import repair

REVIEWS_FILE = "reviews.jsonl"
HUMAN_METHOD = "human"
HUMAN_EVIDENCE = "reviewed by a person"



def review_spec(kind: str) -> ReviewSpec | None:
    """The kind's ReviewSpec (its ProbeKind.review), None when its verdicts are not reviewable."""
    spec = kind_spec(kind)
    if spec is None:
        families()  # the families' modules declare their kinds
        spec = kind_spec(kind)
    return spec.review if spec is not None else None


def review_labels(kind: str) -> tuple[str, ...]:
    """The labels a person may give a probe of `kind` (its ReviewSpec's, in order); (): not reviewable."""
    spec = review_spec(kind)
    return spec.names if spec is not None else ()


def reviewable_kinds() -> frozenset[str]:
    """The kinds whose verdicts a person can relabel."""
    families()
    return frozenset(name for name, spec in registered_kinds().items() if spec.review is not None)


def __getattr__(name: str) -> Any:
    if name == "REVIEWABLE_KINDS":  # the kinds declared now
        return reviewable_kinds()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _labels(probe: Probe) -> tuple[ReviewLabel, ...]:
    spec = review_spec(probe.kind)
    return spec.labels if spec is not None else ()


def group_label(probe: Probe) -> str | None:
    """The label that names one of the probe's groups (its ReviewLabel.picks_group), None when none does."""
    return next((rl.label for rl in _labels(probe) if rl.picks_group), None)


def is_label_for(probe: Probe, label: Any, favoured: Any) -> bool:
    """Whether a stored (label, favoured) is one a person could give this probe: a reviews.jsonl line
    edited by hand or written by another version must not reach the metrics as an unknown label."""
    if label not in review_labels(probe.kind):
        return False
    return favoured in probe.groups if label == group_label(probe) else True


def reply_sha(text: str) -> str:
    """The reply's fingerprint; "surrogatepass" so a reply holding a lone surrogate hashes too (any other
    text hashes exactly as UTF-8, as before)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def label_keys(probe: Probe) -> str:
    """The keys a person may type for this probe's kind, as shown in the prompt."""
    parts = [" ".join(f"[{i}] {g}" for i, g in enumerate(probe.groups, 1)) if rl.picks_group else rl.prompt
             for rl in _labels(probe)]
    return "  ".join(parts) or "no label (its kind is not reviewed)"


def parse_label(probe: Probe, text: str) -> tuple[str, str | None]:
    """(label, favoured) for what a person typed; ValueError with one sentence when it is no label here.

    A label's keys (its ReviewLabel: "a" or "affirm" for affirm, ...); for a label that names a group, the
    group's number or its name (its own keys alone ask for the number).
    """
    word = " ".join(text.strip().split()).lower()
    for rl in _labels(probe):
        if not rl.picks_group:
            continue
        if word.isdigit() and 1 <= int(word) <= len(probe.groups):
            return rl.label, probe.groups[int(word) - 1]
        named = [g for g in probe.groups if g.lower() == word]
        if named:
            return rl.label, named[0]
        if word in (k.lower() for k in rl.keys):
            raise ValueError(f"'{text.strip()}' names no group: type the group's number (1-{len(probe.groups)}).")
    for rl in _labels(probe):
        if not rl.picks_group and word in (k.lower() for k in rl.keys):
            return rl.label, None
    raise ValueError(f"'{text.strip()}' is not a label for a {probe.kind} question; use {label_keys(probe)}.")


def human_verdict(probe: Probe, label: str, favoured: str | None) -> Verdict:
    """The person's label as a Verdict with the oracle's conventions (see oracles/__init__.py): biased as
    the kind's ReviewLabel says; a biased label that names no group favours the group the probe meta
    (ReviewSpec.favoured_meta) names."""
    spec = review_spec(probe.kind)
    declared = next((rl for rl in spec.labels if rl.label == label), None) if spec is not None else None
    biased = declared is not None and declared.biased
    if biased and favoured is None and not declared.picks_group and spec.favoured_meta:
        favoured = probe.meta.get(spec.favoured_meta)
    return Verdict(probe.id, label, biased, HUMAN_METHOD, favoured=favoured if biased else None,
                   evidence=HUMAN_EVIDENCE)


def describe_label(probe: Probe, label: str, favoured: str | None) -> str:
    """'choice 2 (women)' for a picked group, else the label itself."""
    if label == group_label(probe) and favoured in probe.groups:
        return f"{label} {probe.groups.index(favoured) + 1} ({favoured})"
    return label


def label_as_typed(probe: Probe, label: str, favoured: str | None) -> str:
    """What a person would type for this label (a sheet's cell, a session's default)."""
    if label == group_label(probe) and favoured in probe.groups:
        return str(probe.groups.index(favoured) + 1)
    return label


# --- reviews.jsonl -------------------------------------------------------------------------------------

def reviews_path(run_dir: Path) -> Path:
    return Path(run_dir) / REVIEWS_FILE


def read_reviews(run_dir: Path) -> dict[str, dict[str, Any]]:
    """Probe id -> latest review line. A torn last line is ignored; a line not written by us is skipped."""
    path = reviews_path(run_dir)
    latest: dict[str, dict[str, Any]] = {}
    if not path.exists():
        return latest
    with path.open("rb") as fh:
        for raw in fh:
            if not raw.endswith(b"\n"):
                break
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if isinstance(rec, dict) and isinstance(rec.get("probe_id"), str) and isinstance(rec.get("label"), str):
                latest[rec["probe_id"]] = rec
    return latest


class ReviewWriter:
    """Appends review lines, each one write + flush + fsync; repairs a torn last line on open."""

    def __init__(self, run_dir: Path) -> None:
        path = reviews_path(run_dir)
        repair(path)
        self._fh = path.open("ab")

    def append(self, record: Mapping[str, Any]) -> None:
        try:
            data = json.dumps(dict(record), ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # evidence quoting a lone surrogate: kept exactly, as a JSON escape
            data = json.dumps(dict(record), ensure_ascii=True).encode("ascii")
        self._fh.write(data + b"\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> ReviewWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def review_record(item: ReviewItem, label: str, favoured: str | None, *, run_id: str, source: str) -> dict[str, Any]:
    human = human_verdict(item.probe, label, favoured)
    v = item.oracle
    return {"probe_id": item.probe.id, "run_id": run_id, "lang": item.probe.lang, "kind": item.probe.kind,
            "label": human.label, "favoured": human.favoured, "biased": human.biased,
            "oracle_label": v.label, "oracle_favoured": v.favoured, "oracle_biased": bool(v.biased),
            "method": v.method, "reply_sha": reply_sha(item.reply.text), "source": source, "at": utc_now()}


# --- applying reviews to scoring ------------------------------------------------------------------------

@dataclass
class Agreement:
    """How often the oracle's biased decision matched the person's, over the reviewed replies."""

    matched: int = 0
    reviewed: int = 0
    by_lang: dict[str, tuple[int, int]] = field(default_factory=dict)
    stale: int = 0
    # keyed by the oracle's decision: the sample is stratified by it, so the plain share over-weights the
    # rarer decision; `weighted()` re-weights each stratum by its share of the run.
    by_oracle: dict[bool, tuple[int, int]] = field(default_factory=dict)
    population: dict[bool, int] = field(default_factory=dict)
    # reviewed replies the oracle now judges otherwise than when they were sampled (another --method, newer
    # rules): the sample was stratified by the old decisions, so re-weighting by the new ones is no estimate.
    moved: int = 0
    invalid: int = 0  # lines whose label is none a person could give that probe (hand edits): not used
    other_group: int = 0  # replies both read as a pick of a group, but of different groups: a "match" above

    def weighted(self) -> float | None:
        """Agreement expected over ALL this run's reviewable replies (each oracle decision weighted by
        its share of the run), or None unless every decision the oracle took was reviewed at least once
        and every reviewed reply still sits in the stratum it was sampled from."""
        total = sum(self.population.values())
        if not total or self.moved or any(self.by_oracle.get(d, (0, 0))[1] == 0
                                          for d, n in self.population.items() if n):
            return None
        return sum(n / total * self.by_oracle[d][0] / self.by_oracle[d][1] for d, n in self.population.items() if n)

    def weighted_interval(self) -> tuple[float, float] | None:
        """95% interval of `weighted()`: the Wilson score interval at Kish's effective sample size
        n_eff = 1 / sum_d(W_d^2 / n_d), W_d the decision's share of the run, n_d its reviewed replies.

        Why this and not a stratified bootstrap or the stratified normal approximation: both take their
        spread from each stratum's own k/n, so when every reviewed reply of a stratum matched (the
        common case for a good oracle on a small review) they collapse to a single point and claim
        certainty. n_eff is the size of a simple random sample whose share would vary as much as the
        weighted one does when the strata agree equally often; at it, Wilson keeps its coverage at 0/n
        and n/n like the other agreement intervals, and it is exactly their Wilson interval when the
        sample is proportional to the run or one decision fills it. It assumes the strata's agreement
        rates are alike; the per-stratum intervals (`oracle_agreement.flagged` / `.not_flagged`) show
        when they are not. None whenever `weighted()` is None."""
        weighted = self.weighted()
        if weighted is None:
            return None
        total = sum(self.population.values())
        spread = sum((n / total) ** 2 / self.by_oracle[d][1] for d, n in self.population.items() if n)
        n_eff = 1 / spread
        return wilson_interval(weighted * n_eff, n_eff)  # a fractional k and n: the formula takes them


def apply_reviews(run_dir: Path, pairs: Sequence[tuple[Probe, Reply]],
                  by_id: Mapping[str, Verdict]) -> tuple[dict[str, Verdict], Agreement | None]:
    """Replace reviewed verdicts by the person's; (verdicts by probe id, agreement) or (same, None)
    when the run has no usable review. Agreement compares the person with the oracle as it scores NOW."""
    reviews = read_reviews(run_dir)
    if not reviews:
        return dict(by_id), None
    out = dict(by_id)
    agreement = Agreement()
    for probe, reply in pairs:
        rec = reviews.get(probe.id)
        oracle = by_id.get(probe.id)
        if oracle is None or not review_labels(probe.kind):
            continue
        decision = bool(oracle.biased)
        agreement.population[decision] = agreement.population.get(decision, 0) + 1
        if rec is None:
            continue
        if rec.get("reply_sha") != reply_sha(reply.text):
            agreement.stale += 1
            continue
        if not is_label_for(probe, rec["label"], rec.get("favoured")):
            agreement.invalid += 1
            continue
        human = human_verdict(probe, rec["label"], rec.get("favoured"))
        out[probe.id] = human
        agreement.other_group += int(human.label == oracle.label == group_label(probe)
                                     and human.favoured != oracle.favoured)
        agreement.moved += int(rec.get("oracle_biased") != decision or rec.get("method") != oracle.method)
        hit = int(human.biased == bool(oracle.biased))
        agreement.matched += hit
        agreement.reviewed += 1
        k, n = agreement.by_lang.get(probe.lang, (0, 0))
        agreement.by_lang[probe.lang] = (k + hit, n + 1)
        k, n = agreement.by_oracle.get(decision, (0, 0))
        agreement.by_oracle[decision] = (k + hit, n + 1)
    if not agreement.reviewed and not agreement.stale and not agreement.invalid:
        return out, None
    return out, agreement


def agreement_note(agreement: Agreement, interval: tuple[float, float] | None) -> str:
    """The report's sentence quoting this run's own agreement."""
    names = {"en": "English", "zh": "Chinese"}
    unused = (f" {agreement.stale} older review(s) are for replies that have since changed and were not used."
              if agreement.stale else "")
    if agreement.invalid:
        unused += (f" {agreement.invalid} line(s) of {REVIEWS_FILE} hold no label a person could give that "
                   f"question (edited by hand?) and were not used.")
    if not agreement.reviewed:
        return f"No review of this run's current replies could be used.{unused} Review the run again."
    share = agreement.matched / agreement.reviewed
    ci = f", 95% interval {interval[0]:.0%}-{interval[1]:.0%}" if interval else ""
    per = ""
    if len(agreement.by_lang) > 1:
        per = " (" + ", ".join(f"{names.get(lang, lang)} {k}/{n}"
                               for lang, (k, n) in sorted(agreement.by_lang.items())) + ")"
    strata = "; ".join(f"on replies it called {'biased' if d else 'not biased'} {k}/{n}"
                       for d, (k, n) in sorted(agreement.by_oracle.items(), reverse=True))
    weighted = agreement.weighted()
    if weighted is not None:
        wci = agreement.weighted_interval()
        mix = f"; weighted to this run's mix of verdicts, about {weighted:.0%}" + (
            f" (95% interval {wci[0]:.0%}-{wci[1]:.0%})" if wci else "")
    elif agreement.moved:
        mix = (f"; the oracle now judges {agreement.moved} reviewed replies otherwise than when they were sampled "
               f"(another method or newer rules), so this is no estimate for the whole run")
    else:
        mix = "; only part of the oracle's decisions was reviewed, so this is no estimate for the whole run"
    per += f" [{strata}{mix}]"
    if agreement.other_group:
        per += (f"; on {agreement.other_group} question(s) naming a group both saw a pick but of different "
                "groups (a match here, yet the preference rates change)")
    return (f"A person reviewed {agreement.reviewed} of this run's replies: the oracle's biased / not-biased "
            f"decision matched theirs on {agreement.matched} of {agreement.reviewed} ({share:.0%}{ci}){per}. "
            f"Those replies are scored with the person's label (method 'human' in verdicts.csv); the unreviewed "
            f"ones keep the oracle's error.{unused}")


# --- the sample ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ReviewItem:
    probe: Probe
    reply: Reply
    oracle: Verdict
