"""LMD, ADD and HD: values computed by hand on a 2-pair toy vocabulary, the same terms through a tiny GPT-2
built here, gradients reaching the right parameters, and HD's subspace on a constructed embedding matrix."""

from __future__ import annotations

import math

import pytest
import torch

from harness.whitebox.debias import losses
from harness.whitebox.debias.batches import Collator, find_spans
from harness.whitebox.debias.objective import Objective
from harness.whitebox.debias.spec import BiasSpec

# Toy vocabulary: she=1, he=2, her=3, him=4, nurse=5 (0 is the start/pad token).
SHE, HE, HER, HIM, NURSE = 1, 2, 3, 4, 5
TOY = BiasSpec(name="toy", group1="f", group2="m", target_pairs=(("she", "he"), ("her", "him")),
               attributes=("nurse",))


def ids(rows: list[list[int]]) -> losses.TermIds:
    width = max(len(r) for r in rows)
    t = torch.zeros(len(rows), width, dtype=torch.long)
    m = torch.zeros(len(rows), width)
    for i, r in enumerate(rows):
        t[i, : len(r)] = torch.tensor(r)
        m[i, : len(r)] = 1
    return losses.TermIds(tuple(map(str, rows)), t, m)


def toy_logits() -> torch.Tensor:
    # one sentence, two positions, vocabulary of 6
    return torch.tensor([[[0.0, 2.0, 0.5, 1.0, 1.0, 0.0],
                          [0.0, 0.0, 1.0, 3.0, 1.0, 0.0]]])


def test_lmd_by_hand() -> None:
    t1, t2 = ids([[SHE], [HER]]), ids([[HE], [HIM]])
    mask = torch.ones(1, 2)
    # (she, he): |2 - 0.5| = 1.5 and |0 - 1| = 1 -> 1.25 ; (her, him): |1 - 1| = 0 and |3 - 1| = 2 -> 1.0
    assert float(losses.lmd_loss(toy_logits(), mask, t1, t2)) == pytest.approx((1.25 + 1.0) / 2)
    # only the first pair is in the sentence
    assert float(losses.lmd_loss(toy_logits(), mask, t1, t2, torch.tensor([[True, False]]))) == pytest.approx(1.25)
    # the second position is padding: (she, he) 1.5, (her, him) 0
    assert float(losses.lmd_loss(toy_logits(), torch.tensor([[1, 0]]), t1, t2)) == pytest.approx(0.75)
    # no pair in the sentence: 0, and still differentiable
    none = losses.lmd_loss(toy_logits().requires_grad_(), mask, t1, t2, torch.tensor([[False, False]]))
    assert float(none.detach()) == 0.0 and none.requires_grad


def test_lmd_is_the_log_probability_ratio() -> None:
    """|log p(t1)/p(t2)| under the full softmax equals the raw-logit difference (the normaliser cancels)."""
    logits = toy_logits()
    logp = torch.log_softmax(logits, -1)
    expected = ((logp[0, :, SHE] - logp[0, :, HE]).abs().mean() + (logp[0, :, HER] - logp[0, :, HIM]).abs().mean()) / 2
    got = losses.lmd_loss(logits, torch.ones(1, 2), ids([[SHE], [HER]]), ids([[HE], [HIM]]))
    assert float(got) == pytest.approx(float(expected), rel=1e-5)  # float32 both ways, rounded differently


def test_lmd_multi_token_term_is_averaged() -> None:
    # "her" as two pieces [her, nurse]: score = mean(z_her, z_nurse): position 0 (1+0)/2=0.5 vs z_him 1 -> 0.5,
    # position 1 (3+0)/2 = 1.5 vs 1 -> 0.5
    got = losses.lmd_loss(toy_logits(), torch.ones(1, 2), ids([[HER, NURSE]]), ids([[HIM]]))
    assert float(got) == pytest.approx(0.5)


def occurrences(batch: list[int], rows: list[list[float]]) -> losses.Occurrences:
    return losses.Occurrences(torch.tensor(batch), torch.tensor(rows))


