"""Checks of command-line options that several commands share (run, manual, review, judging).

Their own module, so the command modules import it and never each other (no import cycle).
"""

from __future__ import annotations

from harness.core.errors import HarnessError


def check_method(method: str) -> None:
    """An unknown --method is a usage error now, not after every probe was asked (or every reply typed)."""
    from harness.oracles.similarity import METHODS  # lazy: the oracle's embeddings are slow to import

    if method not in ("default", *METHODS):
        raise HarnessError(f"Unknown oracle method '{method}'; choose one of: default, {', '.join(METHODS)}.")
