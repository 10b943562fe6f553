"""Scoring's side of the second reader: who read the replies, and the replies nobody could read.

harness.score.scoring reads a run with the rules, then hands their verdicts here: `read_verdicts` applies
the reader the user chose (harness.judge.reading: rules, judge, hybrid), and `put_reader` records it.

What metrics.json gains:
  oracle.reader    mode, threshold, prompt version, each judge's target and fingerprint, and what the judges
                   did (replies judged, position flips, calls asked / cached): how the verdicts were made,
                   compared by harness.score.settings
  unscored         replies whose judge answer could not be read (label `unscored`), with `unscored_rate`
                   (share of answered replies, Wilson interval) and `unscored_reasons` grouped like
                   error_reasons. Such replies are in verdicts.csv but in no other rate: an unreadable
                   answer is never "not biased".
"""

from __future__ import annotations

import textwrap
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from harness.core.records import LABEL_UNSCORED, Probe, Reply, Verdict
from harness.judge.reading import MODE_RULES, ReaderSettings, Readings, read_replies

RULES = ReaderSettings()


def read_verdicts(pairs: Sequence[tuple[Probe, Reply]], rule_verdicts: Mapping[str, Verdict],
                  reader: ReaderSettings | None, *, run_dir: Path, console: Any = None) -> Readings:
    """The verdicts under `reader` (None: the rules alone), with every reply's readings."""
    return read_replies(pairs, rule_verdicts, reader or RULES, run_dir=run_dir, console=console)


def split_unscored(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the scored rows, the unscored rows) of a verdict frame."""
    if frame.empty:
        return frame, frame.iloc[0:0]
    mask = frame["label"] == LABEL_UNSCORED
    return frame[~mask].reset_index(drop=True), frame[mask].reset_index(drop=True)


def add_confidence(frame: pd.DataFrame, readings: Readings) -> pd.DataFrame:
    """The rules' calibrated confidence of each row's rule verdict (harness.judge.confidence), a column."""
    conf = {pid: row.get("confidence") for pid, row in readings.rows.items()}
    return frame.assign(confidence=frame["probe_id"].map(conf)) if not frame.empty else frame.assign(confidence=[])


def put_reader(result: Any, readings: Readings, unscored: pd.DataFrame, answered: int,
               put_rate: Callable[[Any, str, int, int], None]) -> None:
    """oracle.reader, the unscored count, rate and reasons, and the reader's notes (module docstring), on a
    harness.score.scoring.RunResult. `put_rate` is scoring's rate writer (k/n and the Wilson interval),
    passed in so that this module and scoring do not import each other."""
    if readings.record.get("mode", MODE_RULES) == MODE_RULES or not readings.record.get("judgeable"):
        return  # no record: a run without oracle.reader was read by the rules (harness.score.settings)
    result.oracle["reader"] = readings.record
    n = len(unscored)
    result.metrics["unscored"] = float(n)
    put_rate(result, "unscored_rate", n, answered)
    reasons = Counter(_reason(text) for text in unscored["evidence"]) if n else Counter()
    result.unscored_reasons = dict(reasons.most_common())
    result.notes.extend(readings.notes)
    if n:
        top = "; ".join(f"{why} ({k})" for why, k in reasons.most_common(3))
        result.notes.append(f"{n} answered repl{'y' if n == 1 else 'ies'} could not be read by the judge and "
                            f"{'is' if n == 1 else 'are'} left out of every rate (label 'unscored' in verdicts.csv): "
                            f"{top}.")


_GROUPED = ("the judge's answer names no label", "position flip", "the judges disagree")


def _reason(text: Any) -> str:
    """A grouping key for an unscored reply's reason (the quoted answer or groups are left out)."""
    line = (str(text or "unreadable").strip().splitlines() or ["unreadable"])[0]
    # shortened at a word boundary: a judge's error cut mid-word ("HTTP 400 from the judge: the mo") read as
    # a different error
    return next((key for key in _GROUPED if line.startswith(key)), textwrap.shorten(line, 160, placeholder=" ..."))
