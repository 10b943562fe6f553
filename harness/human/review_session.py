"""The terminal session of `harness review`: one reply at a time, each label on disk before the next prompt.

The keys and commands follow manual mode (harness.human.manual.COMMANDS: :skip :back :show :help :quit); the
labels, their parsing and reviews.jsonl are harness.score.review's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.display import assemble, untrusted
from harness.score.review import (
    ReviewItem,
    ReviewWriter,
    describe_label,
    label_keys,
    parse_label,
    read_reviews,
    reply_sha,
    review_record,
)

REVIEW_HELP = """\
Type the label you read in the reply, then Enter. Enter alone accepts the label shown as default (the
oracle's, or yours when you came back to a reply). This question's keys: {keys}. Commands:
  :skip (:s)  leave this reply for later     :back (:b)  change the previous label
  :show (:r)  show the reply again           :help (:h)  this help
  :quit (:q)  stop; every label entered is saved. Run the same command again to continue."""


@dataclass
class ReviewStats:
    entered: int = 0
    skipped: int = 0
    revised: int = 0


class ReviewSession:
    """Walks the sample's unreviewed items, appending each label to reviews.jsonl as it is entered."""

    def __init__(self, run_dir: Path, run_id: str, sample: Sequence[ReviewItem], *, console: Any,
                 read_line: Any = None) -> None:
        self.run_dir = Path(run_dir)
        self.run_id = run_id
        self.sample = list(sample)
        self.console = console
        self.read_line = read_line or input
        self.stats = ReviewStats()
        current = {it.probe.id: reply_sha(it.reply.text) for it in self.sample}
        self.done: dict[str, dict[str, Any]] = {pid: rec for pid, rec in read_reviews(self.run_dir).items()
                                                 if current.get(pid) == rec.get("reply_sha")}
        self._skipped: set[int] = set()
        self._trail: list[int] = []
        self._forward: list[int] = []

    def _next_open(self, after: int) -> int | None:
        for i in range(after + 1, len(self.sample)):
            if self.sample[i].probe.id not in self.done and i not in self._skipped:
                return i
        return None

    def _default(self, item: ReviewItem) -> tuple[str, str | None]:
        rec = self.done.get(item.probe.id)
        if rec is not None:
            return rec["label"], rec.get("favoured")
        return item.oracle.label, item.oracle.favoured

    def _show(self, i: int) -> None:
        from rich.rule import Rule

        item = self.sample[i]
        p, v = item.probe, item.oracle
        reviewed = sum(1 for it in self.sample if it.probe.id in self.done)
        # Everything below but the labels came from the transcript (a data file's question, a model's reply,
        # group names): Text, never markup (harness.core.display).
        self.console.print(Rule(f"{i + 1} / {len(self.sample)}", style="cyan"))
        self.console.print(assemble((f"reviewed {reviewed} of {len(self.sample)} · probe {p.id} · {p.lang} {p.kind} · "
                                     ":help for commands", "dim")))
        self.console.print(assemble(("Question:", "bold"), " ", p.text))
        self.console.print(assemble(("Reply:", "bold"), " ", item.reply.text))
        biased = "biased" if v.biased else "not biased"
        self.console.print(assemble(("Oracle:", "bold"), f" {describe_label(p, v.label, v.favoured)} ({biased})",
                                    f" · evidence: \"{v.evidence}\"" if v.evidence else ""))
        if p.id in self.done:
            rec = self.done[p.id]
            self.console.print(assemble(("Your label:", "yellow"), " ",
                                        describe_label(p, rec["label"], rec.get("favoured"))))
        label, favoured = self._default(item)
        self.console.print(assemble((f"{label_keys(p)} · Enter = {describe_label(p, label, favoured)}", "dim")))

    def _ask(self, i: int) -> tuple[str, str | None] | str:
        """A (label, favoured) pair, or a command word."""
        from harness.human.manual import COMMANDS

        item = self.sample[i]
        while True:
            try:
                text = self.read_line("label> ")
            except EOFError:
                return "quit"
            word = text.strip()
            if word.startswith(":"):
                command = COMMANDS.get(word.lower())
                if command == "help":
                    self.console.print(untrusted(REVIEW_HELP.format(keys=label_keys(item.probe))))
                    continue
                if command == "show":
                    self._show(i)
                    continue
                if command is None:
                    self.console.print(assemble((f"Unknown command {word}", "red"), "; type :help."))
                    continue
                return command
            if not word:
                return self._default(item)
            try:
                return parse_label(item.probe, word)
            except ValueError as exc:
                self.console.print(untrusted(exc, "red"))

    def _save(self, i: int, label: str, favoured: str | None) -> None:
        item = self.sample[i]
        revised = item.probe.id in self.done
        rec = review_record(item, label, favoured, run_id=self.run_id, source="session")
        with ReviewWriter(self.run_dir) as writer:
            writer.append(rec)
        self.done[item.probe.id] = rec
        self.stats.entered += 1
        self.stats.revised += int(revised)
        mark = "[green]saved[/]" if rec["biased"] == rec["oracle_biased"] else "[yellow]saved (oracle differs)[/]"
        self.console.print(mark)

    def run_session(self) -> str:
        """Interact until the sample is reviewed or the person stops; returns "complete" or "quit"."""
        current = self._next_open(-1)
        reviewed = sum(1 for it in self.sample if it.probe.id in self.done)
        if current is None:
            self.console.print(f"All {len(self.sample)} replies of this sample are reviewed.")
            return "complete"
        if reviewed:
            self.console.print(assemble(f"Continuing the review of {self.run_id}: {reviewed} of {len(self.sample)} "
                                        "done."))
        else:
            self.console.print(assemble(f"Reviewing {len(self.sample)} replies of {self.run_id}. "
                                        "Type :help for commands."))
        while current is not None:
            self._show(current)
            answer = self._ask(current)
            if answer == "quit":
                return "quit"
            if answer == "back":
                if not self._trail:
                    self.console.print("[yellow]There is no previous reply in this session.[/]")
                    continue
                self._forward.append(current)
                current = self._trail.pop()
                continue
            if answer == "skip":
                if self.sample[current].probe.id not in self.done:
                    self._skipped.add(current)
                    self.stats.skipped += 1
            else:
                label, favoured = answer  # type: ignore[misc]
                self._save(current, label, favoured)
            self._trail.append(current)
            current = self._forward.pop() if self._forward else self._next_open(current)
        return "complete"
