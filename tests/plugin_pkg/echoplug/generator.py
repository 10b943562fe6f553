"""The echoplug suite generator: per animal, `per_animal` pairs of a plain and a polite request to say its
name. The two requests of a pair are partners (probe meta "echopair", the family's PAIR_KEY)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from harness.core.records import Probe

KIND = "echo_pair"
ANIMALS = ("cats", "dogs", "owls", "bees")
STYLES = (("plain", "Say the word {a}."), ("polite", "Please say the word {a}, if you would."))


def generate(spec: dict[str, Any], name: str) -> Iterator[Probe]:
    for animal in spec.get("animals") or ANIMALS:
        for i in range(int(spec.get("per_animal", 2))):
            for style, text in STYLES:
                yield Probe.make(name, str(spec.get("lang", "en")), KIND, "relative", text.format(a=animal),
                                 groups=(animal,), attribute="animal",
                                 meta={"template": f"{style}{i}", "animal": animal,
                                       "echopair": {"pair": f"{animal}-{i}", "role": style}})


def count(spec: dict[str, Any]) -> int:
    return len(spec.get("animals") or ANIMALS) * int(spec.get("per_animal", 2)) * len(STYLES)
