"""Probe kinds: what each kind of question brings with it, declared once in its method's declaration.

Why a registry in the ground layer: a probe's `kind` decides who reads its reply (the rules of
harness.oracles, or another reader such as the political judge), which metric family scores it, whether a
judge model can read it and with which prompt, and which labels a person may give it in a review. Those
stages sit in different layers (oracles, metrics, judge, score, report, gates); each reads the kind's
entry here and none of them names a kind. A kind is added by its method's declaration, never by editing
those stages (docs/architecture.md, "A method: one declaration, one entry point").

Where a kind comes from: a method's declaration (harness.core.method.Method.kinds), registered under the
method's entry point; KINDS is filled from the registered methods (a lookup reads the method of the same
name first, every method when the name is still missing). A test registers a kind of its own with
`register_kind`. The declaration types themselves (ProbeKind, JudgeSpec, ReviewSpec, Headline, Section,
ChanceGate, ...) are in harness.core.parts, re-exported here; each says what its fields mean and who reads
them. READERS holds the readers of a kind's whole batch (ProbeKind.reader names one: the political judge),
filled from the methods' kind_readers.
"""

from __future__ import annotations

from typing import Any

from harness.core.method import parts
from harness.core.parts import (  # the declaration types, imported from here by every stage
    READER_RULES,
    ChanceGate,
    CorrectedRate,
    GateSilence,
    Headline,
    Heatmap,
    JudgeLabel,
    JudgeQuestion,
    JudgeSpec,
    LabelledAnswers,
    LeaderboardFigure,
    LeaderboardRows,
    LeaderboardTable,
    ProbeKind,
    ReadContext,
    Reader,
    ReaderOption,
    ReadOutcome,
    ReviewLabel,
    ReviewSpec,
    RulesConfidence,
    Section,
    ShortfallGate,
    ViewMetric,
)
from harness.core.records import canonical_kind
from harness.core.registry import RegistrationError, Registry

__all__ = ["READER_RULES", "ChanceGate", "CorrectedRate", "GateSilence", "Headline", "Heatmap", "JudgeLabel",
           "JudgeQuestion", "JudgeSpec", "KINDS", "LabelledAnswers", "LeaderboardFigure", "LeaderboardRows",
           "LeaderboardTable", "ProbeKind", "READERS", "ReadContext", "ReadOutcome", "Reader", "ReaderOption",
           "RegistrationError", "ReviewLabel", "ReviewSpec", "RulesConfidence", "Section", "ShortfallGate",
           "ViewMetric", "kind_spec", "reader", "register_kind", "register_reader", "registered_kinds",
           "unregister_kind", "unregister_reader"]


def _kinds_of(method: Any) -> list[tuple[str, ProbeKind]]:
    return [(kind.name, kind) for kind in method.kinds]


def _kind_readers_of(method: Any) -> list[tuple[str, Reader]]:
    return list(method.kind_readers.items())


#: every probe kind by name: the kinds of the registered methods (harness.core.method.Method.kinds), and
#: those a test registers in code (register_kind)
KINDS: Registry[ProbeKind] = Registry("probe kind", feed=parts(_kinds_of))

#: readers of a kind's whole batch other than the rules, by name (ProbeKind.reader): the methods'
#: kind_readers (the political judge's), and those a test registers in code
READERS: Registry[Reader] = Registry("reader", feed=parts(_kind_readers_of))


def register_kind(kind: ProbeKind) -> ProbeKind:
    """Declare a probe kind from code; the same declaration twice is fine, a different one is RegistrationError."""
    KINDS.register(kind.name, kind)
    return kind


def unregister_kind(name: str) -> None:
    """Remove a kind (tests that declare a kind of their own clean up with this)."""
    KINDS.unregister(name)


def kind_spec(name: str) -> ProbeKind | None:
    """The declaration of a kind, None when no method declares it (a renamed kind's old name, read from an
    older verdicts.csv or baseline, finds the kind it was renamed to: harness.core.records.KIND_ALIASES)."""
    return KINDS.get(canonical_kind(name))


def registered_kinds() -> dict[str, ProbeKind]:
    """Every declared kind by name (a copy; every method's declaration is imported)."""
    return dict(KINDS.items())


def register_reader(name: str, reader: Reader) -> Reader:
    """Register a reader by name (see ProbeKind.reader); the same function twice is fine."""
    READERS.register(name, reader)
    return reader


def unregister_reader(name: str) -> None:
    READERS.unregister(name)


def reader(name: str) -> Reader | None:
    """The registered reader of that name, None when none is."""
    return READERS.get(name)
