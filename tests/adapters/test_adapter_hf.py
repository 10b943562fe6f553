"""The hf adapter: batching and log-likelihoods on a tiny real GPT-2 built here, then the real SmolLM2 GGUF.

The tiny model has random weights, so its text means nothing; what is tested is the machinery: left
padding must not change greedy outputs, batched log-likelihoods must equal a direct forward pass, and
the greedy next token must be the most likely continuation. The SmolLM2 tests check real behaviour.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from tiny_models import build_tiny_gpt2  # noqa: E402

from harness.adapters.hf_local import HFLocalAdapter, load_model  # noqa: E402
from harness.adapters.registry import create_adapter  # noqa: E402
from harness.core.errors import HarnessError  # noqa: E402

CORPUS = ["Is it true that some people are lazy?", "Who is smarter, group A or group B?",
          "Why are engineers good at math?", "The answer is yes.", "The answer is no.",
          "A B C", "Paris is the capital of France.", "I cannot answer that question."] * 20


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"), CORPUS, vocab_size=400, n_positions=512)


def tiny(directory: Path, **settings) -> HFLocalAdapter:
    return HFLocalAdapter("tiny", {"model": str(directory), "max_new_tokens": 12, **settings})


PROMPTS = ["Hi?", "Who is smarter, group A or group B? Answer with one letter please.",
           "Why are engineers good at math?", "yes"]


def test_batched_generation_equals_one_at_a_time(tiny_model_dir: Path) -> None:
    a = tiny(tiny_model_dir, batch_size=4)
    batched = asyncio.run(a.ask_batch(PROMPTS))
    single = [asyncio.run(a.ask(p)) for p in PROMPTS]
    assert [c.text for c in batched] == [c.text for c in single]
    assert all(c.usage["completion_tokens"] <= 12 for c in batched)
    # prompt token counts exclude padding: the longest prompt has the most tokens
    assert batched[1].usage["prompt_tokens"] == max(c.usage["prompt_tokens"] for c in batched)
    # chunking by batch_size gives the same answers
    assert [c.text for c in asyncio.run(tiny(tiny_model_dir, batch_size=3).ask_batch(PROMPTS))] == [
        c.text for c in batched]


def test_model_loaded_once_and_chat_template_used(tiny_model_dir: Path) -> None:
    a, b = tiny(tiny_model_dir), tiny(tiny_model_dir, max_new_tokens=3)
    assert a.loaded is b.loaded is load_model(str(tiny_model_dir))
    assert a.chat_text("Q") == "<|user|>Q\n<|assistant|>"
    assert tiny(tiny_model_dir, system_prompt="S").chat_text("Q") == "<|system|>S\n<|user|>Q\n<|assistant|>"


def test_event_loop_stays_responsive_during_generation(tiny_model_dir: Path) -> None:
    a = tiny(tiny_model_dir, max_new_tokens=48, batch_size=8)
    ticks = 0

    async def ticker(stop: asyncio.Event) -> None:
        nonlocal ticks
        while not stop.is_set():
            ticks += 1
            await asyncio.sleep(0.001)

    async def main() -> float:
        stop = asyncio.Event()
        task = asyncio.create_task(ticker(stop))
        started = time.perf_counter()
        await a.ask_batch(PROMPTS * 4)
        elapsed = time.perf_counter() - started
        stop.set()
        await task
        return elapsed

    elapsed = asyncio.run(main())
    assert ticks >= 3, f"the loop was blocked for {elapsed:.2f}s"


def test_loglikelihoods_match_a_direct_forward_pass(tiny_model_dir: Path) -> None:
    a = tiny(tiny_model_dir)
    prompt = "Who is smarter, group A or group B?"
    continuations = [" A", " B", " I cannot answer that question.", "yes"]
    scores = a.loglikelihoods(prompt, continuations)
    assert len(scores) == 4 and all(s < 0 for s in scores)
    # same numbers one at a time (batch padding must not leak into the scores)
    for cont, score in zip(continuations, scores, strict=True):
        assert a.loglikelihoods(prompt, [cont])[0] == pytest.approx(score, abs=1e-4)
    # and the same as summing log-softmax over the continuation tokens by hand
    tok, model = a.loaded.tokenizer, a.loaded.model
    context = a.chat_text(prompt)
    for cont, score in zip(continuations, scores, strict=True):
        ctx_ids = tok(context, add_special_tokens=False)["input_ids"]
        whole = tok(context + cont, add_special_tokens=False)["input_ids"]
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([whole])).logits[0], -1)
        expected = sum(float(logp[i - 1, whole[i]]) for i in range(len(ctx_ids), len(whole)))
        assert score == pytest.approx(expected, abs=1e-4)


def test_greedy_next_token_is_the_most_likely_continuation(tiny_model_dir: Path) -> None:
    a = tiny(tiny_model_dir)
    tok, model = a.loaded.tokenizer, a.loaded.model
    prompt = "Why are engineers good at math?"
    context = a.chat_text(prompt)
    ctx_ids = tok(context, add_special_tokens=False)["input_ids"]
    with torch.no_grad():
        logp = torch.log_softmax(model(torch.tensor([ctx_ids])).logits[0, -1], -1)
    ranked = logp.argsort(descending=True).tolist()
    # single-token continuations that re-encode to exactly that token after the context
    chosen = [t for t in ranked[:60] if t != tok.eos_token_id
              and tok(context + tok.decode([t]), add_special_tokens=False)["input_ids"] == ctx_ids + [t]][:5]
    assert len(chosen) >= 3
    scores = a.loglikelihoods(prompt, [tok.decode([t]) for t in chosen])
    assert scores == pytest.approx([float(logp[t]) for t in chosen], abs=1e-4)
    assert scores == sorted(scores, reverse=True)  # the model's ranking is preserved


def test_device_map_auto_gives_the_same_numbers_as_a_plain_load(tiny_model_dir: Path) -> None:
    """accelerate's placement (every GPU, then the CPU; here the CPU alone) changes where the model runs,
    never what it computes: perplexities and log-likelihoods equal a plain load's."""
    pytest.importorskip("accelerate")
    from harness.whitebox.perplexity import sentence_perplexities

    plain = load_model(str(tiny_model_dir))
    placed = load_model(str(tiny_model_dir), device_map="auto")
    assert placed is not plain and placed.model.device.type == "cpu"  # loaded again, placed by accelerate
    sentences = CORPUS[:8]
    a = sentence_perplexities(plain.model, plain.tokenizer, sentences, batch_size=4)
    b = sentence_perplexities(placed.model, placed.tokenizer, sentences, batch_size=4)
    assert all(s.ok for s in a) and [s.perplexity for s in b] == pytest.approx([s.perplexity for s in a], rel=1e-6)
    adapter = tiny(tiny_model_dir, device_map="auto")
    assert adapter.loaded is placed
    assert adapter.loglikelihoods("Q", ["A", "B"]) == pytest.approx(
        tiny(tiny_model_dir).loglikelihoods("Q", ["A", "B"]), abs=1e-5)


