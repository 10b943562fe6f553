"""`harness questions -p KEY=VALUE`: the probes a run with the same -p options would ask, mutated and perturbed
copies included, so a user can read them before asking (issue 31)."""

from __future__ import annotations

import json

import pytest

from harness.cli import main
from harness.question_gen.suites import select_probes


def test_questions_show_the_mutated_probes_a_run_would_ask(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", "-s", "builtin-en", "--sample", "3", "--seed", "1", "-p", "mutate=fiction,split",
                 "-f", "jsonl"]) == 0
    shown = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    expected = [p.to_dict() for p in select_probes("builtin-en", sample=3, seed=1,
                                                   overrides={"mutate": "fiction,split"})]
    assert shown == expected
    bases = [p for p in shown if p["meta"].get("metamorphic", {}).get("role") != "variant"]
    assert len(bases) == 3 and len(shown) > len(bases)  # the copies come with their bases


def test_the_table_counts_the_copies_and_a_bad_key_is_one_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    whole = sum(1 for _ in select_probes("builtin-en", sample=3, seed=1, overrides={"mutate": "fiction,split"}))
    assert main(["questions", "-s", "builtin-en", "--sample", "3", "--seed", "1", "-p", "mutate=fiction,split",
                 "--limit", "2"]) == 0
    assert f"showing 2 of {whole} probes" in capsys.readouterr().err
    assert main(["questions", "-s", "builtin-en", "--limit", "2", "-p", "mutate"]) == 2
    assert "--param expects KEY=VALUE, got 'mutate'." in capsys.readouterr().err
    assert main(["questions", "-s", "builtin-en", "--limit", "2", "-p", "mutate=nosuch"]) == 2
    assert "mutate names unknown relation(s) nosuch" in " ".join(capsys.readouterr().err.split())
