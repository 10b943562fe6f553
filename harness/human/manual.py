"""Manual mode: a person asks a chatbot that has no API (a phone assistant, a web app) and types its answers.

Half the systems in the BiasAsker paper were tested this way. Two things matter more than anything else
here: a person's typing is expensive, so every reply is appended to the run's transcript the moment it
is entered (the same transcript.jsonl `harness run` writes, so scoring, reports, resume and `harness
compare` work unchanged), and the session can stop at any moment (":quit", Ctrl-C, a closed terminal)
and continue later by running the same command.

`ManualRun` is the run folder shared by the interactive session and by answer-sheet import
(harness.human.sheets): both record replies from a person under adapter "manual", and both resolve the same
run id for the same suite/target/sample/seed, so a person may mix typing and sheets.

Session commands (a line starting with ':' at the start of a reply):
  :skip  (:s)   leave this question unanswered for now (asked again next session)
  :back  (:b)   go back to the previous question and enter its reply again (the new reply supersedes)
  :show  (:r)   show the question again (and copy it again)
  :help  (:h)   list the commands
  :quit  (:q)   stop; everything entered is already saved
A reply that really starts with ':' is typed with two, e.g. '::-)'.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.rule import Rule

from harness.core.display import assemble, untrusted
from harness.core.errors import HarnessError
from harness.core.records import STATUS_PARTIAL, Probe, Reply
from harness.run import manifest as mf
from harness.run.transcript import (
    TRANSCRIPT_FILE,
    Entry,
    TranscriptWriter,
    latest_by_probe,
    partial_turns,
    read_entries,
)

ADAPTER_MANUAL = "manual"
EXIT_INTERRUPTED = 130

HELP_TEXT = """\
Type or paste the chatbot's reply. A reply may have several lines; finish it with an empty line
(or Ctrl-D). Commands, typed at the start of a reply:
  :skip  (:s)   leave this question for later (it is asked again next time)
  :back  (:b)   go back to the previous question and enter its reply again
  :show  (:r)   show the question again
  :help  (:h)   this help
  :quit  (:q)   stop now; every reply entered so far is saved
