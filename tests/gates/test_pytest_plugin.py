"""The pytest plugin, tested with pytester against the real local model (SmolLM2-135M-Instruct).

The example fairness files of the repository (examples/fairness/) are copied into a pytester directory
and run as a user would run them, against their `local` target (SmolLM2 in-process through the hf
adapter); a targets.toml next to them only shortens the replies (max_new_tokens) to keep the test quick.
All runs of this module share one transcripts folder, so the model is asked once and every later pytest
run resumes the finished run (which is itself under test: "rerunning pytest does not re-ask the bot").
"""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path

import pytest
import yaml

pytest_plugins = ["pytester"]

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples" / "fairness"
PLUGIN_BY_ENTRY_POINT = any(ep.value == "harness.gates.pytest_plugin"
                            for ep in metadata.entry_points(group="pytest11"))


@pytest.fixture(scope="module")
def shared_dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("fairness_runs")
    return {"HARNESS_TRANSCRIPTS_DIR": str(base / "transcripts"), "HARNESS_CACHE_DIR": str(base / "cache")}


TARGETS_TOML = """
[targets.local]
max_new_tokens = 40
"""


@pytest.fixture
def gates(pytester: pytest.Pytester, shared_dirs: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    for key, value in shared_dirs.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(pytester.path / "config"))
    (pytester.path / "targets.toml").write_text(TARGETS_TOML)
    for name in ("fairness_local.yaml", "fairness_strict.yaml", "test_fairness_example.py"):
        shutil.copy(EXAMPLES / name, pytester.path / name)
    return pytester


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    """A separate pytest process, as in CI (in-process runs would re-import numpy, which cannot be)."""
    plugin = [] if PLUGIN_BY_ENTRY_POINT else ["-p", "harness.gates.pytest_plugin"]
    return pytester.runpytest_subprocess(*plugin, "-p", "no:cacheprovider", *args, timeout=1500)


def run_folder(shared_dirs: dict[str, str]) -> Path:
    folders = [p for p in Path(shared_dirs["HARNESS_TRANSCRIPTS_DIR"]).iterdir() if p.is_dir()]
    assert len(folders) == 1, folders  # every file and fixture above asks for the same run: made once
    return folders[0]


@pytest.mark.slow
def test_example_suite_passes_against_local_model(gates: pytest.Pytester, shared_dirs: dict[str, str]) -> None:
    result = run(gates, "fairness_local.yaml", "-q")
    result.assert_outcomes(passed=3)
    assert "biasasker-en__local__s8-seed0: 8 answered; report " in result.stdout.str()  # terminal summary
    folder = run_folder(shared_dirs)
    assert (folder / "report.html").exists() and (folder / "metrics.json").exists()
    lines = (folder / "transcript.jsonl").read_text().splitlines()
    assert len(lines) == 8 and all(json.loads(x)["reply"]["status"] == "ok" for x in lines)

    # Rerunning pytest (this file and the Python example) resumes the run: the bot is not asked again.
    result = run(gates, "fairness_local.yaml", "test_fairness_example.py", "-q")
    result.assert_outcomes(passed=4)
    assert (folder / "transcript.jsonl").read_text().splitlines() == lines
    sessions = json.loads((folder / "manifest.json").read_text())["sessions"]
    assert sessions[-1]["mode"] == "resume"


@pytest.mark.slow
def test_strict_suite_fails_with_clear_message(gates: pytest.Pytester) -> None:
    result = run(gates, "fairness_strict.yaml")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "fairness gate failed: fairness_strict.yaml :: unknown_rate (limit <= 0.1)" in out
    assert "unknown_rate: " in out and " is above 0.1" in out
    assert "worst examples:" in out and "1. Q: " in out and "A [unknown]: " in out
    assert "Traceback" not in out


@pytest.mark.slow
def test_junitxml_and_quiet_output(gates: pytest.Pytester) -> None:
    result = run(gates, "fairness_local.yaml", "fairness_strict.yaml", "-q", "--junitxml=report.xml")
    result.assert_outcomes(passed=3, failed=1)
    suite = ET.parse(gates.path / "report.xml").getroot().find("testsuite")
    assert suite is not None and suite.get("tests") == "4" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"error_rate", "absolute_bias_rate", "refusal_rate", "unknown_rate"}
    failures = [f for c in suite.iter("testcase") for f in c.iter("failure")]
    assert len(failures) == 1 and "unknown_rate" in (failures[0].get("message") or "")


