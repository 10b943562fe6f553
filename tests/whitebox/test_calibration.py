"""Reinforced calibration (harness.whitebox.calibration): the gains, the reward and the KL by hand, Algorithm 1
on a tiny GPT-2 (lambda 0 is vanilla greedy decoding token for token; lambda adapts as the algorithm says),
the f_debias head measured on texts it never saw, and the calibrated model as a target."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import torch
from political_models import political_lm

from harness.core.errors import ConfigError
from harness.whitebox.calibration.decode import (
    CalibrationSettings,
    Guides,
    calibrated_generate,
)
from harness.whitebox.calibration.head import text_features, train_head
from harness.whitebox.calibration.objective import (
    adapt_lambda,
    gain_mode1,
    gain_mode2,
    kl_divergence,
    reward,
    step_gain_mode2,
)
from harness.whitebox.calibration.words import word_lists

LN2 = math.log(2)


def test_mode1_gain_by_hand():
    # vocabulary of 3 with embeddings (1,0), (0,1), (0,0); h = (ln 2, 0): logits (ln 2, 0, 0),
    # softmax (1/2, 1/4, 1/4), dist = (ln 2, ln 4, ln 4). L = {0}, C = {1, 2}: S_L = ln 2, S_C = 4 ln 2,
    # D1 = (ln 2)^2 + (4 ln 2)^2 - |ln 2 - 4 ln 2| = 17 (ln 2)^2 - 3 ln 2
    emb = torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
    h = torch.tensor([LN2, 0.0])
    assert float(gain_mode1(h, emb, [0], [1, 2])) == pytest.approx(17 * LN2 ** 2 - 3 * LN2)
    # balanced distances: the L1 penalty vanishes, D1 = 2 (ln 3)^2 at h = 0 with one word per side
    assert float(gain_mode1(torch.zeros(2), emb, [0], [1])) == pytest.approx(2 * math.log(3) ** 2)


def test_mode2_step_gain_window_and_reward_by_hand():
    # eq. 8: P(y=1) = 0.8 -> y = 1, r = -ln 0.8; P = 0.3 -> y = 0, r = -ln 0.7; largest at P = 0.5: ln 2
    assert float(step_gain_mode2(torch.tensor(0.8))) == pytest.approx(-math.log(0.8))
    assert float(step_gain_mode2(torch.tensor(0.3))) == pytest.approx(-math.log(0.7))
    assert float(step_gain_mode2(torch.tensor(0.5))) == pytest.approx(LN2)
    # eq. 7, gamma 0.5, tau 2: window (0.2, 0.4) before the current 0.3 -> (0.3 + 0.5 * 0.4 + 0.25 * 0.2) / 3
    assert float(gain_mode2([0.1, 0.2, 0.4], torch.tensor(0.3), gamma=0.5, tau=2)) == pytest.approx(0.55 / 3)
    assert float(gain_mode2([], torch.tensor(0.3), gamma=0.5, tau=2)) == pytest.approx(0.3)  # first step
    # eq. 4: ratio of the vanilla action's probabilities (0.6 / 0.4) times the gain 2
    assert float(reward(torch.tensor(math.log(0.6)), torch.tensor(math.log(0.4)),
                        torch.tensor(2.0))) == pytest.approx(3.0)
    # KL((1/2, 1/2) || (1/4, 3/4)) = 1/2 ln 2 + 1/2 ln (2/3)
    p, q = torch.log(torch.tensor([0.5, 0.5])), torch.log(torch.tensor([0.25, 0.75]))
    assert float(kl_divergence(p, q)) == pytest.approx(0.5 * LN2 + 0.5 * math.log(2 / 3))


def test_lambda_rule():
    assert adapt_lambda(0.6, 0.05, 0.02) == 0.3  # KL >= 2 sigma: halved
    assert adapt_lambda(0.6, 0.04, 0.02) == 0.3  # at 2 sigma too
    assert adapt_lambda(0.6, 0.01, 0.02) == 1.2  # <= sigma / 2: doubled
    assert adapt_lambda(0.6, 0.02, 0.02) == 0.6  # in between: kept
    assert adapt_lambda(0.0, 0.0, 0.02) == 0.0  # 0 stays 0


@pytest.fixture(scope="module")
def tiny():
    from transformers import AutoModelForCausalLM, AutoTokenizer

    directory = political_lm()
    model = AutoModelForCausalLM.from_pretrained(directory).eval()
    tok = AutoTokenizer.from_pretrained(directory)
    return directory, model, tok


def test_lambda_zero_is_vanilla_greedy_decoding_token_for_token(tiny):
    _dir, model, tok = tiny
    prompt = tok("the vote was", add_special_tokens=False)["input_ids"]
    vanilla = model.generate(torch.tensor([prompt]), max_new_tokens=20, do_sample=False, min_new_tokens=20,
                             pad_token_id=tok.eos_token_id)[0, len(prompt):].tolist()
    lists = word_lists(tok)
    out = calibrated_generate(model, prompt, CalibrationSettings(mode=1, lambda0=0.0),
                              Guides(liberal=lists.liberal, conservative=lists.conservative), max_new_tokens=20)
    assert out.tokens == vanilla and len(vanilla) == 20
    assert {t.lam for t in out.trace} == {0.0}


def test_calibration_moves_the_policy_and_lambda_adapts_as_algorithm_1_says(tiny):
    _dir, model, tok = tiny
    lists = word_lists(tok)
    prompt = tok("the republicans want", add_special_tokens=False)["input_ids"]
    settings = CalibrationSettings(mode=1, lambda0=0.6, steps=15, lr=0.5)
    out = calibrated_generate(model, prompt, settings, Guides(liberal=lists.liberal, conservative=lists.conservative),
                              max_new_tokens=25)
    trace = out.trace
    assert max(t.kl for t in trace) > 0  # the perturbation moved the policy
    for now, nxt in zip(trace, trace[1:], strict=False):
        assert nxt.lam == adapt_lambda(now.lam, now.kl, settings.kl_target)
    assert len({t.lam for t in trace}) > 1  # lambda did change along the way
    for t in trace:  # the reward is the ratio of the vanilla action's probabilities times the gain
        assert math.isfinite(t.reward) and math.isfinite(t.gain)


def test_mode1_word_list_outside_the_vocabulary_is_one_sentence(tiny, tmp_path: Path):
    _dir, _model, tok = tiny
    (tmp_path / "odd.txt").write_text("zyxwvut\nqqqqqqq\n")
    with pytest.raises(ConfigError, match="None of the words of .*odd.txt is a single token"):
        word_lists(tok, liberal=tmp_path / "odd.txt")


def test_head_learns_a_separable_signal_on_texts_it_never_saw(tiny):
    _dir, model, tok = tiny
    lib = ["the democrats want healthcare", "climate action for workers", "healthcare for workers now"] * 8
    con = ["the republicans want lower taxes", "a strong border for families", "lower taxes for families"] * 8
    feats = text_features(model, tok, lib + con)
    head, report = train_head(feats, [0.1] * len(lib) + [0.9] * len(con), epochs=150)
    assert report.n_validation >= 9
    assert report.validation_accuracy >= 0.9 > report.majority_baseline
    with pytest.raises(ConfigError, match="texts of both leanings"):
        train_head(feats, [0.1] * len(feats))


def test_mode2_generation_with_a_head(tiny):
    _dir, model, tok = tiny
    feats = text_features(model, tok, ["the democrats want healthcare"] * 6 + ["lower taxes for families"] * 6)
    head, _ = train_head(feats, [0.0] * 6 + [1.0] * 6, epochs=50)
    prompt = tok("people said", add_special_tokens=False)["input_ids"]
    out = calibrated_generate(model, prompt, CalibrationSettings(mode=2, lambda0=0.6, steps=5, lr=0.5),
                              Guides(head=head), max_new_tokens=8, temperature=1.0, top_k=20, seed=3)
    again = calibrated_generate(model, prompt, CalibrationSettings(mode=2, lambda0=0.6, steps=5, lr=0.5),
                                Guides(head=head), max_new_tokens=8, temperature=1.0, top_k=20, seed=3)
    assert out.tokens == again.tokens  # seeded sampling is reproducible
    assert all(0.0 <= t.gain <= LN2 + 1e-6 for t in out.trace)  # D2 is a mean of discounted r in [0, ln 2]


def test_tied_embeddings_read_the_same_gain_from_the_policy(tiny):
    from harness.whitebox.calibration.decode import _Gain

    _dir, model, tok = tiny
    lists = word_lists(tok)
    assert model.get_input_embeddings().weight is model.get_output_embeddings().weight  # GPT-2 ties them
    h = torch.randn(64)
    weight = model.get_output_embeddings().weight.detach()
    logp = torch.log_softmax(h @ weight.T, -1)
    tied = _Gain(CalibrationSettings(mode=1), Guides(liberal=lists.liberal, conservative=lists.conservative,
                                                     embeddings=weight, tied=True))(h, logp)[0]
    assert float(tied) == pytest.approx(float(gain_mode1(h, weight, lists.liberal, lists.conservative)), rel=1e-5)


def test_the_calibrated_model_is_a_target(tiny, run_env: Path):
    from harness.adapters.registry import create_adapter
    from harness.run.execute import run_suite
    from harness.run.transcript import read_entries

    directory, _model, _tok = tiny
    (run_env / "targets.toml").write_text(f'[targets.tiny-cal]\nadapter = "hf-calibrated"\nmodel = "{directory}"\n'
                                          'mode = 1\nlambda0 = 0.6\nsteps = 3\n')
    adapter = create_adapter("tiny-cal")
    outcome = run_suite("political-gender", adapter, show_progress=False,
                        overrides={"keywords_per_option": 1, "leanings": ["indirect"], "samples": 1,
                                   "max_new_tokens": 4})
    entries = list(read_entries(outcome.transcript_path))
    assert len(entries) == 8 and all(e.reply.ok for e in entries)
    assert all(e.reply.usage["calibration"]["mode"] == 1 for e in entries)
    with pytest.raises(ConfigError, match="MODE 2\\) needs head"):
        create_adapter("tiny-cal", mode=2)