Start a reply that begins with ':' with '::' instead. Run the same command again to continue."""

COMMANDS = {":skip": "skip", ":s": "skip", ":back": "back", ":b": "back", ":show": "show", ":r": "show",
            ":help": "help", ":h": "help", ":?": "help", ":quit": "quit", ":q": "quit", ":exit": "quit"}


def select_suite_probes(suite: str, *, sample: int | None, seed: int, limit: int | None) -> tuple[Any, list[Probe]]:
    """Load a suite and the selected probes as a list (a person answers at most a few thousand)."""
    from harness.question_gen.suites import load_suite, select_probes

    loaded = load_suite(suite)
    probes = list(select_probes(loaded, sample=sample, seed=seed, limit=limit))
    if not probes:
        raise HarnessError(f"Suite '{suite}' selected no probes; check --sample/--limit.")
    return loaded, probes


@dataclass
class ManualRun:
    """A run folder whose replies come from a person: manifest.json + transcript.jsonl.

    Opening an existing folder made by `harness run` (an API target) is refused: answers typed by a
    person and answers from an API must not be mixed under one target label.
    """

    run_dir: Path
    suite_name: str
    target: str
    probes: list[Probe]
    manifest: dict[str, Any]
    session: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def open(cls, suite: str, target: str, *, sample: int | None = None, seed: int = 0,
             limit: int | None = None, run_id: str | None = None, mode: str = "manual",
             probes: list[Probe] | None = None, suite_obj: Any = None) -> ManualRun:
        if not target or not target.strip():
            raise HarnessError("Give the chatbot a label with --target, e.g. --target xiaoai.")
        if probes is None:
            suite_obj, probes = select_suite_probes(suite, sample=sample, seed=seed, limit=limit)
        run_id = run_id or manual_run_id(suite, target, sample=sample, seed=seed, limit=limit)
        run_dir = mf.run_dir_for(run_id)
        manifest = mf.read_manifest(run_dir)
        if manifest and manifest.get("adapter") not in (ADAPTER_MANUAL, None):
            raise HarnessError(f"Run '{run_id}' holds answers from the '{manifest.get('adapter')}' adapter, not "
                               f"from a person; choose another --target label or --run-id.")
        suite_name = getattr(suite_obj, "name", suite)
        for key, mine in (("suite", suite_name), ("target", target)):
            if manifest.get(key) and manifest[key] != mine:
                raise HarnessError(f"Run '{run_id}' belongs to {key} '{manifest[key]}', not '{mine}'; "
                                   f"choose another --run-id.")
        if not manifest:
            manifest = mf.new_manifest(
                run_id=run_id, suite=suite_name, target=target, adapter=ADAPTER_MANUAL,
                settings={"source": "person"}, lang=getattr(suite_obj, "lang", "") or "",
                generator=getattr(suite_obj, "generator", "") or "", sample=sample, seed=seed, limit=limit,
                selected=len(probes), command=mf.command_line())
            manifest["model"] = {"name": target, "source": "the label given with --target (a person typed the replies)"}
        mf.close_dead_sessions(manifest)  # a session killed before (manual runs have no lock: its best guess)
        run = cls(run_dir=run_dir, suite_name=suite, target=target, probes=probes, manifest=manifest)
        run.session = mf.begin_session(manifest, command=mf.command_line(), mode=mode)
        mf.write_manifest(run_dir, manifest)
        return run

    @property
    def transcript_path(self) -> Path:
        return self.run_dir / TRANSCRIPT_FILE

    def answered(self) -> dict[str, Entry]:
        """Probe id -> latest ok entry (a later line for the same probe supersedes an earlier one)."""
        return {pid: e for pid, e in latest_by_probe(self.transcript_path).items() if e.reply.ok}

    def counts(self) -> dict[str, int]:
        wanted = {p.id for p in self.probes}
        answered = sum(1 for pid in self.answered() if pid in wanted)
        return {"selected": len(self.probes), "answered": answered, "errors": 0,
                "unanswered": len(self.probes) - answered}

    def close(self, status: str, session_counts: dict[str, Any]) -> None:
        mf.end_session(self.manifest, self.session, status=status, session_counts=session_counts,
                       run_counts=self.counts())
        mf.write_manifest(self.run_dir, self.manifest)


def manual_run_id(suite: str, target: str, *, sample: int | None, seed: int, limit: int | None = None) -> str:
    """Same selection and label -> same folder, so rerunning `harness manual` (or importing) resumes it."""
    return mf.default_run_id(suite, target, sample=sample, seed=seed, limit=limit, extra="manual")


def manual_reply(probe: Probe, target: str, text: str, *, latency_s: float = 0.0, **usage: Any) -> Reply:
    """A person's answer in the same shape `harness run` records (status ok, adapter noted in usage)."""
    return Reply(probe_id=probe.id, target=target, text=text, latency_s=round(latency_s, 3),
                 usage={"source": ADAPTER_MANUAL, **usage})


def score_and_report(run_dir: Path, console: Console, *, method: str = "default", compat: bool = False) -> Any:
    """Score the run and write the report exactly as `harness run` does (summary printed to `console`)."""
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run

    result = score_run(run_dir, method=method, compat=compat)
    write_report(run_dir, result, console=console)
    return result


# --- clipboard ---------------------------------------------------------------------------------------

