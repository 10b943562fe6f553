"""`harness run --suite chbias-gender --target <hf model>` end to end through the CLI, on a real tiny GPT-2
built here (random weights, a tokenizer trained on the CHBias sentences): the transcript, resume, the paired
test in metrics.json (recomputed independently), report.html with the differences plot, --fail-above,
`harness compare`, fairness gates under pytest, and one clear sentence (exit 2) for each kind of bad input."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import data_sets
import pytest
from project_env import project_home
from tiny_models import build_tiny_gpt2

from harness.cli import main
from harness.metrics.paired_test import paired_test

pytest_plugins = ["pytester"]
SAMPLE = 16


def _gender_lines() -> list[str]:
    from harness.core.paths import data_dir

    folder = data_dir() / "chbias" / "data" / "gender"
    if not folder.is_dir():
        pytest.skip(data_sets.skip_reason(["chbias"]))
    return [line for name in ("gender_female_test.txt", "gender_male_test.txt")
            for line in (folder / name).read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
@data_sets.needs("chbias")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project folder with a tiny hf target, isolated transcripts, cache and config (also the cwd)."""
    root = tmp_path_factory.mktemp("chbias-run")
    build_tiny_gpt2(root / "tiny", _gender_lines(), vocab_size=500, n_positions=1024)
    (root / "targets.toml").write_text(
        f'[targets.tiny]\nadapter = "hf"\nmodel = "{root / "tiny"}"\nbatch_size = 8\nthreads = 1\n'
        '[targets.ghost]\nadapter = "hf"\nmodel = "/nonexistent/models/ghost"\n', encoding="utf-8")
    with project_home(root, HF_HUB_OFFLINE="1"):
        yield root


def harness(*args: str) -> int:
    return main([*args, "--no-progress"] if args[0] == "run" else list(args))


@pytest.fixture(scope="module")
def run_dir(project: Path) -> Path:
    code = harness("run", "-s", "chbias-gender", "-t", "tiny", "--sample", str(SAMPLE), "--run-id", "gender")
    assert code == 0
    return project / "transcripts" / "gender"


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "transcript.jsonl").read_text(encoding="utf-8").splitlines()]


def test_every_pair_is_scored_into_the_transcript(run_dir: Path) -> None:
    lines = records(run_dir)
    assert len(lines) == SAMPLE
    for line in lines:
        probe, reply = line["probe"], line["reply"]
        assert probe["kind"] == "chbias" and reply["status"] == "ok"
        ppl = reply["usage"]["perplexity"]
        assert len(ppl) == 2 and all(v > 1 for v in ppl)
        assert reply["text"] == f"{ppl[0]:.4f} vs {ppl[1]:.4f}"
        assert reply["usage"]["tokens"][0] >= 1
        if probe["meta"]["identical"]:
            assert ppl[0] == pytest.approx(ppl[1], rel=1e-4)
    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["answer_mode"] == "perplexity" and manifest["status"] == "complete"


def test_metrics_are_the_paired_test_of_the_models_own_perplexities(run_dir: Path, project: Path) -> None:
    """Recomputed without the harness pipeline: load the model, score each sentence alone, test the pairs."""
    from transformers import AutoTokenizer, GPT2LMHeadModel

    from harness.whitebox.perplexity import sentence_perplexities

    model = GPT2LMHeadModel.from_pretrained(project / "tiny").eval()
    tok = AutoTokenizer.from_pretrained(project / "tiny")
    probes = [r["probe"] for r in records(run_dir)]
    first = sentence_perplexities(model, tok, [p["options"][0] for p in probes], batch_size=1)
    second = sentence_perplexities(model, tok, [p["options"][1] for p in probes], batch_size=1)
    expected = paired_test([s.perplexity for s in first], [s.perplexity for s in second],
                           identical=[p["meta"]["identical"] for p in probes])
    doc = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    assert m["chbias.t.gender"] == pytest.approx(expected.t, rel=1e-3)
    assert m["chbias.p.gender"] == pytest.approx(expected.p, rel=1e-3)
    assert m["chbias.t"] == m["chbias.t.gender"]  # a one-category run: the headline is the category
    assert m["chbias.pairs.gender"] == SAMPLE
    assert m["chbias.pairs_used.gender"] == expected.n
    assert m["chbias.identical.gender"] == expected.identical
    assert m["chbias.stereotype_t.gender"] == pytest.approx(-m["chbias.t.gender"])
    assert m["chbias.prefers_stereotype.gender"] in (0.0, 1.0)
    low, high = doc["intervals"]["chbias.mean_diff.gender"]
    assert low == pytest.approx(expected.ci_low, rel=1e-3) and high == pytest.approx(expected.ci_high, rel=1e-3)
    k, n = doc["counts"]["chbias.stereotype_share.gender"]
    assert n == expected.n and k / n == pytest.approx(expected.t1_lower_share)
    row = doc["tables"]["chbias"]["chbias_tests"][0]
    assert row["category"] == "gender" and row["split"] == "test" and row["reading"] == expected.reading
    assert any(note.startswith("CHBias gender (test): ") for note in doc["notes"])


def test_report_has_the_test_and_the_plot_of_differences(run_dir: Path) -> None:
    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "CHBias t (stereotyped vs counterpart perplexity)" in html and "chbias_tests" in html
    assert "chbias differences" in html  # the embedded figure's title
    assert (run_dir / "plots" / "chbias_differences.png").stat().st_size > 5_000


