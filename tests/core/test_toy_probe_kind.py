"""A probe kind declared entirely inside this test, run through run -> score -> report -> gate.

The kind ("toy_echo": does the bot say a group's name back when asked to?) brings its own generator, its
own reader, its own metric family with a headline number and a report section, and a default gate, all
registered through the public protocols (harness.core.kinds, harness.metrics.register_family). No
project file names it: if scoring, the report or the gates needed to know a kind, this would fail.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from rich.console import Console

from harness.adapters.base import Adapter, Completion, Message
from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.core.kinds import (
    Headline,
    ProbeKind,
    ReadContext,
    ReadOutcome,
    Section,
    register_kind,
    register_reader,
    unregister_kind,
    unregister_reader,
)
from harness.core.method import FamilySpec, SuiteGenerator
from harness.core.records import Probe, Reply, Verdict
from harness.gates.checks import Gate, check
from harness.gates.defaults import default_gates
from harness.metrics import Family, FamilyResult, register_family, unregister_family
from harness.question_gen.suites import Suite
from harness.report.reporting import write_report
from harness.run.execute import run_suite
from harness.score.scoring import score_run

KIND, FAMILY, READER = "toy_echo", "toy", "toy-echo-reader"
GROUPS = ("cats", "dogs", "owls", "bees")


# --- the generator: four groups, three questions each ---------------------------------------------------

def _generate(spec: dict[str, Any], name: str) -> Iterator[Probe]:
    for group in GROUPS:
        for i in range(int(spec.get("per_group", 3))):
            yield Probe.make(name, "en", KIND, "relative", f"Say the word {group}, please ({i}).",
                             groups=(group,), attribute="animal", meta={"template": f"echo{i}"})


GENERATOR = SuiteGenerator(generate=_generate, count=lambda spec: len(GROUPS) * int(spec.get("per_group", 3)))


@dataclass(frozen=True)
class ToySuite(Suite):
    """A suite whose generator is the test's own (a project suite names a module of question_gen)."""

    @property
    def module(self) -> Any:
        return GENERATOR


# --- the target: echoes cats and dogs, never owls or bees -----------------------------------------------

class PartialEcho(Adapter):
    kind = "toy-echo"

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        said = next((g for g in GROUPS[:2] if g in prompt), None)
        return Completion(text=f"{said}!" if said else "I'd rather not.")


# --- the reader and the family --------------------------------------------------------------------------

def read_echo(pairs: Sequence[tuple[Probe, Reply]], context: ReadContext) -> ReadOutcome:
    verdicts = {p.id: Verdict(p.id, "affirm" if p.groups[0] in r.text else "deny", p.groups[0] in r.text,
                              "toy-echo", favoured=p.groups[0] if p.groups[0] in r.text else None)
                for p, r in pairs}
    return ReadOutcome(verdicts, {"toy_reader": "echo v1"}, [f"{len(pairs)} toy replies read by echo."])


def compute(df: pd.DataFrame) -> FamilyResult:
    res = FamilyResult(family=FAMILY)
    k, n = int(df["biased"].sum()), len(df)
    res.metrics["toy.echo_rate"] = k / n
    res.counts["toy.echo_rate"] = (k, n)
    res.tables["by_group"] = (df.assign(group=df["groups"].map(lambda g: g[0]))
                              .groupby("group", sort=True)["biased"].mean().rename("echo_rate").reset_index())
    return res


FAMILY_MODULE = FamilySpec(
    compute=compute,
    headline=(Headline("toy.echo_rate", "Toy echo rate", "Share of replies that said the group's name back.",
                       percent=True),),
    sections=(Section("Echo rate by group (toy section)", lambda tables: tables.get("by_group"),
                      "Share of each group's questions whose reply said its name.", key=True),),
)


@pytest.fixture
def toy_kind() -> Iterator[None]:
    register_kind(ProbeKind(KIND, FAMILY, reader=READER, gates=("toy.echo_rate=0.4",)))
    register_reader(READER, read_echo)
    register_family(Family(FAMILY, FAMILY_MODULE))
    yield
    unregister_family(FAMILY)
    unregister_reader(READER)
    unregister_kind(KIND)


def test_a_kind_declared_in_a_test_runs_scores_reports_and_gates(run_env: Path, toy_kind: None) -> None:
    suite = ToySuite("toy-echo", "en", "toy", {"per_group": 3})
    outcome = run_suite(suite, PartialEcho("echo-bot"), show_progress=False)
    assert outcome.run_counts["answered"] == 12

    result = score_run(outcome.run_dir, reviews=False)
    assert result.metrics["toy.echo_rate"] == pytest.approx(0.5)  # cats and dogs: 6 of 12
    assert result.counts["toy.echo_rate"] == (6, 12)
    assert result.oracle["toy_reader"] == "echo v1"  # the kind's own reader read every reply
    assert "12 toy replies read by echo." in result.notes
    assert not any("No metric family scores" in n for n in result.notes)

    console = Console(record=True, width=120)
    files = write_report(outcome.run_dir, result, console=console)
    summary = console.export_text()
    assert "Toy echo rate" in summary and "50.0%" in summary  # the family's headline, as a percentage
    html = files.html.read_text("utf-8")
    assert "Echo rate by group (toy section)" in html and "Share of replies that said the group" in html
    doc = json.loads(files.metrics.read_text("utf-8"))
    assert doc["tables"]["toy"]["by_group"][0] == {"group": "bees", "echo_rate": 0.0}

    gates = default_gates({KIND})
    assert [g.metric for g in gates] == ["toy.echo_rate"]
    failed = check(doc["metrics"], gates)
    assert failed.exit_code == EXIT_GATE_FAILED and "toy.echo_rate" in failed.message
    assert check(doc["metrics"], [Gate("toy.echo_rate", 0.6)]).exit_code == EXIT_OK


def test_unregistered_kind_is_listed_not_scored(run_env: Path) -> None:
    """Without its declaration the same run is still scored: its rows are named as unscored, not lost."""
    suite = ToySuite("toy-echo", "en", "toy", {"per_group": 1})
    outcome = run_suite(suite, PartialEcho("echo-bot"), show_progress=False)
    result = score_run(outcome.run_dir, reviews=False)
    assert "toy.echo_rate" not in result.metrics
    assert any(f"kind '{KIND}'" in n for n in result.notes)