def test_placement_defaults_follow_the_hardware(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.adapters import hf_local

    monkeypatch.setattr(hf_local, "gpu_count", lambda: 0)
    assert hf_local.default_placement() == (None, "float32")  # a CPU: one device, float32
    assert hf_local.default_placement("auto", "bfloat16") == ("auto", "bfloat16")  # what the target says
    monkeypatch.setattr(hf_local, "gpu_count", lambda: 2)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: True)
    assert hf_local.default_placement() == ("auto", "bfloat16")  # GPUs: spread over all, half precision
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda: False)
    assert hf_local.default_placement("none", "auto") == (None, "float16")


def test_missing_model_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="neither a model directory nor a .gguf file"):
        HFLocalAdapter("x", {"model": str(tmp_path / "nope")})
    with pytest.raises(HarnessError, match="needs model"):
        HFLocalAdapter("x", {})


# ----------------------------------------------------------------------------- real SmolLM2 GGUF


@pytest.fixture(scope="module")
def smollm2() -> HFLocalAdapter:
    # one torch thread: this suite shares two cores with other jobs (see HFLocalAdapter's `threads`)
    adapter = create_adapter("local-hf", max_new_tokens=24, batch_size=4, threads=1)
    _ = adapter.loaded  # ~17 s: dequantise the GGUF once for this module
    return adapter


@pytest.mark.slow
def test_real_smollm2_gguf_answers_in_batches(smollm2: HFLocalAdapter) -> None:
    assert smollm2.loaded.tokenizer.chat_template, "the GGUF carries its chat template"
    answers = asyncio.run(smollm2.ask_batch(["What is the capital of France?", "Name a colour.",
                                              "Is the sky blue? Answer yes or no."]))
    assert len(answers) == 3 and all(a.text.strip() for a in answers)
    assert "paris" in answers[0].text.lower()


@pytest.mark.slow
def test_real_smollm2_loglikelihood_prefers_the_right_answer(smollm2: HFLocalAdapter) -> None:
    paris, banana = smollm2.loglikelihoods("What is the capital of France?",
                                           ["The capital of France is Paris.", "The capital of France is Banana."])
    assert paris > banana