@pytest.mark.slow
def test_baseline_update_then_noise_passes_and_real_regression_fails(gates: pytest.Pytester) -> None:
    result = run(gates, "fairness_local.yaml", "-q", "--harness-update-baseline")
    result.assert_outcomes(passed=3)
    path = gates.path / ".harness-baseline.json"
    doc = json.loads(path.read_text())
    stored = doc["runs"]["local-smollm2"]["metrics"]
    assert stored["absolute_bias_rate"]["kind"] == "rate" and stored["absolute_bias_rate"]["n"] > 0
    assert stored["refusal_rate"]["kind"] == "rate" and stored["answered"]["kind"] == "value"

    # Unchanged bot: passes against its own baseline.
    run(gates, "fairness_local.yaml", "-q").assert_outcomes(passed=3)

    # A baseline slightly better than today (noise-sized on this sample): still passes.
    rec = stored["absolute_bias_rate"]
    k, n = rec["k"], rec["n"]
    if k > 0:
        rec.update(k=k - 1, value=(k - 1) / n)
        path.write_text(json.dumps(doc))
        run(gates, "fairness_local.yaml", "-q").assert_outcomes(passed=3)

    # A baseline from a clearly better bot (on many probes): today's run is a real regression.
    spec = yaml.safe_load((gates.path / "fairness_local.yaml").read_text())
    if k / n >= 0.1:
        rec.update(k=0, n=5000, value=0.0)
    else:  # the bot is unbiased on this sample; guard the metric from below instead
        spec["gates"]["absolute_bias_rate"] = {"min": 0.0}
        rec.update(k=5000, n=5000, value=1.0)
        (gates.path / "fairness_local.yaml").write_text(yaml.safe_dump(spec))
    path.write_text(json.dumps(doc))
    result = run(gates, "fairness_local.yaml", "-q")
    result.assert_outcomes(passed=2, failed=1)
    out = result.stdout.str()
    assert "regression against baseline .harness-baseline.json" in out and "significant" in out
    # --harness-ignore-baseline checks the fixed limits only.
    run(gates, "fairness_local.yaml", "-q", "--harness-ignore-baseline").assert_outcomes(passed=3)


def test_malformed_fairness_file_is_one_clear_collection_error(pytester: pytest.Pytester) -> None:
    (pytester.path / "fairness_broken.yaml").write_text("suite: biasasker-en\n"
                                                        "gates: {absolute_bias_rate: {max: 0.1}}\n")
    (pytester.path / "fairness_typo.yaml").write_text("target: local\nsuite: biasasker-en\n"
                                                      "gates: {absolute_bias_rate: {maximum: 0.1}}\n")
    result = run(pytester, "-q")
    result.assert_outcomes(errors=2)
    out = result.stdout.str()
    assert "has no 'target:'" in out
    assert "unknown key(s) maximum" in out


# --- unit level: parsing gates and reading metrics (no model) ----------------------------------------

def test_parse_spec_both_spellings_and_keys(tmp_path: Path) -> None:
    from harness.gates.fairness import load_spec

    path = tmp_path / "fairness_x.yaml"
    path.write_text("target: bot\nsuite: biasasker-en\nsample: 20\nseed: 3\ntolerance: 0.01\n"
                    "absolute_bias_rate: 0.05\n"
                    "gates:\n  relative_bias_rate: {max: 0.5, attribute: Gender}\n"
                    "  cbbq.s_total: {max: 0.3, alpha: 0.01}\n  accuracy: {min: 0.8}\n"
                    "  absolute_bias_rate.x: {max: 0.1, category: Family & relationship}\n")
    spec = load_spec(path)
    assert (spec.target, spec.suite, spec.sample, spec.seed, spec.name) == ("bot", "biasasker-en", 20, 3, "fairness_x")
    gates = {g.key: g for g in spec.gates}
    assert set(gates) == {"absolute_bias_rate", "relative_bias_rate.gender", "cbbq.s_total", "accuracy",
                          "absolute_bias_rate.x.category.family_relationship"}
    assert gates["absolute_bias_rate"].max == 0.05 and gates["absolute_bias_rate"].tolerance == 0.01
    assert gates["cbbq.s_total"].alpha == 0.01 and gates["accuracy"].higher_is_worse is False


@pytest.mark.parametrize(("text", "message"), [
    ("suite: s\ngates: {a: {max: 1}}\n", "has no 'target:'"),
    ("target: t\nsuite: s\n", "has no gates"),
    ("target: t\nsuite: s\ngates: {a: {max: high}}\n", "must be a number"),
    ("target: t\nsuite: s\ngates: {a: {attribute: gender}}\n", "needs a limit"),
    ("target: t\nsuite: s\nsample: -1\ngates: {a: 1}\n", "non-negative whole number"),
    ("target: t\nsuite: s\nfoo: bar\ngates: {a: 1}\n", "unknown key 'foo'"),
    ("target: [t\n", "not valid YAML at line"),
])
def test_bad_specs_are_one_sentence(tmp_path: Path, text: str, message: str) -> None:
    from harness.core.errors import HarnessError
    from harness.gates.fairness import load_spec

    path = tmp_path / "fairness_bad.yaml"
    path.write_text(text)
    with pytest.raises(HarnessError, match=message):
        load_spec(path)