def copy_to_clipboard(text: str) -> bool:
    """Copy the question so the person can paste it into the chatbot; silently False when impossible.

    pyperclip when installed, else the platform's tool (wl-copy on Wayland, xclip/xsel on X11, pbcopy on
    macOS). Never blocks the session for more than a second.
    """
    if os.environ.get("HARNESS_NO_CLIPBOARD"):
        return False
    try:
        import pyperclip  # type: ignore[import-not-found]

        pyperclip.copy(text)
        return True
    except Exception:  # not installed, or no clipboard mechanism: fall through to the CLI tools
        pass
    candidates: list[list[str]] = []
    if sys.platform == "darwin":
        candidates.append(["pbcopy"])
    if os.environ.get("WAYLAND_DISPLAY"):
        candidates.append(["wl-copy"])
    if os.environ.get("DISPLAY"):
        candidates += [["xclip", "-selection", "clipboard"], ["xsel", "--clipboard", "--input"]]
    for cmd in candidates:
        if shutil.which(cmd[0]) is None:
            continue
        try:
            subprocess.run(cmd, input=text.encode("utf-8"), timeout=1, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            return True
        except (OSError, subprocess.SubprocessError):
            continue
    return False


# --- reading a reply -----------------------------------------------------------------------------------

class _Hangup(Exception):
    """The terminal went away (SIGHUP) or the process was asked to stop (SIGTERM)."""


class _Quit(Exception):
    """The person typed :quit in the middle of a conversation."""


def _more_input_pending(stream: Any, wait_s: float = 0.05) -> bool:
    """True when more pasted text is already waiting: a blank line inside a paste does not end the reply."""
    try:
        if not stream.isatty():
            return False
        ready, _, _ = select.select([stream], [], [], wait_s)
        return bool(ready)
    except (OSError, ValueError):
        return False


def read_reply(read_line: Callable[[str], str], *, stream: Any = None) -> tuple[str, str | None]:
    """Read one reply: lines until an empty line or EOF. Returns (text, command).

    command is "skip"/"back"/"show"/"help"/"quit"/"unknown:<word>" when the first line is a command,
    "eof" when input ended before anything was typed, else None.
    """
    lines: list[str] = []
    prompt = "> "
    while True:
        try:
            line = read_line(prompt)
        except EOFError:
            if not lines:
                return "", "eof"
            break
        if not lines:
            word = line.strip()
            if word.startswith(":") and not word.startswith("::"):
                return "", COMMANDS.get(word.lower(), f"unknown:{word}")
            if word.startswith("::"):
                line = line.replace("::", ":", 1)
            if not word:
                continue  # stray Enter before the reply: keep waiting
        if line.strip() == "":
            if stream is not None and _more_input_pending(stream):
                lines.append("")
                continue
            break
        lines.append(line.rstrip("\r"))
        prompt = ". "
    return "\n".join(lines).strip("\n"), None


# --- the session ---------------------------------------------------------------------------------------

@dataclass
class SessionStats:
    entered: int = 0
    skipped: int = 0
    revised: int = 0


class ManualSession:
    """Walks the unanswered probes of a ManualRun, saving each reply as it is entered.

    Order: probes in suite order; already-answered ones are passed over. ':back' walks back through the
    questions seen (including the last one answered before a restart) and then returns to where it was.
    """

    def __init__(self, run: ManualRun, *, console: Console | None = None,
                 read_line: Callable[[str], str] | None = None, stream: Any = None,
                 clipboard: bool = True) -> None:
        self.run = run
        self.console = console or Console(highlight=False)
        self.read_line = read_line or input
        self.stream = stream if stream is not None else (sys.stdin if read_line is None else None)
        self.clipboard = clipboard
        self.stats = SessionStats()
        self.answers: dict[str, str] = {pid: e.reply.text for pid, e in run.answered().items()}
        self._index = {p.id: i for i, p in enumerate(run.probes)}
        self._skipped: set[int] = set()
        self._trail: list[int] = self._previous_trail()
        self._forward: list[int] = []

    def _previous_trail(self) -> list[int]:
        """The most recently answered probe of earlier sessions, so ':back' works right after a restart."""
        last = None
        for entry in read_entries(self.run.transcript_path):
            if entry.probe.id in self._index and entry.reply.ok:
                last = self._index[entry.probe.id]
        return [last] if last is not None else []

    def _next_open(self, after: int) -> int | None:
        for i in range(after + 1, len(self.run.probes)):
            if self.run.probes[i].id not in self.answers and i not in self._skipped:
                return i
        return None

    def _show(self, i: int) -> None:
        probe = self.run.probes[i]
        total = len(self.run.probes)
        done = sum(1 for p in self.run.probes if p.id in self.answers)
        self.console.print(Rule(f"{i + 1} / {total}", style="cyan"))
        # The question (a data file's words) and the replies are Text, never markup (harness.core.display).
        self.console.print(assemble((f"answered {done} of {total} · probe {probe.id} · :help for commands", "dim")))
        turns = probe.turns
        if len(turns) > 1:  # a conversation (a metamorphic pressure probe): each turn in the same chat
            self.console.print(assemble((f"A conversation of {len(turns)} turns: ask them one after another in "
                                         "the same chat, entering each reply.", "yellow")))
            self.console.print(assemble(("Turn 1:", "dim")), untrusted(probe.text, "bold"))
        else:
            self.console.print(untrusted(probe.text, "bold"))
        if probe.id in self.answers:
            self.console.print(assemble(("Previous reply:", "yellow"), " ", self.answers[probe.id]))
            self.console.print("[dim]Enter the new reply (it replaces the previous one), or :skip to keep it.[/]")
        if self.clipboard and copy_to_clipboard(probe.text):
            self.console.print("[dim](question copied to the clipboard)[/]")
        self.console.print("[dim]Reply (finish with an empty line):[/]")

    def _later_turns(self, probe: Probe, first: str) -> tuple[str, ...] | None:
        """Ask for the replies to a conversation's later turns, each earlier turn saved as a partial line
        before the next is shown (transcript.partial_turns), so a stop loses no typed reply; None when the
        person stopped (:quit) inside the conversation."""
        said = [first]
        earlier = partial_turns(self.run.transcript_path).get(probe.id, ())
        turns = probe.turns
        for j in range(1, len(turns)):
            self._append(probe, Reply(probe_id=probe.id, target=self.run.target, text=said[-1],
                                      status=STATUS_PARTIAL, usage={"source": ADAPTER_MANUAL}, turns=tuple(said)))
            self.console.print(assemble((f"Turn {j + 1} of {len(turns)} (same chat):", "dim")),
                               untrusted(turns[j], "bold"))
            if j < len(earlier):
                self.console.print(assemble(("Reply entered before:", "yellow"), " ", earlier[j]))
            if self.clipboard and copy_to_clipboard(turns[j]):
                self.console.print("[dim](turn copied to the clipboard)[/]")
            while True:
                text, command = read_reply(self.read_line, stream=self.stream)
                if command in ("quit", "eof"):
                    return None
                if command is None:
                    break
                if command == "help":
                    self.console.print(HELP_TEXT)
                else:
                    self.console.print("[yellow]Inside a conversation, enter this turn's reply (or :quit).[/]")
            said.append(text)
        return tuple(said)

    def _append(self, probe: Probe, reply: Reply) -> None:
        with TranscriptWriter(self.run.run_dir, fsync_every=1) as writer:
            writer.append(probe, reply)

    def _save(self, i: int, text: str, started: float) -> None:
        probe = self.run.probes[i]
        revised = probe.id in self.answers
        turns: tuple[str, ...] = ()
        if len(probe.turns) > 1:
            answered = self._later_turns(probe, text)
            if answered is None:
                raise _Quit
            turns, text = answered, answered[-1]
        reply = manual_reply(probe, self.run.target, text, latency_s=time.monotonic() - started, revised=revised)
        if turns:
            reply = Reply(probe_id=reply.probe_id, target=reply.target, text=text, latency_s=reply.latency_s,
                          usage=reply.usage, turns=turns)
        with TranscriptWriter(self.run.run_dir, fsync_every=1) as writer:
            writer.append(probe, reply)
        self.answers[probe.id] = text
        self.stats.entered += 1
        self.stats.revised += int(revised)
        self.console.print("[green]saved[/]")

    def run_session(self) -> str:
        """Interact until done or stopped; returns "complete", "quit" or "interrupted"."""
        current = self._next_open(-1)
        if current is None:
            self.console.print("Every question of this run is already answered.")
            return "complete"
        answered = sum(1 for p in self.run.probes if p.id in self.answers)
        if answered:
            self.console.print(assemble(f"Continuing run {self.run.run_dir.name}: {answered} of "
                                        f"{len(self.run.probes)} answered so far."))
        else:
            self.console.print(assemble(f"New run {self.run.run_dir.name}: {len(self.run.probes)} questions. "
                                        "Type :help for commands."))
        while current is not None:
            self._show(current)
            started = time.monotonic()
            while True:
                text, command = read_reply(self.read_line, stream=self.stream)
                if command in ("help",):
                    self.console.print(HELP_TEXT)
                    continue
                if command == "show":
                    self._show(current)
                    continue
                if command and command.startswith("unknown:"):
                    self.console.print(assemble((f"Unknown command {command[8:]}", "red"), "; type :help (a "
                                                "reply starting with ':' is typed as '::')."))
                    continue
                break
            if command in ("quit", "eof"):
                return "quit"
            if command == "back":
                if not self._trail:
                    self.console.print("[yellow]There is no previous question in this run yet.[/]")
                    continue
                self._forward.append(current)
                current = self._trail.pop()
                continue
            if command == "skip":
                if self.run.probes[current].id not in self.answers:
                    self._skipped.add(current)
                    self.stats.skipped += 1
            else:
                try:
                    self._save(current, text, started)
                except _Quit:  # stopped inside a conversation: the turns entered are saved as partial lines
                    return "quit"
            self._trail.append(current)
            current = self._forward.pop() if self._forward else self._next_open(current)
        return "complete"


def run_manual(suite: str, target: str, *, sample: int | None, seed: int, limit: int | None = None,
               run_id: str | None = None, method: str = "default", compat: bool = False,
               clipboard: bool = True, console: Console | None = None) -> int:
    """The `harness manual` command: open/resume the run, interact, then score + report at the end."""
    console = console or Console(highlight=False)
    run = ManualRun.open(suite, target, sample=sample, seed=seed, limit=limit, run_id=run_id)
    # No readline here, on purpose: readline reads the terminal in raw mode, and a reply finished with Ctrl-D
    # before it switched to raw mode (typed ahead on a busy machine) reached it as a NUL byte, so the session
    # waited forever for a reply already typed. The terminal's own line mode reads Ctrl-D as the end of input
    # whenever it was typed; it edits a line with Backspace, Ctrl-U and Ctrl-W (docs/manual.md).
    session = ManualSession(run, console=console, clipboard=clipboard)

    def hangup(signum: int, frame: Any) -> None:
        raise _Hangup(signal.Signals(signum).name)

    previous = {s: signal.signal(s, hangup) for s in (signal.SIGHUP, signal.SIGTERM)}
    status = mf.STATUS_INTERRUPTED
    outcome = "interrupted"
    try:
        outcome = session.run_session()
        status = mf.STATUS_COMPLETE if outcome == "complete" else mf.STATUS_INTERRUPTED
    except (KeyboardInterrupt, _Hangup):
        console.print()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        counts = run.counts()
        run.close(status, {"entered": session.stats.entered, "skipped": session.stats.skipped,
                           "revised": session.stats.revised})
    resume = mf.command_line()
    if outcome != "complete":
        console.print(assemble(f"Stopped. {counts['answered']} of {counts['selected']} answered, all saved in "
                               f"{run.run_dir}. Continue with: {resume}"))
        return EXIT_INTERRUPTED if outcome == "interrupted" else 0
    if counts["unanswered"]:
        console.print(f"{counts['unanswered']} skipped question(s) are still unanswered; run the same command "
                      f"again to answer them.")
    if counts["answered"] == 0:
        console.print("Nothing answered yet, so there is nothing to score.")
        return 0
    score_and_report(run.run_dir, console, method=method, compat=compat)
    return 0
