"""User-facing failures and the exit codes the CLI promises.

A user mistake (unknown suite, missing data set, missing API key, bad sheet) raises HarnessError with one
sentence that says what is wrong and what to do; the CLI prints it and exits non-zero, never a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_GATE_FAILED = 1  # a --fail-above gate or a fairness threshold failed: the bot is measurably biased
EXIT_USAGE = 2  # bad input: unknown suite/target, malformed file, missing data set or key
EXIT_INFRA = 3  # infrastructure failure: too many errors talking to the target, nothing to score


class HarnessError(Exception):
    """An expected failure with a one-sentence message for the user."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        if exit_code is not None:
            self.exit_code = exit_code


class DataMissingError(HarnessError):
    """A data set is not in the data directory; the message names the command that fetches it."""


class ConfigError(HarnessError):
    """A suite, target or settings file is malformed or refers to something that does not exist."""


class InfrastructureError(HarnessError):
    exit_code = EXIT_INFRA
