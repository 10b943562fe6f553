"""Per-sentence perplexity (harness.whitebox.perplexity) on a real, tiny, randomly initialised GPT-2 built
here: right by definition, the same whatever the batch, and a failure is never a number."""

from __future__ import annotations

import math

import pytest
from tiny_models import build_tiny_gpt2

from harness.core.errors import ConfigError
from harness.whitebox.perplexity import (
    SentenceScore,
    _plan_batches,
    pad_token_id,
    prefix_token_id,
    sentence_perplexities,
)

SENTENCES = [
    "she is a nurse", "he is a doctor", "拿这些老人没办法。就是爱贪小便宜吧。", "x",
    "the old man would not listen to anyone at the meeting about the new road",
    "杨怡真的好像马啊！好想喂她吃草！", "a", "they are", "胖子 不想和他有任何接触",
    "my sister is emotional and my brother is rational, people say", "ok", "年轻人", "tall", "short people",
    "the nurse helped the doctor", "同性恋", "straight men are", "gay men are", "fat", "thin people run",
]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):
    import torch
    from transformers import AutoTokenizer, GPT2LMHeadModel

    corpus = SENTENCES * 3 + ["the a of and to in is was 的 是 了 我 你 他 她"]
    directory = build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2-ppl"), corpus, vocab_size=400, n_positions=64)
    model = GPT2LMHeadModel.from_pretrained(directory).eval()
    # One intra-op thread: on a shared 2-core machine two threads spin-wait on each other (20x slower here).
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield model, AutoTokenizer.from_pretrained(directory)
    torch.set_num_threads(threads)


def by_hand(model, ids: list[int]) -> float:
    """exp(mean NLL) of one unpadded row: transformers' own shifted LM loss."""
    import torch

    with torch.inference_mode():
        return math.exp(float(model(torch.tensor([ids]), labels=torch.tensor([ids])).loss))


@pytest.mark.parametrize("side", ["left", "right"])
def test_the_same_perplexity_at_batch_sizes_1_3_and_16(tiny, side: str) -> None:
    model, tok = tiny
    tok.padding_side = side
    alone = sentence_perplexities(model, tok, SENTENCES, batch_size=1)
    assert all(s.ok for s in alone)
    for size in (3, 16):
        batched = sentence_perplexities(model, tok, SENTENCES, batch_size=size)
        for a, b in zip(alone, batched, strict=True):
            assert b.text == a.text and b.tokens == a.tokens
            assert b.perplexity == pytest.approx(a.perplexity, rel=1e-4), (side, size, a.text)
    # a tight token budget splits batches differently: still the same values
    split = sentence_perplexities(model, tok, SENTENCES, batch_size=16, max_batch_tokens=20)
    assert [s.perplexity for s in split] == pytest.approx([s.perplexity for s in alone], rel=1e-4)


def test_perplexity_is_exp_of_the_mean_nll_with_the_start_token_scored_first(tiny) -> None:
    model, tok = tiny
    tok.padding_side = "left"
    start = prefix_token_id(tok)
    assert start == tok.eos_token_id  # this tokenizer has no BOS: its EOS stands in front of a sentence
    scores = sentence_perplexities(model, tok, SENTENCES[:6], batch_size=4)
    for s in scores:
        ids = tok(s.text, add_special_tokens=False)["input_ids"]
        assert s.tokens == len(ids)  # every real token is scored, the first one too
        assert s.perplexity == pytest.approx(by_hand(model, [start, *ids]), rel=1e-5)
        assert s.nll == pytest.approx(math.log(s.perplexity))
    # upstream's way (no start token): the first token is only context, and the value is HF's plain loss
    upstream = sentence_perplexities(model, tok, SENTENCES[:6], batch_size=4, prefix=None)
    for s in upstream:
        ids = tok(s.text, add_special_tokens=False)["input_ids"]
        if len(ids) < 2:
            assert not s.ok and "nothing to score" in s.error
            continue
        assert s.tokens == len(ids) - 1
        assert s.perplexity == pytest.approx(by_hand(model, ids), rel=1e-5)


def test_a_model_dispatched_by_accelerate_gives_the_same_values(tiny, tmp_path) -> None:
    """Loaded with device_map="auto" (accelerate's placement, as on a GPU machine; here everything lands on
    the CPU): inputs follow model.device, values unchanged."""
    from transformers import GPT2LMHeadModel

    model, tok = tiny
    model.save_pretrained(tmp_path / "m")
    placed = GPT2LMHeadModel.from_pretrained(tmp_path / "m", device_map="auto").eval()
    ours = sentence_perplexities(placed, tok, SENTENCES[:6], batch_size=6)
    plain = sentence_perplexities(model, tok, SENTENCES[:6], batch_size=6)
    assert [s.perplexity for s in ours] == pytest.approx([s.perplexity for s in plain], rel=1e-5)


