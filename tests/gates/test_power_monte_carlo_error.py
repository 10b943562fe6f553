"""A simulated power runs as few audits as its answer needs and says their Monte-Carlo error (issue 35:
`harness power -s discrim-eval-explicit` took 3 CPU minutes at a fixed 2,000 audits per power)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from harness.gates.power import PowerAnswer
from harness.metrics.gate_power import (
    DECLARED,
    FIRST_DRAWS,
    MC_HALF_WIDTH,
    Design,
    GatePower,
    estimate_power,
    power_at,
    size_for,
)
from harness.metrics.stats import wilson_interval

CALLS: list[int] = []


def _coin(share: float) -> GatePower:
    """A 'simulation' whose power is exactly `share` at any number of draws (k = round(share * draws)), and
    which records how many draws it was asked for."""
    def power(design: Design, effect: float, rate: float, threshold: float, draws: int, seed: int) -> float:
        CALLS.append(draws)
        return round(share * draws) / draws
    return GatePower("x.y", 0.5, "{value}", "questions", "simulation: a coin", lambda probes: Design({}), power)


def test_a_certain_power_stops_after_the_first_round_with_wilsons_error() -> None:
    CALLS.clear()
    est = estimate_power(_coin(1.0), Design({}), 0.5, 0.5, 0.8, draws=2000)
    assert CALLS == [FIRST_DRAWS] and est.draws == FIRST_DRAWS and est.power == 1.0
    # Wilson at 100 of 100: low = 1 / (1 + z^2 / n) = 1 / 1.0384 = 0.9630, high 1, half-width 0.0185
    assert math.isclose(est.error, (1 - 1 / (1 + 1.959964 ** 2 / 100)) / 2, rel_tol=1e-4)
    assert est.error <= MC_HALF_WIDTH


def test_an_uncertain_power_draws_what_its_error_needs_up_to_the_cap() -> None:
    CALLS.clear()
    est = estimate_power(_coin(0.5), Design({}), 0.5, 0.5, 0.8, draws=2000)
    # after 100 draws at 0.5: 0.25 x (1.96 / 0.02)^2 = 2,401 needed, capped at 2,000
    assert CALLS == [100, 2000] and est.draws == 2000
    low, high = wilson_interval(1000, 2000) or (0, 1)
    assert math.isclose(est.error, (high - low) / 2) and 0.021 < est.error < 0.023
    CALLS.clear()
    est = estimate_power(_coin(0.5), Design({}), 0.5, 0.5, 0.8, draws=20000)
    assert CALLS == [100, 2401] and est.error <= MC_HALF_WIDTH


def test_the_size_search_decides_as_soon_as_the_interval_clears_the_target() -> None:
    CALLS.clear()
    est = estimate_power(_coin(0.5), Design({}), 0.5, 0.5, 0.8, draws=2000, target=0.8)
    assert CALLS == [100] and est.power == 0.5  # 0.5's interval at 100 draws, [0.40, 0.60], lies below 0.8


def test_a_cap_declared_by_the_family_is_the_draws_said() -> None:
    CALLS.clear()
    est = estimate_power(replace(_coin(0.5), most_draws=200), Design({}), 0.5, 0.5, 0.8, draws=2000)
    assert CALLS == [100, 200] and est.draws == 200
    # the refusal simulations, vectorised (gate_power.refusal_fail_rate), run as many audits as the others
    assert DECLARED["decision.refusal_disparity"].most_draws == 2000


def test_a_closed_form_has_no_monte_carlo_error() -> None:
    gp = DECLARED["crows_pairs.pct_stereotype"]
    design = Design({("all",): 50})
    est = estimate_power(gp, design, 0.7, 0.0, 0.6)
    assert est.draws == 0 and est.error == 0.0
    assert est.power == power_at(gp, design, 0.7, 0.0, 0.6)
    assert size_for(gp, design, 0.7, 0.0, 0.6, adaptive=True) == size_for(gp, design, 0.7, 0.0, 0.6)


def test_the_sentence_states_the_error() -> None:
    a = PowerAnswer("s", "g >= 0.8", "g", 0.6, "an effect", None, 0.62, 50, 120, "questions", "simulation: x",
                    draws=2000, mc_error=0.0213)
    assert "power 62% (Monte-Carlo error +-2.1% at 95%, 2,000 simulated audits" in a.sentence()
    closed = replace(a, draws=0, mc_error=0.0)
    assert "Monte-Carlo" not in closed.sentence()


def test_the_shortfall_tables_are_kept_by_size_not_by_count(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.metrics import gate_power as gp

    first = gp.shortfall_p_table(5, 7)
    assert gp.shortfall_p_table(5, 7) is first  # kept: not rebuilt
    assert (first == gp.shortfall_table_of(5, 7)).all()
    monkeypatch.setattr(gp, "_TABLE_BYTES", first.nbytes)  # room for one table of 6 x 8
    gp.shortfall_p_table(6, 7)
    assert (5, 7, gp.dst.FOUR_FIFTHS) not in gp._TABLES and (6, 7, gp.dst.FOUR_FIFTHS) in gp._TABLES
    assert sum(t.nbytes for t in gp._TABLES.values()) == gp._KEPT_BYTES
