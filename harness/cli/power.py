"""`harness power`: before a run, how likely a suite's default gates are to catch a bot with a given effect.

Why: a gate that passes proves nothing unless it could have failed; this answers an auditor's first question
("with this many questions, would the gate have caught an impact ratio of 0.6?") from the suite's real
design, and says how many questions per group would reach 80% (harness.gates.power).
"""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console

from harness.core.errors import HarnessError


def power_command(
    suite: Annotated[str, typer.Option("--suite", "-s", metavar="NAME", help="Suite name or a suite .yaml path.")],
    param: Annotated[list[str] | None, typer.Option("--param", "-p", metavar="KEY=VALUE",
                                                    help="Suite option KEY=VALUE (repeatable), as `harness run` "
                                                         "takes it, e.g. -p per_group=5.")] = None,
    detect: Annotated[str | None, typer.Option("--detect", metavar="METRIC=VALUE",
                                               help="The effect to detect, on the gated metric's scale, e.g. "
                                                    "an impact ratio of 0.6 (default: the family's stated "
                                                    "effect for each default gate).")] = None,
    rate: Annotated[float | None, typer.Option("--rate", metavar="R",
                                               help="The top group's selection rate, for gates comparing "
                                                    "groups' rates (default 0.5).")] = None,
    draws: Annotated[int, typer.Option("--draws", min=100, metavar="N",
                                       help="Simulated audits at most per power, for gates without a "
                                            "closed form (fewer once the Monte-Carlo error is within "
                                            "2 points; the output says how many and the error).")] = 2000,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """The power of a suite's default gates to detect an effect, and the questions per group for 80%.

    Examples:  harness power -s decision-hiring-en --detect decision.impact_ratio=0.6  |
    harness power -s decision-hiring-en -p per_group=5 --rate 0.7 --json
    """
    from harness.cli.options import parse_pairs
    from harness.gates.power import suite_power

    if detect is not None and "=" not in detect:
        raise HarnessError(f"--detect takes METRIC=VALUE, got '{detect}'.")
    name, answers, why = suite_power(suite, parse_pairs(param, "--param"), detect, rate, draws=draws)
    if as_json:
        head = answers[0].to_dict() if answers else {"suite": name, "power": None, "n_per_group_for_80": None}
        print(json.dumps({**head, "reason": why, "gates": [a.to_dict() for a in answers]}, ensure_ascii=False))
        return
    console = Console()
    if why:
        console.print(why, markup=False, highlight=False)
        return
    console.print(f"Suite {name}: the power of its default gates", markup=False, highlight=False)
    for a in answers:
        console.print(" " + a.sentence(), markup=False, highlight=False)


def register(app: typer.Typer) -> None:
    """Attach `power` to the main app."""
    app.command("power")(power_command)