def test_failures_are_recorded_with_their_sentence_never_as_a_number(tiny) -> None:
    model, tok = tiny
    too_long = " ".join(["the nurse helped the doctor"] * 40)  # over the 64 positions of this model
    scores = sentence_perplexities(model, tok, ["she is a nurse", "", too_long, "he is a doctor"], batch_size=4)
    assert [s.ok for s in scores] == [True, False, False, True]
    assert scores[1].error == "empty sentence" and scores[1].perplexity is None
    assert "longer than the model's context of 64" in scores[2].error and scores[2].perplexity is None
    assert all(s.perplexity is None or s.perplexity > 1 for s in scores)


class _FailsOn:
    """Error path only (the real model is the one above): the wrapped model raises on one token id."""

    def __init__(self, model, bad_id: int) -> None:
        self.model, self.bad_id, self.config, self.device = model, bad_id, model.config, model.device

    def forward(self, input_ids, attention_mask=None, position_ids=None):
        if (input_ids == self.bad_id).any():
            raise RuntimeError("CUDA error: device-side assert triggered")
        return self.model(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids)

    __call__ = forward


def test_a_failing_batch_is_rescored_one_by_one_so_only_the_culprit_is_lost(tiny) -> None:
    model, tok = tiny
    tok.padding_side = "right"
    bad = tok("胖子", add_special_tokens=False)["input_ids"][0]
    sentences = ["she is a nurse", "胖子 不想和他有任何接触", "he is a doctor"]
    scores = sentence_perplexities(_FailsOn(model, bad), tok, sentences, batch_size=3)
    assert [s.ok for s in scores] == [True, False, True]
    assert scores[1].text == sentences[1] and scores[1].error.startswith("RuntimeError: CUDA error")
    good = sentence_perplexities(model, tok, sentences, batch_size=1)
    assert scores[0].perplexity == pytest.approx(good[0].perplexity, rel=1e-4)


def test_no_pad_token_pads_with_eos_and_neither_is_one_sentence(tiny) -> None:
    model, tok = tiny

    class Bare:  # a tokenizer that names no pad and no end-of-sequence token
        pad_token_id = eos_token_id = bos_token_id = None

    class EosOnly(Bare):
        eos_token_id = 7

    assert pad_token_id(EosOnly()) == 7
    with pytest.raises(ConfigError, match="neither a pad token nor an end-of-sequence token") as err:
        pad_token_id(Bare(), name="my-model")
    assert "my-model" in str(err.value) and "\n" not in str(err.value)
    saved = tok.pad_token
    try:
        tok.pad_token = None
        assert tok.pad_token_id is None
        scores = sentence_perplexities(model, tok, SENTENCES[:5], batch_size=5)
        assert all(s.ok for s in scores)
    finally:
        tok.pad_token = saved


def test_batches_are_planned_longest_first_within_both_limits() -> None:
    lengths = [3, 10, 4, 9, 1, 8]
    batches = _plan_batches(lengths, batch_size=2, max_tokens=100)
    assert batches == [[1, 3], [5, 2], [0, 4]]
    assert _plan_batches(lengths, batch_size=8, max_tokens=20) == [[1, 3], [5, 2], [0, 4]]  # 10*2 fits, 10*3 not
    assert sorted(i for b in _plan_batches(lengths, 3, 12) for i in b) == list(range(6))


def test_prefix_choice() -> None:
    class Tok:
        bos_token_id, eos_token_id = 5, 7

    assert prefix_token_id(Tok()) == 5
    assert prefix_token_id(Tok(), None) is None and prefix_token_id(Tok(), 3) == 3
    with pytest.raises(ConfigError):
        prefix_token_id(Tok(), "bos")
    assert SentenceScore("x", None, None, 0, "empty sentence").ok is False



def test_both_conventions_the_harness_and_upstream_chbias(tiny) -> None:
    """perplexities_both_ways: with the start token (the harness) and without one (upstream CHBias, whose
    script fed tokenize(s) alone), each equal to transformers' own loss on that row."""
    from harness.whitebox.perplexity import perplexities_both_ways

    model, tok = tiny
    sentences = ["she is a nurse", "the old man would not listen to anyone at the meeting about the new road", "胖子"]
    ours, theirs = perplexities_both_ways(model, tok, sentences, batch_size=2)
    start = prefix_token_id(tok)
    assert start is not None
    for s, a, b in zip(sentences, ours, theirs, strict=True):
        ids = tok(s, add_special_tokens=False)["input_ids"]
        assert a.perplexity == pytest.approx(by_hand(model, [start, *ids]), rel=1e-4)
        assert b.perplexity == pytest.approx(by_hand(model, ids), rel=1e-4) and b.tokens == len(ids) - 1
