"""What a person watching a run sees: a live progress bar, then a short summary.

The bar shows done/total, rate, ETA and the answered / error / cached counts, so a provider that starts
failing is visible at once rather than after 30,000 questions. It writes to stderr, leaving stdout for
the summary and report, and it switches itself off when stderr is not a terminal (CI logs stay clean).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from harness.core.display import assemble, untrusted


class RateColumn(ProgressColumn):
    """Probes per second over rich's moving window (only replies from this session count)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if not speed:
            return Text("-/s", style="progress.data.speed")
        shown = f"{speed:,.1f}/s" if speed >= 1 else f"{1 / speed:,.1f} s each"  # local CPU models are slow
        return Text(shown, style="progress.data.speed")


#: The most often the counts are handed to the live bar, in seconds (it is drawn 4 times a second).
PUSH_EVERY_S = 0.1

#: Shares of the timeout at which a probe's time is reported (once each): a machine that grows busy slows
#: every probe, and the person watching should hear it before probes start failing on the timeout.
SLOW_SHARES = (0.5, 0.8)


class RunProgress:
    """A context manager around rich.Progress; `record()` is called once per finished probe."""

    def __init__(self, total: int | None, *, already_done: int = 0, enabled: bool = True,
                 console: Console | None = None, description: str = "asking") -> None:
        self.console = console or Console(stderr=True)
        self.enabled = enabled and self.console.is_terminal
        self.answered = 0
        self.errors = 0
        self.cached = 0
        self._progress: Progress | None = None
        self._task_id: Any = None
        self._total = total
        self._already_done = already_done
        self._description = description
        self._slow_told: set[float] = set()
        self._pushed = 0.0  # when the counts were last handed to the bar (_push)

    def __enter__(self) -> RunProgress:
        if self.enabled:
            self._progress = Progress(
                TextColumn("{task.description}", style="bold", markup=False), BarColumn(), MofNCompleteColumn(),
                RateColumn(), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
                TextColumn("[green]{task.fields[answered]} ok[/] [red]{task.fields[errors]} err[/] "
                           "[dim]{task.fields[cached]} cached[/]"),
                console=self.console, refresh_per_second=4, speed_estimate_period=20,
            )
            self._progress.start()
            self._task_id = self._progress.add_task(
                self._description, total=self._total, completed=self._already_done,
                answered=0, errors=0, cached=0)
        return self

    def record(self, *, ok: bool, cached: bool = False, latency_s: float | None = None,
               timeout_s: float | None = None) -> None:
        """Count one finished probe; a latency near `timeout_s` (SLOW_SHARES) is said once per share."""
        if ok and latency_s and timeout_s and not cached:  # an answer's own exchange: a refused connection,
            self._watch_latency(latency_s, timeout_s)   # or the waits between retries, are not "slow"
        if ok:
            self.answered += 1
            if cached:
                self.cached += 1
        else:
            self.errors += 1
        if self._progress is not None:
            now = time.monotonic()
            if now - self._pushed >= PUSH_EVERY_S:
                self._push(now)

    def _push(self, now: float) -> None:
        """Hand the counts to the bar. At most every PUSH_EVERY_S: the bar is drawn 4 times a second, and an
        update per reply (a lock, a speed sample, four fields) was 2% of the asking loop at c=256 (issue 38)."""
        self._pushed = now
        self._progress.update(self._task_id, completed=self._already_done + self.answered + self.errors,  # type: ignore[union-attr]
                              answered=self.answered, errors=self.errors, cached=self.cached)

    def _watch_latency(self, latency_s: float, timeout_s: float) -> None:
        share = latency_s / timeout_s
        crossed = [s for s in SLOW_SHARES if share >= s and s not in self._slow_told]
        if not crossed:
            return
        self._slow_told.update(crossed)
        self.note(f"slow: a probe took {latency_s:,.1f} s, {share:.0%} of the {timeout_s:g} s timeout; one that "
                  "reaches it is recorded as an error. Is the machine busy? (--timeout raises the limit; a local "
                  "model's n_threads: docs/targets.md)")

    def note(self, text: str) -> None:
        """One line for the person watching (e.g. "stopping: ..."), above the live bar when there is one.

        Printed even when the bar is off (CI, --no-progress): whoever pressed Ctrl-C must see it was heard.
        """
        (self._progress.console if self._progress is not None else self.console).print(
            text, highlight=False, markup=False, soft_wrap=True)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._push(time.monotonic())  # the last counts, drawn once more as the bar stops
            self._progress.stop()


