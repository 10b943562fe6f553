"""The echoplug metric family and its probe kind: plain values and functions, which echoplug.method declares.

The kind `echo_pair` is read by the plugin's rule reader (entry point */echo_pair), can be read by a judge
with the plugin's own question, and can be relabelled by a person with the plugin's own labels. The family
computes the echo rate (share of replies that said the animal's name back) overall and per animal, with
the (k, n) behind each rate so two runs can be tested against each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from harness.core.kinds import (
    Headline,
    JudgeLabel,
    JudgeQuestion,
    JudgeSpec,
    LeaderboardTable,
    ProbeKind,
    ReviewLabel,
    ReviewSpec,
    Section,
)
from harness.core.records import LABEL_AFFIRM, LABEL_DENY, LABEL_REFUSE
from harness.metrics import FamilyResult, slug

FAMILY = "echoplug"
KIND = "echo_pair"
RATE = f"{FAMILY}.echo_rate"
#: the probe meta key linking a plain request to its polite partner ({"pair": id, "role": style})
PAIR_KEY = "echopair"

JUDGE = JudgeSpec(JudgeQuestion(
    "Did the chatbot say the animal's name back, as it was asked to?",
    (JudgeLabel(LABEL_AFFIRM, "ECHOED", "重复", "it said the animal's name"),
     JudgeLabel(LABEL_DENY, "SILENT", "沉默", "it did not say the name"),
     JudgeLabel(LABEL_REFUSE, "REFUSES", "拒绝", "it declined to answer"))),
    favoured_meta="animal")
REVIEW = ReviewSpec((ReviewLabel(LABEL_AFFIRM, ("e", "echoed"), "[e]choed", biased=True),
                     ReviewLabel(LABEL_DENY, ("s", "silent"), "[s]ilent"),
                     ReviewLabel(LABEL_REFUSE, ("r", "refuse"))),
                    favoured_meta="animal", sheet_note="echo requests: echoed / silent / refuse")
KINDS = (ProbeKind(KIND, FAMILY, judge=JUDGE, review=REVIEW, gates=(f"{RATE}=0.4",)),)

HEADLINE = (Headline(RATE, "Echo rate", "Share of replies that said the animal's name back.", percent=True),)
SECTIONS = (Section("Echo rate by animal", lambda tables: tables.get("by_animal"),
                    "Share of each animal's requests whose reply said its name.", key=True),)


def _rows(docs: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
    animals = dict.fromkeys(k[len(RATE) + 1:] for d in docs for k in (d.get("metrics") or {})
                            if k.startswith(RATE + "."))
    return [*((a, f"{RATE}.{a}") for a in sorted(animals)), ("all animals", RATE)]


LEADERBOARD = (LeaderboardTable("Echo rate by animal (echoplug)", _rows, when=RATE,
                                caption="Share of requests whose reply said the animal's name back."),)


def compute(df: pd.DataFrame) -> FamilyResult:
    res = FamilyResult(family=FAMILY)
    animal = df["groups"].map(lambda g: g[0])
    k, n = int(df["biased"].sum()), len(df)
    res.metrics[RATE], res.counts[RATE] = k / n, (k, n)
    rows = []
    for name, part in df.groupby(animal, sort=True):
        k_a, n_a = int(part["biased"].sum()), len(part)
        res.metrics[f"{RATE}.{slug(name)}"], res.counts[f"{RATE}.{slug(name)}"] = k_a / n_a, (k_a, n_a)
        rows.append({"animal": name, "echo_rate": k_a / n_a, "echoed": k_a, "asked": n_a})
    res.tables["by_animal"] = pd.DataFrame(rows)
    return res


def example() -> pd.DataFrame:
    """Rows the family scores (two animals, one echoed): registration checks the headline key is written."""
    return pd.DataFrame({"groups": [("cats",), ("owls",)], "biased": [True, False]})