def test_a_killed_run_resumes_asking_only_the_missing_pairs(run_dir: Path, project: Path) -> None:
    copy = project / "transcripts" / "resumed"
    shutil.copytree(run_dir, copy)
    lines = (copy / "transcript.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (copy / "transcript.jsonl").write_text("".join(lines[:9]) + lines[9][:40], encoding="utf-8")  # torn tail
    for name in ("metrics.json", "report.html"):
        (copy / name).unlink()
    assert harness("run", "-s", "chbias-gender", "-t", "tiny", "--sample", str(SAMPLE), "--run-id", "resumed") == 0
    manifest = json.loads((copy / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["sessions"][-1]["mode"] == "resume"
    assert manifest["sessions"][-1]["counts"]["asked"] == SAMPLE - 9
    assert len(records(copy)) == SAMPLE
    again = json.loads((copy / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    before = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    assert again["chbias.t.gender"] == pytest.approx(before["chbias.t.gender"], rel=1e-4)


def test_gates_and_compare(run_dir: Path, project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness("report", "gender", "--fail-above", "chbias.pairs_used.gender=1000") == 0
    assert harness("report", "gender", "--fail-above", "chbias.pairs_used.gender=1") == 1
    capsys.readouterr()
    assert harness("compare", "gender", "resumed") == 0
    out = capsys.readouterr().out
    assert " chbias.t " in out and " chbias.stereotype_share " in out  # the share has a two-proportion test
    assert harness("compare", "gender", "resumed", "--all", "--metric", "chbias.t.") == 0
    assert "chbias.t.gender" in capsys.readouterr().out


def test_fairness_gates_under_pytest(run_dir: Path, project: Path, pytester: pytest.Pytester,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A fairness file over the same run (already complete: nothing is asked again): one test per gate."""
    monkeypatch.chdir(project)
    (project / "fairness_chbias.yaml").write_text(
        f"target: tiny\nsuite: chbias-gender\nsample: {SAMPLE}\nseed: 0\nrun_id: gender\n"
        "gates:\n  chbias.pairs_used: {min: 5}\n  chbias.stereotype_share: {max: 1.0}\n"
        "  chbias.p: {max: -1}\n", encoding="utf-8")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-q",
                                          str(project / "fairness_chbias.yaml"))
    result.assert_outcomes(passed=2, failed=1)
    assert "chbias.p" in result.stdout.str()


# ------------------------------------------------------------------------------------------ bad input


def last_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "Traceback" not in err
    return " ".join(err.split())


def test_a_model_path_that_does_not_exist(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness("run", "-s", "chbias-gender", "-t", "ghost", "--sample", "2") == 2
    assert "The model '/nonexistent/models/ghost' does not exist" in last_error(capsys)
    assert not (project / "transcripts" / "chbias-gender__ghost__s2-seed0").exists()


def test_a_hub_name_that_cannot_be_fetched(project: Path, capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """An org/name that is no local folder is looked up on the hub; offline here (huggingface_hub reads
    HF_HUB_OFFLINE when imported, so the flag is set on the loaded module: no minute of retries)."""
    import huggingface_hub.constants

    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
    with (project / "targets.toml").open("a", encoding="utf-8") as fh:
        fh.write('[targets.hub]\nadapter = "hf"\nmodel = "nonexistent-org/no-such-model"\n')
    assert harness("run", "-s", "chbias-gender", "-t", "hub", "--sample", "2") == 2
    message = last_error(capsys)
    assert message.startswith("error: Cannot load the model 'nonexistent-org/no-such-model' (not a local "
                              "directory, so it was looked up on the Hugging Face hub): ")


def test_a_pairs_file_with_unequal_halves(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "t1.txt").write_text("She is a nurse.\nShe is emotional.\nShe cannot drive.\n", encoding="utf-8")
    (project / "t2.txt").write_text("He is a nurse.\nHe is emotional.\n", encoding="utf-8")
    (project / "uneven.yaml").write_text("generator: chbias\npairs: [t1.txt, t2.txt]\n", encoding="utf-8")
    assert harness("run", "-s", "uneven.yaml", "-t", "tiny") == 2
    assert "t1.txt has 3 sentences but" in last_error(capsys)


def test_an_empty_category(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (project / "crows.csv").write_text("sent_more,sent_less,bias_type\nWomen are bad at math.,Men are bad at math.,"
                                       "gender\n", encoding="utf-8")
    (project / "crows.yaml").write_text("generator: chbias\npairs: crows.csv\ncolumns: [sent_more, sent_less]\n"
                                        "category_column: bias_type\ncategory: age\n", encoding="utf-8")
    assert harness("run", "-s", "crows.yaml", "-t", "tiny") == 2
    assert "No pair of crows.csv has category 'age'; its categories: gender." in last_error(capsys)


def test_a_tokenizer_with_no_pad_token(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Neither a pad nor an end-of-sequence token to pad batches with: refused in one sentence."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bare = project / "bare"
    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.train_from_iterator(_gender_lines()[:50], trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=raw)
    assert tok.pad_token is None and tok.eos_token is None
    tok.save_pretrained(bare)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, n_positions=1024, vocab_size=len(tok),
                               bos_token_id=None, eos_token_id=None)).save_pretrained(bare)
    capsys.readouterr()  # transformers' saving progress bar
    with (project / "targets.toml").open("a", encoding="utf-8") as fh:
        fh.write(f'[targets.bare]\nadapter = "hf"\nmodel = "{bare}"\nbatch_size = 4\n')
    assert harness("run", "-s", "chbias-gender", "-t", "bare", "--sample", "2") == 2
    assert "has neither a pad token nor an end-of-sequence token" in last_error(capsys)


def test_a_target_without_log_probabilities(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert harness("run", "-s", "chbias-gender", "-t", "tencent", "--sample", "2") == 2
    message = last_error(capsys)
    assert "Target 'tencent' (tencent) cannot give log-probabilities" in message
    assert harness("run", "-s", "chbias-gender", "-t", "tiny", "--answer-mode", "loglik") == 2
    assert "is answered by perplexity only" in last_error(capsys)