@dataclass
class SessionStats:
    """Counts for one invocation of the engine (what this session asked), plus the whole run's state."""

    asked: int = 0
    answered: int = 0
    errors: int = 0
    cached: int = 0
    skipped: int = 0  # already answered (or errored, unless --retry-errors) in an earlier session
    cut: int = 0  # answered, but the target stopped at its token limit (Reply.was_cut: maybe mid-sentence)
    error_reasons: Counter[str] = field(default_factory=Counter)
    elapsed_s: float = 0.0  # the engine's asking time (what benchmarks/run_throughput.py measures)
    cpu_s: float = 0.0
    session_s: float = 0.0  # the whole session, setup and the wait after Ctrl-C included (the summary's time)

    @property
    def rate(self) -> float:
        return self.asked / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"asked": self.asked, "answered": self.answered, "errors": self.errors,
                "cached": self.cached, "skipped": self.skipped, "cut": self.cut,
                "error_reasons": dict(self.error_reasons.most_common()),
                "elapsed_s": round(self.elapsed_s, 3), "session_s": round(self.session_s, 3),
                "rate_per_s": round(self.rate, 2)}


def headline(status: str, run_counts: dict[str, Any]) -> str:
    """The summary's first word: a run that finished with errors is not "complete" (a run with 47% errors said
    so on its first line); its errors are asked again by --retry-errors."""
    errors = int(run_counts.get("errors") or 0)
    if status == "complete" and errors:
        return f"complete with {errors:,} error{'' if errors == 1 else 's'}"
    return status


def print_summary(console: Console, *, run_id: str, run_dir: str, status: str, stats: SessionStats,
                  run_counts: dict[str, Any], resume_command: str | None = None, max_reasons: int = 8,
                  damaged: list[str] | None = None, killed_sessions: int = 0) -> None:
    """The end-of-run summary: this session's numbers, the run's totals, errors by reason, next step.

    `damaged` names the transcript lines no reader could use (transcript.DamagedLine.describe), all of
    them: a skipped answer must never go unmentioned. `killed_sessions`: earlier sessions found dead.
    """
    style = {"complete": "yellow" if run_counts.get("errors") else "green", "interrupted": "yellow"}.get(status, "red")
    # Names, reasons and paths are Text (harness.core.display): an error reason is a server's words.
    console.print(assemble((f"run {run_id}", "bold"), ": ", (headline(status, run_counts), style)), soft_wrap=True)
    table = Table(show_header=False, box=None)
    table.add_column(style="bold", no_wrap=True)
    table.add_column(justify="right", overflow="fold")
    table.add_row("asked now", f"{stats.asked:,}")
    table.add_row("answered", f"{stats.answered:,}" + (f" ({stats.cached:,} from cache)" if stats.cached else ""))
    table.add_row("errors", f"{stats.errors:,}")
    if stats.cut:  # a reply cut mid-sentence is scored as it is: say how many (issue 36)
        table.add_row("cut at max_tokens", f"{stats.cut:,}")
    if stats.skipped:
        table.add_row("already done", f"{stats.skipped:,}")
    # The session's wall-clock time, as the person waited it (setup and the wait after Ctrl-C included), and
    # the pace over that same interval (issue 38: "9.6 s (515 probes/s)" divided two different timings).
    shown = max(stats.session_s, stats.elapsed_s)
    per_s = stats.asked / shown if shown > 0 else 0.0
    pace = (f"{per_s:,.1f} probes/s" if per_s >= 1 or not stats.asked else f"{shown / stats.asked:,.1f} s per probe")
    table.add_row("time", f"{shown:,.1f} s ({pace})")
    table.add_row("run total",
                  f"{run_counts.get('answered', 0):,} answered, {run_counts.get('errors', 0):,} errors"
                  + (f", {run_counts['pending']:,} not asked yet" if run_counts.get("pending") else ""))
    console.print(table)
    console.print(assemble("folder: ", run_dir), soft_wrap=True)  # whole, never cut, for copy-paste
    if stats.error_reasons:
        reasons = Table(title="errors by reason", title_justify="left", box=None)
        reasons.add_column("count", justify="right")
        reasons.add_column("reason", overflow="fold")
        for reason, n in stats.error_reasons.most_common(max_reasons):
            reasons.add_row(f"{n:,}", untrusted(reason))
        rest = len(stats.error_reasons) - max_reasons
        if rest > 0:
            reasons.add_row("", f"... and {rest} other reasons (see transcript.jsonl)")
        console.print(reasons)
    if killed_sessions:
        console.print(untrusted(f"note: {killed_sessions} earlier session(s) of this run had died without closing "
                                "(kill -9 or a crash); marked \"killed\" in manifest.json.", "yellow"))
    if damaged:
        console.print(untrusted(f"transcript.jsonl: {len(damaged)} damaged line(s)", "bold yellow"))
        for line in damaged:
            console.print(untrusted(f"  {line}", "yellow"), soft_wrap=True)
    if resume_command:
        console.print(assemble("resume with: ", (resume_command, "bold")), soft_wrap=True)
