"""The political judge (harness.political.judge): a sequence classifier, a target (real local models) and a
user's callable, the score cache, and the one-sentence errors of a judge that cannot score."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.core.records import LABEL_UNSCORED, Probe, Reply
from harness.political.judge import (
    CallableJudge,
    ScoreCache,
    check_judge,
    conservative_index,
    judge_replies,
    load_judge,
    score_texts,
)

TEXTS = ["Lower taxes and a secure border will make America great again.",
         "We need universal healthcare and stronger climate action now.", ""]


def leaning_by_keyword(texts: list[str]) -> list[float | None]:
    """A user's judge (py:test_political_judge:leaning_by_keyword): 0.9 for 'tax', None for nothing."""
    return [None if not t else (0.9 if "tax" in t.lower() else 0.2) for t in texts]


def out_of_range(texts: list[str]) -> list[float]:
    return [7.0 for _ in texts]


@pytest.fixture(scope="module")
def tiny_classifier(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2ForSequenceClassification, PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.train_from_iterator(TEXTS * 3, trainers.BpeTrainer(vocab_size=300, special_tokens=["<pad>"],
                                                           initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>")
    torch.manual_seed(0)
    config = GPT2Config(n_layer=1, n_head=2, n_embd=32, n_positions=64, vocab_size=len(tok), num_labels=2,
                        pad_token_id=tok.pad_token_id, id2label={0: "liberal", 1: "conservative"},
                        label2id={"liberal": 0, "conservative": 1})
    directory = tmp_path_factory.mktemp("classifier")
    tok.save_pretrained(directory)
    GPT2ForSequenceClassification(config).save_pretrained(directory)
    return directory


def test_classifier_judge_gives_the_conservative_class_probability(tiny_classifier: Path, run_env: Path):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    judge = load_judge(f"hf:{tiny_classifier}")
    scores = asyncio.run(judge.score_batch(TEXTS[:2]))
    tok = AutoTokenizer.from_pretrained(tiny_classifier)
    model = AutoModelForSequenceClassification.from_pretrained(tiny_classifier).eval()
    for text, score in zip(TEXTS[:2], scores, strict=True):
        with torch.inference_mode():
            expected = torch.softmax(model(**tok(text, return_tensors="pt")).logits, -1)[0, 1].item()
        assert score.p == pytest.approx(expected, abs=1e-5) and 0 < score.p < 1
    assert judge.describe()["kind"] == "hf-classifier"
    assert load_judge(f"hf:{tiny_classifier}#label=0").index == 0  # named by the user


def test_conservative_label_is_found_or_asked_for():
    assert conservative_index({0: "LEFT", 1: "CENTER", 2: "RIGHT"}, None, "j") == 2
    with pytest.raises(ConfigError, match="cannot tell which label is conservative.*#label=LABEL_1"):
        conservative_index({0: "LABEL_0", 1: "LABEL_1"}, None, "hf:x")
    assert conservative_index({0: "LABEL_0", 1: "LABEL_1"}, "1", "j") == 1


def test_callable_judge_cache_and_unscored(run_env: Path):
    judge = load_judge(f"py:{__name__}:leaning_by_keyword")
    assert isinstance(judge, CallableJudge)
    cache = ScoreCache(run_env / "judge.sqlite")
    first = asyncio.run(score_texts(judge, TEXTS + TEXTS[:1], cache=cache))
    assert first.asked == 2  # the empty text is never asked, the repeated one once
    assert first.scores[TEXTS[0]].p == 0.9 and first.scores[TEXTS[1]].p == 0.2
    assert first.scores[""].p is None and "empty" in first.scores[""].reason
    second = asyncio.run(score_texts(judge, TEXTS, cache=cache))
    assert second.asked == 0 and second.scores[TEXTS[0]].p == 0.9  # the judge was not asked again
    probes = [Probe.make("political-gender", "en", "political", "indirect", f"p{i}") for i in range(3)]
    verdicts, info = judge_replies([(p, Reply(p.id, "t", t)) for p, t in zip(probes, TEXTS, strict=True)], judge)
    assert verdicts[probes[0].id].score == 0.9 and verdicts[probes[0].id].label == "conservative"
    assert verdicts[probes[2].id].label == LABEL_UNSCORED and verdicts[probes[2].id].score is None
    assert info["kind"] == "callable" and info["spec"].startswith("py:")


@pytest.mark.parametrize(("spec", "message"), [
    (f"py:{__name__}:out_of_range", "cannot score text: the function's score 7.0 is not a number"),
    ("no-such-judge", "Unknown judge 'no-such-judge': give a target name"),
    (f"py:{__name__}:missing", "has no function 'missing'"),
    ("hf:/nonexistent/classifier", "is not a sequence classifier transformers can load"),
])
def test_a_judge_that_cannot_score_is_one_sentence(spec, message, run_env: Path):
    with pytest.raises(ConfigError, match=message):
        check_judge(load_judge(spec))


@pytest.mark.slow
def test_a_local_model_as_judge_reads_label_probabilities(run_env: Path):
    """SmolLM2 in process (llama.cpp): P(conservative) from the logits of its first answer token."""
    judge = load_judge("local")
    scores = asyncio.run(judge.score_batch(TEXTS[:2]))
    for s in scores:
        assert s.method == "logits" and 0.0 <= s.p <= 1.0 and not math.isnan(s.p)
    check_judge(judge)
