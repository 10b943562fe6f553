"""Issue 26, "Bad input that still ends as internal error": each one sentence and exit 2, with real files.

oracle-eval on a labelled file with a cut-off JSON line or binary bytes; a user's judge function
(`--judge py:MODULE:FUNCTION`) that raises, also under --dry-run, and a suite option typo found before the
judge is loaded; `harness perturb --out` naming a folder; `harness debias` refusals before the training modules,
transformers and accelerate are imported (checked in a fresh interpreter) and without a blank line first; an unknown
adapter kind in targets.toml named with its target and file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from run_builders import make_run

from harness.cli import main
from harness.core.errors import EXIT_USAGE
from harness.judge.labelled import default_data_dir

HARNESS = str(Path(sys.executable).with_name("harness"))


def _data_copy(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    shutil.copytree(default_data_dir(), data, ignore=shutil.ignore_patterns("golden", "*.xlsx"))
    return data


@pytest.mark.parametrize("tail, expected", [
    (b'{"probe": {"id": "x", "suite": "s", "lang": "en", "ki', "not a complete JSON object"),  # cut off
    (b"\x00\xff\xfe binary\n", "not UTF-8 text"),
])
def test_oracle_eval_names_the_damaged_file_and_line(run_env: Path, capsys: pytest.CaptureFixture[str],
                                                     tail: bytes, expected: str) -> None:
    data = _data_copy(run_env)
    path = data / "labelled_en_batch7.jsonl"
    text = path.read_bytes()
    path.write_bytes(text + tail)
    assert main(["oracle-eval", "--data", str(data)]) == EXIT_USAGE  # was exit 3, "internal error"
    err = " ".join(capsys.readouterr().err.split())
    assert f"labelled_en_batch7.jsonl, line {len(text.splitlines()) + 1}: {expected}" in err, err


JUDGES = '''
def raises(texts):
    raise ValueError("the classifier was not trained yet")

def counts(texts):
    open("judge-called", "a").write("x")
    return [0.5 for _ in texts]
'''


@pytest.fixture
def user_judges(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (run_env / "myjudges.py").write_text(JUDGES, encoding="utf-8")
    monkeypatch.syspath_prepend(str(run_env))
    return run_env


@pytest.mark.parametrize("dry", [False, True])
def test_a_user_judge_function_that_raises_is_one_sentence(user_judges: Path, capsys: pytest.CaptureFixture[str],
                                                           dry: bool) -> None:
    args = ["run", "-s", "political-topic", "-t", "local", "--judge", "py:myjudges:raises",
            "-p", "keywords_per_option=1", "-p", "samples=1"] + (["--dry-run"] if dry else [])
    assert main(args) == EXIT_USAGE  # was exit 3 (a traceback's "internal error"); --dry-run did not try it
    err = " ".join(capsys.readouterr().err.split())
    assert "raised ValueError: the classifier was not trained yet (myjudges.py, line 3)" in err, err
    assert not (user_judges / "transcripts").exists() or not any((user_judges / "transcripts").iterdir())


def test_a_suite_option_typo_is_found_before_the_judge_is_loaded(user_judges: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "-s", "political-topic", "-t", "local", "--judge", "py:myjudges:counts",
                 "-p", "keyword_per_option=1"]) == EXIT_USAGE
    assert "keyword_per_option" in capsys.readouterr().err
    assert not (user_judges / "judge-called").exists()  # the judge was not loaded (nor a model) for a typo


def test_perturb_out_folder(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = run_env / "turns.jsonl"
    source.write_text(json.dumps({"dialogue_id": "d1", "turns": ["My brother fixed his bike."]}) + "\n",
                      encoding="utf-8")
    folder = run_env / "outdir"
    folder.mkdir()
    assert main(["perturb", str(source), "--axis", "gender", "--out", str(folder)]) == EXIT_USAGE  # was exit 3
    assert "is a folder" in capsys.readouterr().err
    assert sorted(p.name for p in run_env.iterdir() if p.name.startswith("outdir")) == ["outdir"]  # no outdir.tmp
    assert not any(folder.iterdir())


DEBIAS_REFUSALS = [
    (["--method", "lmdd", "--category", "gender"], "Unknown debiasing method 'lmdd'"),
    (["--method", "lmd", "--category", "genderr"], "Unknown CHBias category 'genderr'"),
    (["--method", "lmd", "--category", "gender", "--grid", "huge"], "Unknown grid 'huge'"),
    (["--method", "lmd", "--category", "gender", "--heldout", "missing.txt"], "missing.txt does not exist"),
]


def test_debias_refuses_before_the_training_imports(run_env: Path) -> None:
    model = run_env / "model"
    model.mkdir()
    (model / "config.json").write_text("{}", encoding="utf-8")
    # one fresh interpreter for all four (each import of the CLI costs seconds on a busy machine)
    probe = ("import sys; from harness.cli import main\n"
             f"for args in {[a for a, _e in DEBIAS_REFUSALS]!r}:\n"
             "    print(main(['debias', '--model', 'model', '--out', 'new', *args]), flush=True)\n"
             "    print('###', file=sys.stderr, flush=True)\n"
             "heavy = ('harness.whitebox.debias.train', 'accelerate', 'transformers', 'torch', 'pandas')\n"
             "print('loaded: ' + ' '.join(m for m in heavy if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=run_env, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stdout + done.stderr
    *codes, loaded = done.stdout.split("\n")[:-1]
    assert codes == [str(EXIT_USAGE)] * len(DEBIAS_REFUSALS), done.stdout + done.stderr
    # the 15-20 s imports come after the checks (were before them); the CLI itself imports no scoring stack
    assert loaded.strip() == "loaded:"
    for err, (_args, expected) in zip(done.stderr.split("###\n"), DEBIAS_REFUSALS, strict=False):
        assert expected in " ".join(err.split()), err
        assert err.startswith("error:"), repr(err)  # one sentence, no blank line before it
    assert not (run_env / "new").exists()


def test_debias_checks_match_the_training_modules() -> None:
    pytest.importorskip("torch")
    from harness.cli.debias import GRIDS, METHODS
    from harness.whitebox.debias.objective import METHODS as TRAINED
    from harness.whitebox.debias.select import GRIDS as GRID_TABLE

    assert METHODS == TRAINED and tuple(GRID_TABLE) == GRIDS


def test_an_unknown_adapter_kind_names_its_target_and_file(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (run_env / "targets.toml").write_text('[targets.mybot]\nadapter = "opnai"\nmodel = "gpt-4o-mini"\n',
                                          encoding="utf-8")
    expected = f"Unknown adapter kind 'opnai' for target 'mybot' in {run_env / 'targets.toml'}"
    assert main(["run", "-s", "builtin-en", "-t", "mybot", "--sample", "2", "--dry-run"]) == EXIT_USAGE
    assert expected in " ".join(capsys.readouterr().err.split())
    run = run_env / "transcripts" / "judged"
    make_run(run, errors=0, n_rel=1, n_abs=1, xss=False)
    assert main(["report", str(run), "--judge", "mybot", "--dry-run"]) == EXIT_USAGE  # as a judge too
    assert expected in " ".join(capsys.readouterr().err.split())


def test_the_review_default_sample_is_the_samplers() -> None:
    from harness.cli.review import DEFAULT_SAMPLE
    from harness.human.review_sample import DEFAULT_SAMPLE as SAMPLER

    assert DEFAULT_SAMPLE == SAMPLER
