"""Carrying out a run plan: open the run folder, ask what is still open, record every outcome.

`run_suite` is the public entry point (the command line, the pytest plugin and fairness files call it):
it plans the run (harness.run.plan) and executes the plan here. Execution holds the run-folder lock,
checks the folder belongs to this suite, target and settings, opens a manifest session, streams the probes
the transcript does not already settle into the engine (harness.run.engine), and closes the session with
the run's counts whatever happened: complete, interrupted, failed or killed mid-way.
"""

from __future__ import annotations

import errno
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter
from harness.core.errors import HarnessError, InfrastructureError
from harness.core.records import Probe
from harness.run import manifest as mf
from harness.run import suite_content
from harness.run.answer_modes import answer_mode as registered_mode
from harness.run.engine import Engine, EngineSettings, RunAborted
from harness.run.plan import ANSWER_GENERATE, RunPlan, plan_run, select_any
from harness.run.progress import RunProgress, SessionStats
from harness.run.response_cache import ResponseCache
from harness.run.session import StopState, closing, run_lock, run_loop, with_heartbeat, with_signals
from harness.run.suite_content import SuiteContent
from harness.run.transcript import (
    TRANSCRIPT_FILE,
    UNFINISHED,
    DamagedLine,
    TranscriptWriter,
    keep_rejected,
    partial_turns,
    read_entries,
    repair,
    settled_ids,
)

MODE_FRESH = "fresh"
MODE_RESUME = "resume"
MODE_RETRY_ERRORS = "retry-errors"


def scan_transcript(path: Path, damaged: list[DamagedLine] | None = None) -> tuple[set[str], set[str]]:
    """Probe ids settled as answered, and as errored (transcript.settled_ids; damaged lines to `damaged`)."""
    return settled_ids(path, damaged)


def errored_probes(path: Path) -> list[Probe]:
    """Probes whose latest outcome in the transcript is an error (what --retry-errors asks again)."""
    pending: dict[str, Probe] = {}
    answered: set[str] = set()
    for entry in read_entries(path):
        pid = entry.probe.id
        if entry.reply.ok:
            answered.add(pid)
            pending.pop(pid, None)
        elif pid not in answered:
            pending[pid] = entry.probe
    return list(pending.values())


def _run_counts(ok: set[str], err: set[str], selected: int | None) -> dict[str, Any]:
    counts: dict[str, Any] = {"answered": len(ok), "errors": len(err)}
    if selected is not None:
        counts["selected"] = selected
        counts["pending"] = max(0, selected - len(ok) - len(err))
    return counts


