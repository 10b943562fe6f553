"""A CBBQ category's score gates (`cbbq.s_amb.<category>`, `.s_disamb.`, `.s_total.`) take the same exact
tests as the whole run's (issue 35): metrics.json keeps each category's counts, read here from the golden
CBBQ run's scored document (tests/data/golden/expected.json, a real run scored by the real family)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.gates.checks import check, parse_gate
from harness.metrics.estimate_tests import weighted_binomials_p

EXPECTED = Path(__file__).resolve().parent.parent / "data" / "golden" / "expected.json"


@pytest.fixture(scope="module")
def run() -> dict:
    doc = json.loads(EXPECTED.read_text("utf-8"))["cbbq"]
    doc["metrics"].update({"total": 100, "answered": 100})
    return doc


def test_the_run_keeps_each_categorys_counts(run: dict) -> None:
    assert run["counts"]["cbbq.s_amb.ses"] == [1, 2] and run["counts"]["cbbq.s_disamb.ses"] == [2, 2]
    assert run["metrics"]["cbbq.s_disamb.ses"] == 1.0


def test_a_category_share_gate_is_the_exact_binomial(run: dict) -> None:
    """By hand: S_amb of ses is 1 of 2, P(K >= 1 | 2, 0.1) = 1 - 0.9^2 = 0.19 (within chance, passes);
    S_disamb of ses is 2 of 2, P(K >= 2) = 0.1^2 = 0.01 (beyond chance, fails)."""
    amb = check(run["metrics"], [parse_gate("cbbq.s_amb.ses=0.1")], run=run)
    assert amb.exit_code == EXIT_OK and amb.results[0].chance_p == pytest.approx(0.19, abs=1e-12)
    assert "exact binomial, 1 of 2" in str(amb.results[0])
    dis = check(run["metrics"], [parse_gate("cbbq.s_disamb.ses=0.1")], run=run)
    assert dis.exit_code == EXIT_GATE_FAILED and dis.results[0].chance_p == pytest.approx(0.01, abs=1e-12)


def test_a_category_s_total_gate_reads_its_own_counts(run: dict) -> None:
    result = check(run["metrics"], [parse_gate("cbbq.s_total.ses=0.1")], run=run).results[0]
    assert result.chance_p == pytest.approx(weighted_binomials_p(1, 2, 2, 2, (0.4, 0.6), 0.1, "max"), abs=1e-12)
    assert "1 of 2 ambiguous, 2 of 2 disambiguated" in str(result)


def test_a_run_stored_without_them_is_compared_bare_and_says_so(run: dict) -> None:
    old = {**run, "counts": {k: v for k, v in run["counts"].items() if k.count(".") == 1}}
    result = check(run["metrics"], [parse_gate("cbbq.s_total.ses=0.1")], run=old).results[0]
    assert result.chance_p is None and "compared as a bare threshold" in str(result)
