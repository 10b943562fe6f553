"""`harness debias` end to end on a tiny GPT-2 built here (a few steps): a loadable model and a before/after
report; and bad input (no model, empty category, unknown method) as one sentence and exit 2.

The real run on SmolLM2-135M (a few hundred steps) is a documented command (docs/debias.md), not a test.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from harness.cli import main
from harness.whitebox.debias import spec
from harness.whitebox.debias.evaluate import chbias_train

sys.path.insert(0, str(Path(__file__).parent.parent))
from tiny_models import build_tiny_gpt2  # noqa: E402


@pytest.fixture(scope="module")
def tiny_zh(tmp_path_factory) -> Path:
    corpus = chbias_train(spec.GENDER)[:100]
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-zh"), corpus, vocab_size=300, n_positions=256)


def replies_file(tmp_path: Path) -> Path:
    path = tmp_path / "dialogues.jsonl"
    rows = [{"context": "你好，今天天气怎么样？", "reference": "今天天气很好。"},
            {"context": "你喜欢看书吗？", "reference": "我喜欢看书。"}]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    return path


SMOKE = ["--category", "gender", "--max-steps", "3", "--train-limit", "24", "--pairs-limit", "12",
         "--heldout-limit", "8", "--report-categories", "gender", "--batch-size", "4", "--debias-hyp", "10"]


@pytest.mark.parametrize("method", ["lmd", "ctda"])
def test_debias_writes_a_loadable_model_and_a_report(tiny_zh: Path, tmp_path: Path, method: str) -> None:
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    out = tmp_path / "out"
    code = main(["debias", "--method", method, "--model", str(tiny_zh), "--out", str(out), *SMOKE,
                 "--replies", str(replies_file(tmp_path)), "--replies-limit", "2"])
    assert code == 0
    report = json.loads((out / "report.json").read_text("utf-8"))
    assert report["method"] == method and report["selected"] == 0 and len(report["runs"]) == 1
    assert report["runs"][0]["train"]["steps"] == 3
    for side in ("before", "after"):
        bias = report[side]["bias"]["gender"]
        assert bias["pairs"] == 12 and bias["t"] is not None and 0 <= bias["p"] <= 1
        assert report[side]["heldout"]["perplexity"] > 1
        assert report[side]["replies"]["replies"] == 2
    assert report["before"]["heldout"]["perplexity"] != report["after"]["heldout"]["perplexity"]  # it trained
    if method == "ctda":
        assert report["augmentation"]["swapped_copies"] > 0
    assert "t before" in (out / "report.md").read_text("utf-8")
    assert "<table>" in (out / "report.html").read_text("utf-8")
    model = AutoModelForCausalLM.from_pretrained(out / "model")
    tok = AutoTokenizer.from_pretrained(out / "model")
    with torch.no_grad():
        logits = model(**tok("她很好", return_tensors="pt")).logits
    assert torch.isfinite(logits).all()


@pytest.mark.parametrize(("args", "message"), [
    (["--method", "lmd", "--model", "/no/such/model", "--category", "gender"], "does not exist"),
    (["--method", "lmd", "--model", "TINY", "--category", ""], "category is empty"),
    (["--method", "debias-everything", "--model", "TINY", "--category", "gender"], "Unknown debiasing method"),
    (["--method", "lmd", "--model", "TINY", "--category", "race"], "Unknown CHBias category"),
])
def test_bad_input_is_one_sentence_and_exit_2(tiny_zh: Path, tmp_path: Path, capsys, args, message) -> None:
    args = [str(tiny_zh) if a == "TINY" else a for a in args]
    assert main(["debias", *args, "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) <= 2


def test_a_tokenizer_with_no_pad_token(tmp_path: Path, capsys) -> None:
    """Neither a pad nor an end-of-sequence token to pad the scoring batches with: one sentence, exit 2,
    before a training step (the before-measurement is the first thing that pads)."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    bare = tmp_path / "bare"
    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.train_from_iterator(chbias_train(spec.GENDER)[:50], trainers.BpeTrainer(
        vocab_size=300, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=raw)
    assert tok.pad_token is None and tok.eos_token is None and tok.bos_token is None
    tok.save_pretrained(bare)
    GPT2LMHeadModel(GPT2Config(n_layer=1, n_head=2, n_embd=32, n_positions=256, vocab_size=len(tok),
                               bos_token_id=None, eos_token_id=None)).save_pretrained(bare)
    capsys.readouterr()
    out = tmp_path / "o"
    assert main(["debias", "--method", "lmd", "--model", str(bare), *SMOKE, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "has neither a pad token nor an end-of-sequence token" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2
    assert not (out / "model").exists()