def current_counts(run_dir: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """The run's counts as its transcript says now, for `harness runs`, plus "damaged" (unusable lines).

    The manifest's counts are trusted only when the transcript is the size they were written for; a run
    killed between two heartbeats (or resumed by a version that did not record the size) is counted from
    its transcript: a killed run showed 362 answered against 710 on disk.
    """
    path = Path(run_dir) / TRANSCRIPT_FILE
    size = path.stat().st_size if path.exists() else 0
    stored = manifest.get("counts") or {}
    if stored and manifest.get("transcript_bytes") == size:
        return {**stored, "damaged": len(manifest.get("damaged_lines") or [])}
    damaged: list[DamagedLine] = []
    ok, err = settled_ids(path, damaged)
    keep_rejected(path, damaged)  # so "kept in transcript.rejected.jsonl" is true whoever saw them first
    selected = manifest.get("probes_selected")
    counts = _run_counts(ok, err, selected if isinstance(selected, int) else None)
    counts["damaged"] = sum(1 for d in damaged if d.reason != UNFINISHED)
    return counts


def _filtered(probes: Iterable[Probe], *, ok: set[str], err: set[str], retry_errors: bool,
              counter: dict[str, int]) -> Iterator[Probe]:
    """Only the probes this session must ask; counts every probe seen (the exact selection size)."""
    claimed: set[str] = set()
    for probe in probes:
        counter["seen"] += 1
        pid = probe.id
        if pid in claimed:
            continue  # a duplicate in the stream is asked once
        # --retry-errors asks only probes whose latest outcome is an error; otherwise only unsettled ones.
        if (pid not in err) if retry_errors else (pid in ok or pid in err):
            counter["skipped"] += 1
            continue
        claimed.add(pid)
        yield probe
    counter["exhausted"] = 1


@dataclass
class RunOutcome:
    """What run_suite did: the run folder, this session's numbers and the whole run's state."""

    run_id: str
    run_dir: Path
    status: str  # manifest status: complete / interrupted / failed
    mode: str
    stats: SessionStats
    run_counts: dict[str, Any]
    abort_reason: str | None = None
    #: Lines of transcript.jsonl no reader could use, described for the summary ("line 15: not JSON,
    #: skipped; it is kept in transcript.rejected.jsonl"); a torn last line cut on opening is among them.
    damaged: list[str] = field(default_factory=list)
    #: Earlier sessions found still "running" (their process died) and marked killed on opening.
    killed_sessions: int = 0
    #: A second Ctrl-C stopped the session at once; threads it abandoned (a local model mid-reply) may
    #: still be running, and the caller should exit without waiting for them (harness.cli.run does).
    stopped_at_once: bool = False

    @property
    def transcript_path(self) -> Path:
        return self.run_dir / TRANSCRIPT_FILE

    @property
    def interrupted(self) -> bool:
        return self.status == mf.STATUS_INTERRUPTED

    @property
    def error_rate(self) -> float:
        done = self.run_counts.get("answered", 0) + self.run_counts.get("errors", 0)
        return self.run_counts.get("errors", 0) / done if done else 0.0


def run_suite(suite: Any = None, target: str | Adapter | None = None, *, probes: Iterable[Probe] | None = None,
              sample: int | None = None, seed: int = 0, limit: int | None = None,
              overrides: dict[str, Any] | None = None, run_id: str | None = None, new: bool = False,
              resume: str | None = None, retry_errors: bool = False, engine: EngineSettings | None = None,
              engine_overrides: dict[str, Any] | None = None, target_overrides: dict[str, Any] | None = None,
              use_cache: bool = True, cache_path: Path | None = None, show_progress: bool = True,
              answer_mode: str = ANSWER_GENERATE, argv: list[str] | None = None,
              console: Any = None) -> RunOutcome:
    """Ask a suite's selected probes of a target; write transcripts/<run-id>/{manifest.json,transcript.jsonl}.

    suite: a suite name, a YAML path or a Suite object; or pass `probes` directly (any iterable of Probe;
        then `suite` is only the name recorded in the manifest).
    target: a target name from targets.toml / presets, or a ready Adapter instance.
    run_id: defaults to one derived from suite + target + selection, so the same command resumes the
        same run; `new=True` starts a fresh run under a timestamped id. `resume=RUN` continues an existing
        run with the selection stored in its manifest. `retry_errors=True` re-asks only errored probes.
    engine / engine_overrides: EngineSettings, or field overrides on top of the target's defaults
        (concurrency, rpm, timeout_s from targets.toml) and EngineSettings' defaults.

    Returns a RunOutcome; raises HarnessError for user mistakes. Ctrl-C / SIGTERM end the session with
    status "interrupted" (nothing answered is lost): the first lets the replies in flight finish and be
    recorded, a second stops at once. Scoring is not done here (see harness.cli.run).
    """
    started = time.monotonic()  # the summary's time is the whole session: setup, asking, stopping
    plan = plan_run(suite, target, has_probes=probes is not None, sample=sample, seed=seed, limit=limit,
                    overrides=overrides, run_id=run_id, new=new, resume=resume, retry_errors=retry_errors,
                    engine=engine, engine_overrides=engine_overrides, target_overrides=target_overrides,
                    answer_mode=answer_mode)
    return execute(plan, probes=probes, use_cache=use_cache, cache_path=cache_path, show_progress=show_progress,
                   argv=argv, console=console, started=started)


@dataclass
class _Opened:
    """A run session that has begun: its manifest, what the transcript already settles, and how it began."""

    manifest: dict[str, Any]
    session: dict[str, Any]
    ok: set[str]
    err: set[str]
    mode: str
    damaged: list[DamagedLine] = field(default_factory=list)
    killed_sessions: int = 0
    #: replies of turns answered in conversations a kill or an error cut short (transcript.partial_turns)
    partial: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _content(plan: RunPlan, probes: Iterable[Probe] | None) -> SuiteContent | None:
    """The fingerprint of what this run asks (harness.run.suite_content), from the suite's selection; None when
    the caller passes the probes (it owns what its folder holds, and may grow its list) or --retry-errors asks
    the errored probes of the transcript again."""
    if plan.probes_from_transcript or probes is not None or plan.suite is None:
        return None
    return suite_content.fingerprint(_probe_stream(plan, None))


def _check_content(plan: RunPlan, manifest: dict[str, Any], content: SuiteContent | None, settled: set[str]) -> None:
    """Refuse a run folder that holds another content of this suite (one sentence naming --new); a folder from
    before fingerprints were recorded is compared by its recorded probe ids, then adopted."""
    if content is None or not manifest:
        return
    before = suite_content.stored(manifest)
    gone = len(settled - content.ids)
    if (before is not None and before != content.sha256) or (before is None and gone):
        raise HarnessError(suite_content.changed_message(suite=plan.suite_name, run_id=plan.run_id,
                                                         resumed=plan.resumed, gone=gone, answered=len(settled)))


def _begin(plan: RunPlan, argv: list[str] | None, content: SuiteContent | None = None) -> _Opened:
    """Check the run folder belongs to this plan, read what is settled, and open a manifest session."""
    adapter, run_dir = plan.adapter, plan.run_dir
    manifest = plan.previous or mf.read_manifest(run_dir)
    if manifest and not plan.resumed:
        for key, mine in (("suite", plan.suite_name), ("target", plan.target.name)):
            if manifest.get(key) and manifest[key] != mine:
                raise HarnessError(f"Run folder {run_dir} belongs to {key} '{manifest[key]}'; "
                                   "pick another --run-id or use --new.")
    if manifest and manifest.get("fingerprint") and manifest["fingerprint"] != adapter.fingerprint():
        raise HarnessError(f"Target '{plan.target.name}' settings changed since run {plan.run_id} started "
                           "(model, endpoint or generation settings); use --new to start a fresh run.")
    # Under the run lock: a torn last line is cut now (its bytes kept), every damaged line is named and
    # copied to transcript.rejected.jsonl, and sessions that never ended are marked killed.
    damaged: list[DamagedLine] = []
    repair(run_dir / TRANSCRIPT_FILE, damaged)
    ok, err = scan_transcript(run_dir / TRANSCRIPT_FILE, damaged)
    keep_rejected(run_dir / TRANSCRIPT_FILE, damaged)
    _check_content(plan, manifest, content, ok | err)
    killed = mf.close_dead_sessions(manifest) if manifest else 0
    mode = MODE_RETRY_ERRORS if plan.retry_errors else (MODE_RESUME if ok or err else MODE_FRESH)
    command = mf.command_line(argv, plan.target.secrets)
    if not manifest:
        manifest = mf.new_manifest(
            run_id=plan.run_id, suite=plan.suite_name, target=plan.target.name, adapter=adapter.kind,
            settings=adapter.public_settings(), lang=getattr(plan.suite, "lang", ""),
            generator=getattr(plan.suite, "generator", ""), fingerprint=adapter.fingerprint(),
            sample=plan.sample, seed=plan.seed, limit=plan.limit, overrides=plan.overrides,
            answer_mode=plan.answer_mode, selected=plan.estimate, command=command)
    manifest["engine"] = asdict(plan.settings)
    if content is not None:
        manifest[suite_content.MANIFEST_KEY] = content.as_manifest()
    if getattr(plan.suite, "path", None):  # so --resume finds a suite given as a file by its path
        manifest["suite_file"] = str(Path(plan.suite.path).resolve())
    # as the model file names itself (a label can be wrong), beside the name the target gives it (shown first)
    info = adapter.model_info()
    manifest["model"] = ({**info, "label": adapter.label} if adapter.label and adapter.label != info.get("name")
                         else info)
    manifest["damaged_lines"] = [{"line": d.line, "reason": d.reason} for d in damaged]
    manifest.pop("stopped", None)  # how the last session stopped (e.g. "stopped: disk full"): this one runs now
    session = mf.begin_session(manifest, command=command, mode=mode)
    mf.write_manifest(run_dir, manifest)
    return _Opened(manifest, session, ok, err, mode, damaged, killed,
                   partial_turns(run_dir / TRANSCRIPT_FILE))


def _probe_stream(plan: RunPlan, probes: Iterable[Probe] | None) -> Iterable[Probe]:
    if plan.probes_from_transcript:
        return errored_probes(plan.run_dir / TRANSCRIPT_FILE)
    if probes is not None:
        return probes
    return select_any(plan.suite, sample=plan.sample, seed=plan.seed, limit=plan.limit, overrides=plan.overrides)


def execute(plan: RunPlan, *, probes: Iterable[Probe] | None = None, use_cache: bool = True,
            cache_path: Path | None = None, show_progress: bool = True, argv: list[str] | None = None,
            console: Any = None, started: float | None = None) -> RunOutcome:
    """Carry out a plan (see run_suite); the manifest session is closed with the run's counts whatever happens."""
    started = time.monotonic() if started is None else started
    run_dir, adapter = plan.run_dir, plan.adapter
    content = _content(plan, probes)  # before the lock: generating the selection can take a moment
    with run_lock(run_dir):
        opened = _begin(plan, argv, content)
        ok, err, manifest = opened.ok, opened.err, opened.manifest
        counter = {"seen": 0, "skipped": 0, "exhausted": 0}
        todo = _filtered(_probe_stream(plan, probes), ok=ok, err=err, retry_errors=plan.retry_errors,
                         counter=counter)
        mode = registered_mode(plan.answer_mode)  # how the probes are answered (harness.run.answer_modes)
        cache = ResponseCache(cache_path) if use_cache and mode.uses_response_cache else None
        writer = TranscriptWriter(run_dir)
        total, already = plan.estimate, len(ok) + (0 if plan.retry_errors else len(err))
        if plan.retry_errors:
            total, already = len(err), 0
        progress = RunProgress(total, already_done=already, enabled=show_progress, console=console)
        engine_obj = Engine(adapter, writer, settings=plan.settings, cache=cache, progress=progress,
                            secrets=plan.target.secrets, partial=opened.partial)
        status, abort_reason, stop = mf.STATUS_COMPLETE, None, StopState()
        write_error: OSError | None = None

        def checkpoint() -> None:
            """Keep the manifest's counts current, so `harness runs` shows a live or killed run truly."""
            answered = ok | engine_obj.settled_ok
            manifest["counts"] = _run_counts(answered, (err | engine_obj.settled_error) - answered,
                                             manifest.get("probes_selected"))
            manifest["transcript_bytes"] = writer.size()  # what `harness runs` checks the counts against
            mf.write_manifest(run_dir, manifest)

        try:
            with progress:
                coro = with_heartbeat(mode.run(todo, adapter, engine_obj), checkpoint)
                _, interrupted = run_loop(
                    with_signals(closing(coro, adapter if plan.owns_adapter else None),
                                 on_stop=engine_obj.request_stop, notify=progress.note, state=stop),
                    abandon=lambda: stop.hard)
            if interrupted:
                status = mf.STATUS_INTERRUPTED
        except RunAborted as exc:
            status, abort_reason = mf.STATUS_FAILED, str(exc)
        except HarnessError:
            status = mf.STATUS_FAILED
            raise
        except OSError as exc:  # the transcript could not be written (disk full, folder removed...)
            status, write_error = mf.STATUS_INTERRUPTED, exc
            raise InfrastructureError(cannot_write(run_dir, exc, plan.run_id, engine_obj.write_unwritten())) from None
        except BaseException:
            status = mf.STATUS_INTERRUPTED
            raise
        finally:
            stats, run_counts, status, late = _end(plan, opened, engine_obj, counter, writer, cache, status=status,
                                                   abort_reason=abort_reason, started=started, failed=write_error)
        if late is not None:  # the session's end could not be written (the disk filled as it ended)
            raise InfrastructureError(cannot_write(run_dir, late, plan.run_id, 0)) from None
        return RunOutcome(run_id=plan.run_id, run_dir=run_dir, status=status, mode=opened.mode, stats=stats,
                          run_counts=run_counts, abort_reason=abort_reason, stopped_at_once=stop.hard,
                          damaged=[d.describe() for d in opened.damaged], killed_sessions=opened.killed_sessions)


def cannot_write(run_dir: Path, exc: OSError, run_id: str, unwritten: int) -> str:
    """The one sentence for a run folder that cannot be written: the cause, what is kept, and `--resume`."""
    cause = "the disk is full" if exc.errno in (errno.ENOSPC, errno.EDQUOT) else (exc.strerror or str(exc))
    lost = (f"; {unwritten:,} repl{'y' if unwritten == 1 else 'ies'} received after that could not be recorded "
            "and will be asked again") if unwritten else ""
    return (f"Cannot write to {run_dir}: {cause}{lost}. Every line recorded before is kept whole; free some space "
            f"(or fix the folder), then rerun with `harness run --resume {run_id}`.")


def _end(plan: RunPlan, opened: _Opened, engine_obj: Engine, counter: dict[str, int], writer: TranscriptWriter,
         cache: ResponseCache | None, *, status: str, abort_reason: str | None, started: float,
         failed: OSError | None) -> tuple[SessionStats, dict[str, Any], str, OSError | None]:
    """Close the transcript and the cache and end the manifest session, whatever happened; a write that fails
    here is returned, not raised, so it never hides the error that ended the session (a full disk's first
    failed line said "No space left on device." from the manifest write instead of naming `--resume`)."""
    late: OSError | None = None
    for close in (writer.close, cache.close if cache is not None else None):
        try:
            if close is not None:
                close()
        except OSError as exc:
            late = late or exc
    if failed is not None:  # said in the manifest, so `harness runs` and a resume tell what happened
        reason = "disk full" if failed.errno in (errno.ENOSPC, errno.EDQUOT) else (failed.strerror or str(failed))
        opened.session["stopped"] = opened.manifest["stopped"] = f"stopped: {reason}"
    try:
        stats, run_counts, status = _close_session(plan, opened, engine_obj, counter, status=status,
                                                   abort_reason=abort_reason, started=started)
    except OSError as exc:
        late = late or exc
        stats, run_counts = engine_obj.stats, dict(opened.manifest.get("counts") or {})
    return stats, run_counts, status, None if failed is not None else late


def _close_session(plan: RunPlan, opened: _Opened, engine_obj: Engine, counter: dict[str, int], *, status: str,
                   abort_reason: str | None, started: float) -> tuple[SessionStats, dict[str, Any], str]:
    """End the manifest session with this session's and the whole run's counts; returns the final status."""
    manifest = opened.manifest
    stats = engine_obj.stats
    stats.skipped = counter["skipped"]
    stats.session_s = time.monotonic() - started
    final_ok = opened.ok | engine_obj.settled_ok
    final_err = (opened.err | engine_obj.settled_error) - final_ok
    whole_selection = counter["exhausted"] and not plan.retry_errors  # retry mode sees only the errored
    selected = counter["seen"] if whole_selection else manifest.get("probes_selected")
    if whole_selection:
        manifest["probes_selected"] = selected
    run_counts = _run_counts(final_ok, final_err, selected)
    if status == mf.STATUS_COMPLETE and run_counts.get("pending"):
        status = mf.STATUS_INCOMPLETE  # e.g. --retry-errors on a run that was never finished
    if abort_reason:
        manifest["abort_reason"] = abort_reason
    mf.end_session(manifest, opened.session, status=status, session_counts=stats.as_dict(), run_counts=run_counts)
    transcript = plan.run_dir / TRANSCRIPT_FILE
    manifest["transcript_bytes"] = transcript.stat().st_size if transcript.exists() else 0
    mf.write_manifest(plan.run_dir, manifest)
    return stats, run_counts, status