def test_add_by_hand() -> None:
    hidden = torch.tensor([[[1.0, 0.0], [0.0, 2.0]]])  # one sentence, two positions, H = 2
    e1 = torch.tensor([[1.0, 0.0], [1.0, 1.0]])  # she, her
    e2 = torch.tensor([[0.0, 1.0], [1.0, -1.0]])  # he, him
    occ = occurrences([0, 0], [[1.0, 0.0], [0.0, 1.0]])
    # a=[1,0]: |1-0| + |1/√2 - 1/√2| = 1 ; a=[0,2]: |0-1| + |1/√2 + 1/√2| = 1 + √2 ; mean = 1 + √2/2
    assert float(losses.add_loss(hidden, occ, e1, e2)) == pytest.approx(1 + math.sqrt(2) / 2)
    # a two-token attribute is the mean of its positions: a = [0.5, 1]
    a = torch.tensor([0.5, 1.0])
    expected = sum(abs(float(torch.cosine_similarity(a, x, 0) - torch.cosine_similarity(a, y, 0)))
                   for x, y in zip(e1, e2, strict=True))
    assert float(losses.add_loss(hidden, occurrences([0], [[0.5, 0.5]]), e1, e2)) == pytest.approx(expected)
    assert float(losses.add_loss(hidden, occurrences([], []), e1, e2).reshape(())) == 0.0


def test_hd_subspace_more_than_half_of_the_variance() -> None:
    e1 = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    e2 = torch.tensor([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    # rows (e1-e2)/2 = [1,0,0], [0,.5,0]: s² = 1, .25 -> the first holds 80% > 50%: k = 1
    basis = losses.bias_subspace(e1, e2)
    assert basis.shape == (1, 3) and torch.allclose(basis.abs(), torch.tensor([[1.0, 0.0, 0.0]]))
    # two equal directions: the first holds exactly 50%, not more: k = 2
    equal = losses.bias_subspace(torch.tensor([[2.0, 0, 0], [0, 2.0, 0]]), torch.zeros(2, 3))
    assert equal.shape == (2, 3)
    hidden = torch.tensor([[[3.0, 4.0, 5.0]]])
    occ = occurrences([0], [[1.0]])
    assert float(losses.hd_loss(hidden, occ, basis)) == pytest.approx(3.0)  # |<a, e_x>|
    assert float(losses.hd_loss(hidden, occ, equal)) == pytest.approx(7.0)  # |3| + |4|


# ------------------------------------------------------------------------------- through a tiny GPT-2

@pytest.fixture(scope="module")
def toy_model():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    vocab = {"<s>": 0, "she": 1, "he": 2, "her": 3, "him": 4, "nurse": 5, "is": 6, "a": 7, "saw": 8, "[UNK]": 9}
    raw = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    raw.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<s>", eos_token="<s>", pad_token="<s>",
                                  unk_token="[UNK]")
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=8, n_positions=32, vocab_size=len(vocab),
                        tie_word_embeddings=False, bos_token_id=0, eos_token_id=0,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)  # deterministic forward passes
    return GPT2LMHeadModel(config), tok


SENTENCES = ["she is a nurse", "he saw him", "a nurse saw her"]


def test_collator_finds_words_not_substrings(toy_model) -> None:
    _, tok = toy_model
    batch = Collator(tok, TOY.target_pairs, TOY.attributes)(SENTENCES)
    assert batch.input_ids[:, 0].tolist() == [0, 0, 0]  # the start token
    assert batch.pair_mask.tolist() == [[True, False], [True, True], [False, True]]  # "he" is not in "she"
    assert batch.occurrences.batch.tolist() == [0, 2]
    assert batch.occurrences.weights[0].tolist().index(1.0) == 4  # <s> she is a [nurse]
    assert find_spans("She saw HER", ["her", "she"]) == [(0, 3), (8, 11)]


def manual_lmd(logits, batch) -> float:
    per_sentence = []
    for b in range(logits.shape[0]):
        n = int(batch.attention_mask[b].sum())
        pairs = [(SHE, HE), (HER, HIM)]
        vals = [sum(abs(float(logits[b, i, x] - logits[b, i, y])) for i in range(n)) / n
                for (x, y), on in zip(pairs, batch.pair_mask[b].tolist(), strict=True) if on]
        if vals:
            per_sentence.append(sum(vals) / len(vals))
    return sum(per_sentence) / len(per_sentence)