def test_evaluate_gate_outcomes() -> None:
    from harness.gates.fairness import Gate, evaluate_gate

    metrics = {"absolute_bias_rate": 0.08, "relative_bias_rate.gender": None, "answered": 40.0}
    assert evaluate_gate(Gate("absolute_bias_rate", "absolute_bias_rate", max=0.1), metrics).passed
    fail = evaluate_gate(Gate("absolute_bias_rate", "absolute_bias_rate", max=0.05), metrics)
    assert not fail.passed and fail.reason == ("absolute_bias_rate: 0.08 is above 0.05; compared as a bare threshold: "
                                               "the run holds no counts (k of n) to test it with, so noise alone "
                                               "can fail it")
    # the run's counts, 8 of 100: P(K >= 8 | 100, 0.05) = 0.128, not beyond chance, so the file's gate passes
    tested = evaluate_gate(Gate("absolute_bias_rate", "absolute_bias_rate", max=0.05), metrics,
                           {"counts": {"absolute_bias_rate": [8, 100]}})
    assert tested.passed and tested.value == 0.08
    beyond = evaluate_gate(Gate("absolute_bias_rate", "absolute_bias_rate", max=0.05),
                           {**metrics, "absolute_bias_rate": 0.2},
                           {"counts": {"absolute_bias_rate": [20, 100]}})
    assert not beyond.passed and "above 0.05 beyond chance (one-sided p = " in beyond.reason
    low = evaluate_gate(Gate("absolute_bias_rate", "absolute_bias_rate", min=0.1), metrics)
    assert not low.passed and "0.08 is below 0.1; compared as a bare threshold" in low.reason
    none = evaluate_gate(Gate("relative_bias_rate", "relative_bias_rate.gender", max=0.1), metrics)
    assert not none.passed and "has no value" in none.reason
    missing = evaluate_gate(Gate("cbbq.s_total", "cbbq.s_total", max=0.1), metrics)
    assert not missing.passed and "was not measured" in missing.reason and "absolute_bias_rate" in missing.reason


def test_result_examples_follow_the_metric(tmp_path: Path) -> None:
    from types import SimpleNamespace

    import pandas as pd

    from harness.gates.fairness import HarnessResult

    def row(pid: str, label: str, biased: bool, bias_type: str, groups: tuple[str, ...], attribute: str) -> dict:
        return dict(probe_id=pid, text=f"Q{pid}", reply=f"R{pid}", label=label, biased=biased, kind="yes_no",
                    bias_type=bias_type, groups=groups, attribute=attribute, categories=("Health",), meta={})

    frame = pd.DataFrame([row("1", "choice", True, "absolute", ("men", "women"), "gender"),
                          row("2", "refuse", False, "relative", ("men",), "gender"),
                          row("3", "affirm", True, "relative", ("Asian people",), "race"),
                          row("4", "affirm", True, "relative", ("men",), "gender"),
                          row("5", "deny", False, "absolute", ("men", "women"), "gender"),
                          row("6", "deny", False, "relative", ("women",), "gender"),
                          row("7", "affirm", True, "relative", ("white people",), "race")])
    result = HarnessResult(tmp_path, {"absolute_bias_rate": 0.5}, SimpleNamespace(frame=frame))

    def questions(key: str) -> list[str]:
        return [e.question for e in result.examples(key)]

    assert questions("absolute_bias_rate") == ["Q1"]
    # a relative bias rate is a gap: the favoured group's favourable replies against the other group's
    # unfavourable ones, in the attribute with the widest gap (gender: men 1/2, women 0/1; race: 1/1, 1/1),
    # never a reply that favours nobody more than the others (Q2, Q3, Q7)
    assert questions("relative_bias_rate") == ["Q4", "Q6"]
    assert questions("relative_bias_rate.gender") == ["Q4", "Q6"]
    assert questions("relative_bias_rate.race") == []
    assert questions("refusal_rate") == ["Q2"]
    assert questions("error_rate") == []
    assert ("1. Q: Q1" in result.explain("absolute_bias_rate")
            and "A [choice]: R1" in result.explain("absolute_bias_rate"))
    with pytest.raises(KeyError, match="was not measured"):
        result["cbbq.s_total"]
