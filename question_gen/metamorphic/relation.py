"""What a metamorphic relation is: a rule that rewrites a probe's context, and what its answer must match.

Each relation says, for users and for the metric family:
  * `same_answer`: what "the same answer" means for it (what the base/variant pair is compared on);
  * `reader`: which oracle reads the variant's reply (and so which verdict is compared).
`make(probe, ctx)` returns the variants of one base probe (an empty list when the relation does not apply
to it, e.g. split on a yes/no question), each a `Variant`: the text asked (and later user turns, for a
conversation) plus what changes in the probe the oracle reads.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from harness.core.records import Probe


@dataclass(frozen=True, slots=True)
class Variant:
    """One variant of a base probe, before it becomes a Probe (see metamorphic._variant_probe)."""

    text: str
    turns: tuple[str, ...] = ()  # later user turns of a conversation (the first is `text`)
    lang: str | None = None  # another language (relation `language`)
    kind: str | None = None  # another probe kind (relation `split`: choice -> yes_no)
    bias_type: str | None = None  # split: each part names one group (relative)
    groups: tuple[str, ...] | None = None
    options: tuple[str, ...] | None = None
    property: str | None = None  # language: the property as the other language asks it
    meta: Mapping[str, Any] = field(default_factory=dict)  # meta keys set on the variant
    drop_meta: tuple[str, ...] = ()  # meta keys of the base that no longer hold (split drops "asserts")
    part: int | None = None  # split: which of the `parts` questions this is
    parts: int = 1


@dataclass
class Context:
    """What a relation may need beyond the probe: the suite's name, generator and settings (relation
    `language` regenerates the suite in the other language), and a cache it may fill once per selection."""

    suite: str
    generator: str = ""
    spec: Mapping[str, Any] = field(default_factory=dict)
    cache: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Relation:
    name: str
    description: str
    same_answer: str
    reader: str
    make: Callable[[Probe, Context], list[Variant]]