def test_objective_matches_a_manual_computation(toy_model) -> None:
    model, tok = toy_model
    batch = Collator(tok, TOY.target_pairs, TOY.attributes)(SENTENCES)
    out = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, output_hidden_states=True)
    lmd = Objective("lmd", model, tok, TOY, lm_hyp=0.5, debias_hyp=2.0)(model, batch)
    assert float(lmd.bias) == pytest.approx(manual_lmd(out.logits, batch), rel=1e-5)
    assert float(lmd.total) == pytest.approx(0.5 * float(lmd.lm) + 2.0 * float(lmd.bias), rel=1e-6)
    w = model.lm_head.weight
    h = out.hidden_states[-1]
    expected_add = sum(
        sum(abs(float(torch.cosine_similarity(h[b, 4 if b == 0 else 2], w[x], 0)
                      - torch.cosine_similarity(h[b, 4 if b == 0 else 2], w[y], 0)))
            for x, y in [(SHE, HE), (HER, HIM)]) for b in (0, 2)) / 2
    add = Objective("add", model, tok, TOY)(model, batch)
    assert float(add.bias) == pytest.approx(expected_add, rel=1e-5)


def test_hd_subspace_from_the_model_embeddings(toy_model) -> None:
    model, tok = toy_model
    with torch.no_grad():
        saved = model.lm_head.weight.clone()
        model.lm_head.weight.zero_()
        model.lm_head.weight[SHE, 0], model.lm_head.weight[HE, 0] = 1.0, -1.0  # (she-he)/2 = e0
        model.lm_head.weight[HER, 1], model.lm_head.weight[HIM, 1] = 0.3, -0.3  # (her-him)/2 = .3 e1
    try:
        basis = Objective("hd", model, tok, TOY).basis
    finally:
        with torch.no_grad():
            model.lm_head.weight.copy_(saved)
    assert basis.shape == (1, 8) and float(basis[0, 0].abs()) == pytest.approx(1.0)  # 1 / 1.09 > 50%


@pytest.mark.parametrize("method", ["lmd", "add", "hd"])
def test_gradients_reach_the_right_parameters(toy_model, method: str) -> None:
    model, tok = toy_model
    model.zero_grad()
    batch = Collator(tok, TOY.target_pairs, TOY.attributes)(SENTENCES)
    Objective(method, model, tok, TOY, lm_hyp=0.0, debias_hyp=1.0)(model, batch).total.backward()
    head = model.lm_head.weight.grad
    rows = head.abs().sum(1) > 0
    block = model.transformer.h[0].attn.c_attn.weight.grad
    assert block is not None and float(block.abs().sum()) > 0  # the transformer learns in every method
    if method in ("lmd", "add"):  # the output rows of the target terms move, and only those
        assert rows.nonzero().flatten().tolist() == [SHE, HE, HER, HIM]
    else:  # HD's subspace is fixed: the output head gets nothing, the hidden states do the moving
        assert not bool(rows.any())
    model.zero_grad()


# ------------------------------------------------------------------------------------------- training

def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


@pytest.mark.parametrize("lora", [0, 2])
def test_training_steps_accumulation_and_lora(toy_model, lora: int) -> None:
    """Steps are optimizer steps (4 batches, accumulation 2 -> 2 steps); LoRA trains adapters and hands
    back the plain model with them merged in, the output head untouched."""
    import copy

    from harness.whitebox.debias.train import TrainSettings, planned_steps, train

    base, tok = toy_model
    model = copy.deepcopy(base)
    before = _weights(model)
    settings = TrainSettings(batch_size=2, grad_accum=2, learning_rate=1e-2, lora_rank=lora, epochs=1)
    sentences = SENTENCES + ["he is a nurse", "she saw her", "him", "her", "a nurse"]
    assert planned_steps(len(sentences), settings) == 2
    objective = Objective("lmd", model, tok, TOY)
    trained, log = train(model, tok, sentences, objective, Collator(tok, TOY.target_pairs, TOY.attributes), settings)
    assert log.steps == 2 and log.examples == 8 and log.losses[0]["bias"] > 0
    assert type(trained).__name__ == "GPT2LMHeadModel"
    after = _weights(trained)
    assert set(after) == set(before)  # no adapter weights left over
    assert not torch.equal(after["transformer.h.0.attn.c_attn.weight"], before["transformer.h.0.attn.c_attn.weight"])
    if lora:
        assert torch.equal(after["lm_head.weight"], before["lm_head.weight"])
        assert torch.equal(after["transformer.wte.weight"], before["transformer.wte.weight"])
