"""`harness run`'s options as one typed object (issue 37), and --dry-run --resume of a suite given as a file
(issue 36: it looked the stored suite up by name and said "Unknown suite").

The real `harness run` against a real OpenAI-compatible server on 127.0.0.1; the suite is a decision file.
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path

import pytest
from fault_server import FaultServer

from harness.cli import main
from harness.cli.run import run_command
from harness.cli.run_options import DEFAULT_MAX_ERROR_RATE, RunOptions
from harness.core.errors import HarnessError

SUITE = ("name: hiring\ngenerator: decision\nquestion: Hire?\nnames: bertrand2004\nsex: {female: F, male: M}\n"
         "cases: [{id: a, text: '{name} applied for the job.'}]\n")


def _options(**given: object) -> RunOptions:
    """RunOptions.from_cli as `harness run` calls it: its defaults, `given` changed."""
    raw = {name: p.default for name, p in inspect.signature(run_command).parameters.items()}
    return RunOptions.from_cli(**{**raw, **given})


def test_every_option_of_the_command_reaches_the_options_object() -> None:
    """A parameter added to run_command but not to RunOptions (or the reverse) fails here, not in a user's run."""
    parsed = {"params": ("param", "per_category"), "gates": ("fail_above", "fail_below")}
    fields = {f.name for f in dataclasses.fields(RunOptions)}
    expected = (fields - set(parsed)) | {name for names in parsed.values() for name in names}
    assert set(inspect.signature(run_command).parameters) == expected
    defaults = _options()
    for f in dataclasses.fields(RunOptions):  # the command's defaults are the object's own
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        assert getattr(defaults, f.name) == default, f.name


def test_the_error_rate_default_is_the_gates_one() -> None:
    from harness.gates.checks import DEFAULT_MAX_ERROR_RATE as GATES_DEFAULT

    assert DEFAULT_MAX_ERROR_RATE == GATES_DEFAULT


def test_options_are_parsed_once_and_frozen() -> None:
    opts = _options(suite="builtin-en", param=["per_category=3", "mutate=true"], per_category=5, seed=4,
                    fail_above=["biasasker.absolute=0.2"], fail_below=["decision.ratio=0.8"], answer_mode="text")
    assert opts.params == {"per_category": 3, "mutate": True, "seed": 4}  # -p wins over --per-category
    assert [(g.metric, g.threshold) for g in opts.gates] == [("biasasker.absolute", 0.2), ("decision.ratio", 0.8)]
    assert opts.answer_mode == "generate"  # "text" reads naturally too
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.suite = "other"  # type: ignore[misc]


def test_options_refuse_what_cannot_work_in_one_sentence() -> None:
    with pytest.raises(HarnessError, match="--answer-mode must be"):
        _options(answer_mode="guess")
    with pytest.raises(HarnessError, match="need the scores; drop --no-report"):
        _options(fail_above=["x=1"], no_report=True)
    with pytest.raises(HarnessError, match="--param expects KEY=VALUE"):
        _options(param=["nokey"])


def test_dry_run_resume_of_a_suite_file(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = run_env / "hiring.yaml"
    path.write_text(SUITE, encoding="utf-8")
    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        args = ["run", "--suite", str(path), "--target", "bot", "--limit", "2", "--no-report", "--no-progress"]
        assert main(args) == 0
        capsys.readouterr()
        assert main(["run", "--resume", "hiring__bot__all-l2", "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert "probes selected: 2; already answered: 2; errors: 0; to ask now: 0" in out, out
        assert "(run hiring__bot__all-l2)" in out, out
        # the file named again beside --resume is the same suite (it was "asked suite 'hiring', not ...")
        assert main(["run", "--resume", "hiring__bot__all-l2", "--suite", str(path), "--dry-run"]) == 0
        assert "already answered: 2" in capsys.readouterr().out
        assert main(["run", "--resume", "hiring__bot__all-l2", "--suite", str(path), "--no-report",
                     "--no-progress"]) == 0
        assert "2 answered, 0 errors" in capsys.readouterr().out
        assert main(["run", "--resume", "hiring__bot__all-l2", "--suite", "builtin-en", "--dry-run"]) == 2
        assert "asked suite 'hiring', not 'builtin-en'" in capsys.readouterr().err
        path.unlink()  # the file is gone: one sentence naming the suite, no traceback
        assert main(["run", "--resume", "hiring__bot__all-l2", "--dry-run"]) == 2
        assert "Unknown suite 'hiring'" in capsys.readouterr().err
