"""The meaning of --judge for the political suites (`harness run` / `harness report`).

One --judge option serves every suite: for the BiasAsker and CBBQ suites it names targets that read the
replies beside the rules (harness.cli.judging); for a suite of the political family it names the judge of
P(conservative) (harness.judge.political: a target, hf:CLASSIFIER or py:MODULE:FUNCTION). The judge is
loaded and made to score one sentence before anything is generated, so a judge that cannot score is one
sentence and exit 2, not a finished run without numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from harness.core.errors import ConfigError, HarnessError

GENERATOR = "political"


def is_political_suite(suite: str | None, resume: str | None = None, run: str | None = None) -> bool:
    """True when the suite named (or the one a run being resumed / reported asked) is a political suite."""
    from harness.run import manifest as mf

    name = suite
    folder = resume or run
    if name is None and folder:
        try:
            name = mf.read_manifest(mf.resolve_run(folder), complete=False).get("suite")
        except HarnessError:
            return False
    if not name:
        return False
    from harness.question_gen.suites import load_suite

    try:
        return load_suite(str(name)).generator == GENERATOR
    except HarnessError:
        return False


def political_judge(judge: Sequence[str] | None, *, check: bool = True) -> Any:
    """The loaded political judge for the --judge values, checked on one sentence unless `check` is False
    (--dry-run loads no model; a py:MODULE:FUNCTION judge is imported and tried even then); None when none
    was given."""
    if not judge:
        return None
    if len(judge) > 1:
        raise ConfigError("A political suite is read by one judge; give --judge once.")
    from harness.judge.political import check_judge, load_judge

    loaded = load_judge(judge[0])
    if check or loaded.kind == "callable":  # --dry-run loads no model, but a user's function costs nothing to try
        check_judge(loaded)
    return loaded
