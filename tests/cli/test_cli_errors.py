"""A user's mistakes and broken inputs end as one sentence and the promised exit code, never a traceback.

Each test here reproduces a fault found by using the CLI the way the README says (task S5): real run folders
written with the real TranscriptWriter, real suites and data, real scoring, the real CLI entry point (and the
installed console script where the exit code of the process itself matters). No mocks.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.core.errors import EXIT_INFRA, EXIT_USAGE
from harness.core.records import Reply
from harness.question_gen.suites import load_suite, select_probes
from harness.run import manifest as mf
from harness.run.transcript import TRANSCRIPT_FILE, TranscriptWriter

HARNESS = str(Path(sys.executable).with_name("harness"))


def make_run(root: Path, run_id: str, suite: str, n: int, texts: list[str], *, selected: int | None = None,
             overrides: dict | None = None, errors: int = 0) -> Path:
    """A run folder as `harness run` leaves it: manifest + transcript of real probes of a real suite."""
    s = load_suite(suite)
    probes = list(select_probes(s, sample=n, seed=0, overrides=overrides))
    run_dir = root / run_id
    run_dir.mkdir(parents=True)
    man = mf.new_manifest(run_id=run_id, suite=s.name, target="bot", adapter="openai", settings={},
                          lang=s.lang, generator=s.generator, sample=n, selected=selected or len(probes),
                          overrides=overrides)
    man["status"] = "complete" if selected is None else "interrupted"
    mf.write_manifest(run_dir, man)
    with TranscriptWriter(run_dir) as writer:
        for i, probe in enumerate(probes):
            if i < errors:
                writer.append(probe, Reply(probe_id=probe.id, target="bot", text="", status="error",
                                           error="ReadTimeout: no answer in 60 s", attempts=4))
            else:
                writer.append(probe, Reply(probe_id=probe.id, target="bot", text=texts[i % len(texts)]))
    return run_dir


def one_sentence(err: str) -> str:
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert lines and lines[0].startswith("error:"), err
    return " ".join(err.split())


# ------------------------------------------------------------------------------------------ compare


def test_compare_runs_of_different_families_and_missing_metrics(run_env: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Was: `harness compare` of a BiasAsker run with a CBBQ run crashed (int(NaN) in the table)."""
    root = run_env / "transcripts"
    make_run(root, "ba", "builtin-en", 30, ["Yes, I agree.", "No, everyone is different.", "The first one."])
    make_run(root, "cb", "cbbq-gender", 12, ["A", "C", "B"])
    # Same family, but B asked only one-group questions: its absolute bias rates do not exist (NaN in pandas).
    make_run(root, "rel", "builtin-en", 20, ["Yes.", "No."], overrides={"bias_types": ["relative"]})
    capsys.readouterr()

    assert main(["compare", "ba", "cb"]) == EXIT_USAGE
    err = one_sentence(capsys.readouterr().err)
    assert "share no bias metric" in err and "builtin-en" in err and "cbbq-gender" in err

    # The CBBQ summary shows accuracy and the invalid-answer share next to the scores (invalid answers are
    # outside the scores' denominators, so a bot answering nothing usable must not look unbiased).
    assert main(["report", "cb"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "CBBQ S_total" in out and "CBBQ accuracy" in out and "CBBQ invalid answers" in out

    assert main(["compare", "ba", "rel"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.split()[:1] == ["absolute_bias_rate"])
    assert "n/a" in row
    assert main(["compare", "ba", "rel", "--json", "--metric", "absolute_bias_rate"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows and all(r["b"] is None and r["p_value"] is None for r in rows)

    # Same runs, different oracles: the change would come from the oracle, and compare says so.
    assert main(["report", "rel", "-q", "--compat"]) == 0
    capsys.readouterr()
    assert main(["compare", "ba", "rel"]) == 0
    assert "scored with method default and B with --compat" in " ".join(capsys.readouterr().out.split())

    assert main(["compare", "ba", "ba", "--metric", "no_such_metric"]) == EXIT_USAGE
    assert "starts with 'no_such_metric'" in one_sentence(capsys.readouterr().err)
    assert main(["compare", "ba", "ba", "--alpha", "5"]) == EXIT_USAGE
    assert "--alpha" in one_sentence(capsys.readouterr().err)


# ------------------------------------------------------------------------------------------- report


def test_report_on_empty_garbage_and_half_written_runs(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = run_env / "transcripts"
    half = make_run(root, "half", "builtin-en", 6, ["Yes, they are."], selected=20)
    with (half / TRANSCRIPT_FILE).open("ab") as fh:
        fh.write(b'{"probe": {"id": "torn')  # a reply being written (or a kill -9): not a record yet
    capsys.readouterr()
    assert main(["report", "half", "-q"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "incomplete" in out and "6 of 20" in out and "harness run --resume half" in out
    assert "is incomplete" in (half / "report.html").read_text(encoding="utf-8")
    assert main(["report", "half"]) == 0  # not quiet: the note is in the summary, once
    assert " ".join(capsys.readouterr().out.split()).count("is incomplete") == 1

    empty = make_run(root, "empty", "builtin-en", 3, ["x"], selected=3)
    (empty / TRANSCRIPT_FILE).write_bytes(b"")
    assert main(["report", "empty"]) == EXIT_INFRA  # nothing asked yet: was exit 0 with an empty report
    assert "no reply recorded yet" in one_sentence(capsys.readouterr().err)
    assert not (empty / "report.html").exists()

    garbage = make_run(root, "garbage", "builtin-en", 3, ["x"])
    (garbage / TRANSCRIPT_FILE).write_text('hello\n{"a": 1}\n', encoding="utf-8")
    assert main(["report", "garbage"]) == EXIT_USAGE  # was exit 0, "Answered 0"
    assert "no harness record" in one_sentence(capsys.readouterr().err)

    assert main(["report", "half", "--max-error-rate", "5"]) == EXIT_USAGE
    assert "--max-error-rate" in one_sentence(capsys.readouterr().err)

    # Was: --max-error-rate was only checked together with --fail-above, so this exited 0.
    failing = make_run(root, "failing", "builtin-en", 10, ["Yes."], errors=6)
    assert main(["report", "failing", "-q"]) == EXIT_INFRA
    assert "60.0% of probes failed" in " ".join(capsys.readouterr().out.split())
    assert (failing / "report.html").exists()  # the report that lists the errors is still written
    assert main(["report", "failing", "-q", "--max-error-rate", "0.7"]) == 0


def test_malformed_answer_sheets(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {
        "header.csv": (b"garbage,,,\n", "has no column(s) probe_id"),
        "empty.csv": (b"", "is empty"),
        "fake.xlsx": (b"not a zip file", "not a valid .xlsx"),
        "binary.csv": (b"\x00\x01\xff\xfe\x81", "neither UTF-8 nor GBK"),
    }
    for name, (content, expected) in cases.items():
        (run_env / name).write_bytes(content)
        assert main(["import", name, "-t", "bot"]) == EXIT_USAGE, name
        assert expected in one_sentence(capsys.readouterr().err), name
    assert main(["import", "missing.csv", "-t", "bot"]) == EXIT_USAGE
    assert "Cannot read sheet" in one_sentence(capsys.readouterr().err)
    assert not (run_env / "transcripts").exists()


# ---------------------------------------------------------------------------------------------- run


def test_run_rejects_bad_method_gate_and_answer_mode_before_asking(run_env: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Was: a misspelt --method surfaced only when scoring, after every probe had been asked."""
    base = ["run", "-s", "builtin-en", "-t", "local", "--sample", "2", "--no-progress"]
    assert main([*base, "--method", "sentense"]) == EXIT_USAGE
    assert "Unknown oracle method 'sentense'" in one_sentence(capsys.readouterr().err)
    assert not (run_env / "transcripts").exists()  # nothing was started, no model loaded

    # The same for the person who would otherwise type 50 replies first, and for an answer sheet.
    assert main(["manual", "-s", "builtin-en", "-t", "xiaoai", "--sample", "2", "--method", "sentense"]) == EXIT_USAGE
    assert "Unknown oracle method" in one_sentence(capsys.readouterr().err)
    sheet = run_env / "q.csv"
    assert main(["export", "-s", "builtin-en", "--sample", "2", "--out", str(sheet)]) == 0
    assert main(["import", str(sheet), "-t", "xiaoai", "--method", "sentense"]) == EXIT_USAGE
    assert "Unknown oracle method" in one_sentence(capsys.readouterr().err)
    assert not (run_env / "transcripts").exists()

    assert main([*base, "--dry-run", "--fail-above", "absolute_bias_rate"]) == EXIT_USAGE  # was accepted
    assert "METRIC=VALUE" in one_sentence(capsys.readouterr().err)
    assert main(["run", "-s", "cbbq-gender", "-t", "tencent", "--answer-mode", "loglik", "--dry-run"]) == EXIT_USAGE
    assert "needs an hf target" in one_sentence(capsys.readouterr().err)


def test_dry_run_counts_the_folder_the_run_would_use(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: --dry-run ignored --run-id (and the -loglik suffix) and counted against another folder."""
    make_run(run_env / "transcripts", "mine", "builtin-en", 3, ["Yes."])
    assert main(["run", "-s", "builtin-en", "-t", "local", "--sample", "3", "--run-id", "mine", "--dry-run"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "(run mine)" in out and "already answered: 3" in out and "to ask now: 0" in out
    assert main(["run", "-s", "builtin-en", "-t", "local", "--sample", "3", "--run-id", "mine", "--new",
                 "--dry-run"]) == 0
    assert "to ask now: 3" in " ".join(capsys.readouterr().out.split())  # --new starts a fresh folder
    assert main(["run", "-s", "cbbq-gender", "-t", "local-zh-hf", "--answer-mode", "loglik", "--sample", "2",
                 "--dry-run"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "-loglik)" in out and "up to 0 out" in out


def test_misspelt_gate_metric_after_a_run_says_how_to_gate_again(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Metric names are known only once the run is scored: the error must say nothing needs asking again."""
    (run_env / "targets.toml").write_text(
        '[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unused")  # every probe is answered: the endpoint is never called
    make_run(run_env / "transcripts", "done", "builtin-en", 6, ["Yes."])
    assert main(["run", "--resume", "done", "--no-progress", "--fail-above", "absolute_bias_rat=0.1"]) == EXIT_USAGE
    err = one_sentence(capsys.readouterr().err)
    assert "Did you mean absolute_bias_rate" in err and "harness report done --fail-above" in err
    assert main(["report", "done", "-q", "--fail-above", "absolute_bias_rate=1"]) == 0


def test_manifest_that_is_json_but_not_a_manifest(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: AttributeError tracebacks from `run --resume` and from `harness runs` (one bad folder hid all)."""
    make_run(run_env / "transcripts", "good", "builtin-en", 2, ["Yes."])
    bad = run_env / "transcripts" / "bad"
    bad.mkdir()
    (bad / "manifest.json").write_text("[]", encoding="utf-8")
    for argv in (["run", "--resume", "bad"], ["run", "--resume", "bad", "--dry-run"]):
        assert main(argv) == EXIT_USAGE
        assert "is not a harness run manifest" in one_sentence(capsys.readouterr().err)
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert "good" in out and "unreadable manifest" in out


def test_bad_target_definitions(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    targets = run_env / "targets.toml"
    targets.write_text('[targets.x]\nadapter = "nosuch"\n', encoding="utf-8")
    assert main(["run", "-s", "builtin-en", "-t", "x", "--dry-run"]) == EXIT_USAGE  # was accepted
    assert "Unknown adapter kind 'nosuch'" in one_sentence(capsys.readouterr().err)

    # Was: every probe became an error "TypeError: Invalid type for url" and the run exited 3.
    targets.write_text('[targets.x]\nadapter = "openai"\nmodel = "m"\nbase_url = 5\n', encoding="utf-8")
    assert main(["run", "-s", "builtin-en", "-t", "x", "--sample", "1", "--no-progress"]) == EXIT_USAGE
    assert "targets.x.base_url must be a quoted string" in one_sentence(capsys.readouterr().err)
    assert not (run_env / "transcripts").exists()

    targets.write_text("[targets.x\n", encoding="utf-8")
    assert main(["targets"]) == EXIT_USAGE
    assert "not valid TOML" in one_sentence(capsys.readouterr().err)


def test_missing_keys_and_data(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                               capsys: pytest.CaptureFixture[str]) -> None:
    for var in ("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    assert main(["run", "-s", "builtin-zh", "-t", "tencent", "--sample", "1", "--no-progress"]) == EXIT_USAGE
    assert "TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY" in one_sentence(capsys.readouterr().err)
    assert main(["run", "-s", "builtin-en", "-t", "openai", "--sample", "1", "--no-progress"]) == EXIT_USAGE
    assert "OPENAI_API_KEY" in one_sentence(capsys.readouterr().err)

    empty = run_env / "no-data"
    empty.mkdir()
    monkeypatch.setenv("HARNESS_DATA_DIR", str(empty))
    assert main(["run", "-s", "biasasker-en", "-t", "local", "--dry-run"]) == EXIT_USAGE
    assert "harness data pull biasasker" in one_sentence(capsys.readouterr().err)
    assert main(["questions", "-s", "cbbq", "--limit", "1"]) == EXIT_USAGE
    assert "harness data pull cbbq" in one_sentence(capsys.readouterr().err)


def test_suite_file_that_is_not_utf8(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = run_env / "mine.yaml"
    suite.write_text("name: mine\ngenerator: biasasker\nlang: en\n", encoding="utf-16")  # was a traceback
    assert main(["questions", "-s", str(suite)]) == EXIT_USAGE
    assert "not UTF-8" in one_sentence(capsys.readouterr().err)


def test_run_of_a_selection_without_probes_is_a_usage_error(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: exit 3 "No probe was answered ... see the errors above", with no error above (an empty selection;
    a misspelt filter value is caught earlier, naming the value: tests/cli/test_user_findings.py)."""
    suite = run_env / "typo.yaml"
    suite.write_text("name: typo\ngenerator: biasasker\nlang: en\ncatalog: builtin\ngroups_per_attribute: 0\n",
                     encoding="utf-8")
    assert main(["run", "-s", str(suite), "-t", "local", "--no-progress"]) == EXIT_USAGE
    assert "has no probe to ask" in one_sentence(capsys.readouterr().err)
    for fmt in ("table", "jsonl"):  # was "no probes selected." and exit 0
        assert main(["questions", "-s", str(suite), "-f", fmt]) == EXIT_USAGE
        assert "has no probe" in one_sentence(capsys.readouterr().err)


# --------------------------------------------------------------------------- the process exit codes


def test_console_script_never_exits_1_on_a_machine_fault(run_env: Path) -> None:
    """Exit 1 means "a bias gate failed"; an OSError (or a bug) used to escape as Python's exit 1."""
    blocker = run_env / "a-file"
    blocker.write_text("", encoding="utf-8")
    proc = subprocess.run([HARNESS, "export", "--suite", "builtin-en", "--sample", "2", "--out",
                           str(blocker / "q.csv")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT_INFRA, proc.stderr
    assert "Traceback" not in proc.stderr and str(blocker) in one_sentence(proc.stderr)

    # Such a message quotes whatever the failing call held; a secret from the environment is masked.
    sentinel = "sk-SENTINEL-0123456789abcdef"
    proc = subprocess.run([HARNESS, "export", "--suite", "builtin-en", "--sample", "2", "--out",
                           str(blocker / sentinel / "q.csv")], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "MY_BOT_API_KEY": sentinel})
    assert proc.returncode == EXIT_INFRA and sentinel not in proc.stderr and "***" in proc.stderr

    proc = subprocess.run([HARNESS, "compare", "nosuch-a", "nosuch-b"], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == EXIT_USAGE and "No run folder 'nosuch-a'" in one_sentence(proc.stderr)


def test_ctrl_c_outside_a_run_exits_130_quietly(run_env: Path) -> None:
    """Ctrl-C while streaming probes: exit 130, no KeyboardInterrupt traceback (a run has its own test)."""
    proc = subprocess.Popen([HARNESS, "questions", "-s", "builtin-en", "-f", "jsonl"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and json.loads(proc.stdout.readline())["suite"] == "builtin-en"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
