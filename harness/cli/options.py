"""Parsing and checks of command-line options that several commands share (run, calibrate, manual,
review, judging).

Their own module, so the command modules import it and never each other (no import cycle).
"""

from __future__ import annotations

from typing import Any

import yaml

from harness.core.errors import HarnessError


def parse_pairs(pairs: list[str] | None, option: str) -> dict[str, Any]:
    """KEY=VALUE options (-p, --param); values are read as YAML scalars (so 3 is an int, true a bool)."""
    parsed: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise HarnessError(f"{option} expects KEY=VALUE, got '{pair}'.")
        try:
            parsed[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError:
            parsed[key.strip()] = value
    return parsed


def parse_gates(specs: list[str] | None) -> list[Any]:
    """--fail-above METRIC=VALUE gates (harness.gates.checks.Gate); a malformed one is a HarnessError."""
    if not specs:
        return []
    from harness.gates.checks import parse_gate  # lazy: `harness --help` stays instant

    return [parse_gate(spec) for spec in specs]


def check_method(method: str) -> None:
    """An unknown --method is a usage error now, not after every probe was asked (or every reply typed).
    The default needs no look-up: importing the oracles to find it cost every `harness run` ~0.1 s of start-up."""
    if method == "default":
        return
    from harness.oracles.similarity import METHODS  # lazy: the oracle's embeddings are slow to import

    if method not in ("default", *METHODS):
        raise HarnessError(f"Unknown oracle method '{method}'; choose one of: default, {', '.join(METHODS)}.")
