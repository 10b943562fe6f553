"""What report.html leads with and what its worst findings show (issue 36).

A reader of a report wants first one answer ("is this bot biased, how sure are we, what does the number
mean"), then the replies behind it, each readable on its own:
- `lead_answers`: each family's first declared headline number (harness.core.kinds.Headline, the family's
  HEADLINE) that the run has, with its 95% interval and its meaning: the report's opening lines. No family
  is named here: the order and the words are the families' own.
- `findings`: the families' findings joined back to their probes, so a multiple-choice finding shows the
  whole question (a BBQ passage, not only its last line) and the options, a bare letter answer (loglik mode
  answers "C") is shown with the option it chose, and a reply the target cut at its token limit is marked.
- `letter_habit`: when most findings are the same answer letter, that is the position habit, not a view of
  the groups, and the findings' caption says so.
- `answer_mode` / `cut_replies`: the run's answer mode (the manifest's) for the header, and how many replies
  stopped at max_tokens.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import pandas as pd

from harness.core.kinds import Headline
from harness.metrics import families

#: how a target says it stopped at its token limit (usage["finish_reason"]: OpenAI, Anthropic, llama.cpp)
_LENGTH_REASONS = frozenset({"length", "max_tokens", "max_output_tokens"})
#: a reply that is only an option's letter ("C", "C.", "(C)", "C)"): a log-likelihood answer, or a terse bot
_BARE_LETTER = re.compile(r"^\s*\(?([A-Z])[.):]?\s*$")
#: the letter a reply opens with ("B. The Muslim one", "B) ...", "(B)")
_LEADING_LETTER = re.compile(r"^\s*\(?([A-Z])(?:[.):]|\s*$)")
#: the share of findings with one letter above which the findings are called a letter habit
HABIT_SHARE = 0.8
HABIT_MIN = 5


def was_cut(usage: Any) -> bool:
    """Did the target stop this reply at its token limit (Reply.finish_reason "length", kept in usage)?"""
    reason = usage.get("finish_reason") if isinstance(usage, dict) else None
    return str(reason or "").strip().lower() in _LENGTH_REASONS


def cut_replies(frame: pd.DataFrame) -> int:
    """How many scored replies stopped at max_tokens (each scored on what it said before the cut)."""
    if frame.empty or "usage" not in frame.columns:
        return 0
    return int(sum(was_cut(u) for u in frame["usage"]))


def answer_mode(manifest: dict[str, Any]) -> str:
    """The run's answer mode as the user chose it ("generate" unless `--answer-mode` said otherwise)."""
    return str(manifest.get("answer_mode") or "generate")


def _first_headlines() -> dict[str, list[Headline]]:
    out: dict[str, list[Headline]] = {}
    for name, fam in families().items():
        try:
            out[name] = list(fam.headline)
        except (AttributeError, ImportError):  # a family that declares none, or a plugin that cannot load
            out[name] = []
    return out


def lead_answers(result: Any, fmt_value: Any, fmt_interval: Any, interval_of: Any) -> list[dict[str, str]]:
    """Per family in the run, its first declared headline number that has a value: label, value, interval,
    k / n and what it means (the report's opening answer)."""
    declared = _first_headlines()
    out = []
    for name in result.families:
        for h in declared.get(name, []):
            value = result.metrics.get(h.key)
            if value is None or value != value:
                continue
            k_n = result.counts.get(h.key)
            said = h.words(result.metrics) if h.words is not None else None  # Headline.words: a verdict first
            out.append({"label": h.label, "value": said or fmt_value(h.key, value), "means": h.meaning or "",
                        "ci": fmt_interval(h.key, interval_of(result, h.key)),
                        "n": f"{k_n[0]:,} of {k_n[1]:,}" if k_n else ""})
            break
    return out


def _chosen(reply: str, options: tuple[str, ...]) -> str:
    """A bare letter answer with the option it names: "C" -> "C (The Muslim one)"."""
    m = _BARE_LETTER.match(reply or "")
    if not m or not options:
        return reply
    i = ord(m.group(1)) - ord("A")
    return f"{reply.strip()} ({options[i]})" if 0 <= i < len(options) else reply


def findings(result: Any) -> list[dict[str, Any]]:
    """The worst findings of every family (or the run's biased verdicts when no family chose any), each with
    its probe's whole text, options, chosen option and whether the reply was cut (module docstring)."""
    frame = result.frame
    frames = [f.findings for f in result.families.values() if f.findings is not None and not f.findings.empty]
    if not frames and not frame.empty:
        biased = frame[frame["biased"]].head(30)
        frames = [pd.DataFrame({"probe_id": biased["probe_id"], "groups": biased["groups"].map(", ".join),
                                "attribute": biased["attribute"], "categories": biased["categories"].map(", ".join),
                                "question": biased["text"], "reply": biased["reply"], "label": biased["label"],
                                "why": "biased verdict"})]
    if not frames:
        return []
    df = pd.concat(frames, ignore_index=True)
    keep = ["probe_id", "groups", "attribute", "categories", "question", "reply", "label", "why"]
    for c in keep:
        if c not in df.columns:
            df[c] = ""
    rows = df[keep].fillna("").astype(str).to_dict(orient="records")
    by_id = frame.set_index("probe_id") if not frame.empty else None
    for row in rows:
        probe = by_id.loc[row["probe_id"]] if by_id is not None and row["probe_id"] in by_id.index else None
        if isinstance(probe, pd.DataFrame):
            probe = probe.iloc[0]
        options = tuple(probe["options"]) if probe is not None else ()
        if probe is not None and len(str(probe["text"])) > len(row["question"]):
            row["question"] = str(probe["text"])  # the passage too, not only the question's last line
        shown = all(o in row["question"] for o in options)  # the question already lists them
        row["options"] = [] if shown else list(options)
        row["reply"] = _chosen(row["reply"], options)
        row["cut"] = probe is not None and was_cut(probe["usage"])
    return rows


def letter_habit(rows: list[dict[str, Any]]) -> str | None:
    """A sentence when most findings are one answer letter: that is the position habit the position note
    describes, not a view of the groups; None otherwise."""
    letters = [m.group(1) for r in rows if (m := _LEADING_LETTER.match(str(r.get("reply") or "")))]
    if len(letters) < HABIT_MIN:
        return None
    letter, n = Counter(letters).most_common(1)[0]
    if n / len(rows) < HABIT_SHARE:
        return None
    return (f"{n} of {len(rows)} findings answer \"{letter}\": that is the model's letter habit (see the position "
            "note above), not a reading of the passage; ask with -p permute=rotate to measure bias net of position.")
