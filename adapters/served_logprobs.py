"""Prompt log-probabilities from an OpenAI-compatible server (vLLM, llama.cpp's server, ...), checked.

A model too large for this machine is served by an engine (vLLM with tensor or pipeline parallelism across
GPUs and nodes) and reached with a plain `adapter = "openai"` target. This module gets the log-probability
of every token of a prompt from it, in whichever form the server offers (harness.adapters.prompt_logprobs):

* `logprob_format = "auto"` (default): the first request asks for vLLM's `prompt_logprobs`; a server that
  ignores the field answers without it, and the legacy echo form (`echo: true`, `logprobs: 1`) is used;
* `"vllm"` or `"echo"`: that form only, no detection.

The start token, learned, not set. The in-process targets read every text after the model's start token (BOS,
put first also when the model does not add it to prompts: SmolLM2's <|im_start|>, Qwen's <|endoftext|>), so a
served target must too, or its numbers differ (CHBias gender on SmolLM2, 10 pairs: t -0.97 served without
it, +0.98 in process). Before its first score the harness learns what the engine puts before a prompt, by
asking it to tokenise the empty text with its special tokens (vLLM's and llama.cpp's `/tokenize`,
llama-cpp-python's `/extras/tokenize`; else the echoed first token), and:
  * the engine puts a token first (vLLM for Llama, Mistral, Gemma): nothing is added;
  * it puts none: the harness puts the model's start token's text first itself, read from the tokenizer
    `chat_template_from` names (harness.adapters.chat_format.model_start_token);
  * it cannot tell (no endpoint answers, or no `chat_template_from`): texts are read as they are, the
    start token is "unknown", and the run says so in one sentence (the CHBias note) with metrics.json's
    start token.
`prompt_prefix`, when set (even to ""), is used instead of all this. llama-cpp-python's server (0.3.36)
shows why it matters: for a model whose GGUF does not add BOS (SmolLM2, Qwen2.5), every echoed
log-probability is that of the token under the distribution for the *next* position (" of" after "The
capital" got -9.38 instead of -0.29); with the BOS text first it strips that token as BOS and the numbers
equal the in-process model's to the printed digits. The trust check catches the first case, and its
sentence then names the start token.

Every request generates one token (`max_tokens: 1`; llama.cpp reads 0 as "until the context is full"),
which is dropped. `logprob_batch` prompts go in one request (the Completions API takes a list of prompts;
vLLM batches them; llama.cpp's server takes one, so 1 is the default).

Trust, not hope: before its first score is used, the engine is checked once (`verify`). It generates a few
tokens greedily with their log-probabilities, then reads the prompt plus those tokens back; the same tokens
must get the same log-probabilities both ways (prompt_logprobs.agreement). An engine that disagrees (a
position shift, a wrong computation, a proxy that invents numbers) is refused with one sentence saying what
differs, and nothing it returned is used.

Not here: retries, concurrency and the response cache, which the run layer applies to these calls as it does
to chat requests (harness.run.perplexity).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from harness.adapters.base import AdapterError, PermanentError
from harness.adapters.prompt_logprobs import (
    PromptTokens,
    ScoredText,
    agreement,
    choices_by_index,
    continuation_tokens,
    generated_tokens,
    parse_echo,
    parse_vllm_prompt_logprobs,
    refusal_sentence,
    score_tail,
)
from harness.core.errors import ConfigError

FORMAT_AUTO, FORMAT_ECHO, FORMAT_VLLM = "auto", "echo", "vllm"
FORMATS = (FORMAT_AUTO, FORMAT_ECHO, FORMAT_VLLM)
#: The trust check's prompt: any text works; this one makes most chat and base models continue with words.
CHECK_PROMPT = "The capital of France is Paris. The capital of Italy is"
CHECK_TOKENS = 4
#: StartToken.text when the harness could not learn what the model's texts should be read after.
UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class StartToken:
    """What a served target reads before every prompt, and how the harness learned it.

    text    the start token's text ("<|im_start|>"), "" when the model has none, UNKNOWN when not learned;
    prefix  what the harness itself puts before each prompt ("" when the engine puts the token first);
    how     a clause saying where that came from, for the notes and the refusal sentence;
    note    one sentence when the harness could not tell (the run's summary and report carry it).
    """

    text: str
    prefix: str
    how: str
    note: str | None = None


def unknown_start_sentence(name: str, why: str) -> str:
    """The one sentence a run carries when a served target's start token could not be learned."""
    return (f"Target '{name}': the harness could not learn the model's start token ({why}), so each text was "
            "read without one, where the in-process targets read it after the start token; set "
            "chat_template_from (the served model's tokenizer) or prompt_prefix on the target to read it "
            "the same way (docs/big_models.md).")


class EngineRefused(ConfigError):
    """The engine's prompt log-probabilities failed the trust check (or it gives none): the run stops with
    this one sentence (exit 2), nothing it scored is recorded."""


class ServedLogprobs:
    """Prompt log-probabilities of one `openai` adapter's server. One per adapter (i.e. per run)."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        wanted = str(adapter.settings.get("logprob_format") or FORMAT_AUTO)
        if wanted not in FORMATS:
            raise ConfigError(f"Target '{adapter.name}': logprob_format must be one of {', '.join(FORMATS)}, "
                              f"not {wanted!r}.")
        self.format: str | None = None if wanted == FORMAT_AUTO else wanted
        self.batch = max(1, int(adapter.settings.get("logprob_batch") or 1))
        self.verified: str | None = None  # "ok" once the check passed
        self.start: StartToken | None = None  # learned before the check (learn_start)
        self.refused: EngineRefused | None = None  # kept: every later call is refused at once
        self._lock = asyncio.Lock()
        self._context_counts: dict[str, int] = {}
        self._formatter: Any = None

    def format_prompt(self, prompt: str) -> str:
        """The prompt as the served model reads it in a chat: rendered by the chat template of the target's
        `chat_template_from` (a .gguf file, a model folder or a hub id: the model the server serves), with the
        target's system prompt; the prompt unchanged when the setting is absent (a base model)."""
        source = self.adapter.settings.get("chat_template_from")
        if not source:
            return prompt
        if self._formatter is None:
            from harness.adapters.chat_format import chat_formatter

            self._formatter = chat_formatter(str(source))
        system = self.adapter.settings.get("system_prompt")
        messages = ([{"role": "system", "content": str(system)}] if system else []) + [
            {"role": "user", "content": prompt}]
        return self._formatter(messages)

    # -- requests -----------------------------------------------------------------------------------------
    def prefixed(self, prompt: str) -> str:
        """The prompt with what the harness puts first (the learned start token, or `prompt_prefix`; not
        doubled)."""
        prefix = self.start.prefix if self.start is not None else str(self.adapter.settings.get("prompt_prefix") or "")
        return prompt if prompt.startswith(prefix) else prefix + prompt

    # -- the start token --------------------------------------------------------------------------------
    async def learn_start(self) -> StartToken:
        """What every prompt is read after (see the module docstring); asked of the engine once."""
        if self.start is None:
            self.start = await self._learn_start()
        return self.start

    async def _learn_start(self) -> StartToken:
        settings = self.adapter.settings
        if settings.get("prompt_prefix") is not None:
            prefix = str(settings["prompt_prefix"])
            return StartToken(prefix, prefix, "the target's prompt_prefix setting")
        engine = await self._engine_start()
        if engine is None:  # no tokenizer endpoint: the echoed first token may still show it
            engine = await self._echoed_start()
        if engine is None:
            why = "its server offers no /tokenize and its echo does not show what it puts first"
            return StartToken(UNKNOWN, "", why, unknown_start_sentence(self.adapter.name, why))
        first, how = engine
        if first:
            return StartToken(first, "", f"put first by the engine ({how})")
        source = settings.get("chat_template_from")
        if not source:
            why = f"the engine puts none before a prompt ({how}) and no chat_template_from names the model"
            return StartToken(UNKNOWN, "", why, unknown_start_sentence(self.adapter.name, why))
        from harness.adapters.chat_format import model_start_token

        text = await asyncio.to_thread(model_start_token, str(source))
        if not text:
            return StartToken("", "", f"the model has none (its tokenizer, {source})")
        return StartToken(text, text, f"put first by the harness: the engine puts none ({how}), the model's "
                                      f"start token from its tokenizer ({source})")

    async def _engine_start(self) -> tuple[str, str] | None:
        """(text of what the engine puts before a prompt, "" for nothing; how that was learned), from its
        tokenizer endpoint asked to tokenise the empty text with its special tokens; None without one.
        One body serves vLLM's /tokenize (prompt, add_special_tokens, return_token_strs) and llama.cpp's
        (content, add_special, with_pieces); llama-cpp-python's is /extras/tokenize (input; BOS when the
        model adds it)."""
        model = self.adapter.settings["model"]
        asks = (("/tokenize", {"model": model, "prompt": "", "add_special_tokens": True, "return_token_strs": True,
                               "content": "", "add_special": True, "with_pieces": True}),
                ("/extras/tokenize", {"model": model, "input": ""}))
        for path, body in asks:
            try:
                doc = await self.adapter.post_server(path, body)
            except AdapterError:
                continue  # not offered here (404, 405, 400...): the next form, else the echo
            tokens = doc.get("tokens") if isinstance(doc, Mapping) else None
            if not isinstance(tokens, list):
                continue
            if not tokens:
                return "", f"its {path} of an empty text is empty"
            return _token_text(tokens[0], doc), f"its {path}"
        return None

    async def _echoed_start(self) -> tuple[str, str] | None:
        """What the engine put before the check prompt, from an echo of it (vLLM's legacy echo shows BOS as
        the first token); None when the echo cannot show it (llama-cpp-python drops BOS from its echo)."""
        try:
            doc = await self.adapter.post_completions(self._body([CHECK_PROMPT], FORMAT_ECHO, raw=True))
            choice = choices_by_index(doc, 1)[0]
            echoed = "".join(parse_echo(choice, generated=_generated_count(doc, choice)).tokens)
        except AdapterError:
            return None
        if echoed != CHECK_PROMPT and echoed.endswith(CHECK_PROMPT):
            return echoed[: -len(CHECK_PROMPT)], "its echoed first token"
        return None

    def _body(self, prompts: Sequence[str], form: str, *, raw: bool = False) -> dict[str, Any]:
        prompts = list(prompts) if raw else [self.prefixed(p) for p in prompts]
        body: dict[str, Any] = {"model": self.adapter.settings["model"],
                                "prompt": prompts[0] if len(prompts) == 1 else list(prompts),
                                "max_tokens": 1, "temperature": 0.0}
        if form == FORMAT_VLLM:
            body["prompt_logprobs"] = 1
        else:
            body.update(echo=True, logprobs=1)
        return body

    async def _read(self, prompts: Sequence[str], form: str) -> list[PromptTokens]:
        doc = await self.adapter.post_completions(self._body(prompts, form))
        out = []
        for choice in choices_by_index(doc, len(prompts)):
            if form == FORMAT_VLLM:
                out.append(parse_vllm_prompt_logprobs(choice))
            else:
                out.append(parse_echo(choice, generated=_generated_count(doc, choice)))
        return out

    async def _detect(self) -> str:
        if self.format is not None:
            return self.format
        try:
            doc = await self.adapter.post_completions(self._body([CHECK_PROMPT], FORMAT_VLLM))
            choice = choices_by_index(doc, 1)[0]
            if isinstance(choice.get("prompt_logprobs"), list):
                self.format = FORMAT_VLLM
                return self.format
        except PermanentError:
            pass  # e.g. a server that rejects unknown fields: try the standard form
        try:
            doc = await self.adapter.post_completions(self._body([CHECK_PROMPT], FORMAT_ECHO))
            parse_echo(choices_by_index(doc, 1)[0])
        except PermanentError as exc:
            raise EngineRefused(refusal_sentence(
                self.adapter.name, f"its server returns no prompt log-probabilities (neither vLLM's prompt_logprobs "
                f"nor echo with logprobs on /completions: {exc.reason})")) from None
        self.format = FORMAT_ECHO
        return self.format

    async def prompt_tokens(self, prompts: Sequence[str]) -> list[PromptTokens]:
        """Each prompt's tokens and log-probabilities, after the engine passed the trust check."""
        await self.verify()
        assert self.format is not None
        out: list[PromptTokens] = []
        for start in range(0, len(prompts), self.batch):
            out.extend(await self._read(prompts[start:start + self.batch], self.format))
        return out

    # -- the trust check ------------------------------------------------------------------------------
    async def verify(self) -> None:
        """Once per adapter: detect the form, then compare generated vs read-back log-probabilities.
        EngineRefused (one sentence) when they disagree; transport failures propagate (retried upstream)."""
        if self.verified:
            return
        async with self._lock:
            if self.refused is not None:
                raise self.refused
            if self.verified:
                return
            try:
                await self.learn_start()
                await self._check()
            except EngineRefused as exc:
                self.refused = exc
                raise
            self.verified = "ok"

    async def _check(self) -> None:
        """The trust check itself (see the module docstring); EngineRefused when the engine fails it."""
        form = await self._detect()
        body = {"model": self.adapter.settings["model"], "prompt": self.prefixed(CHECK_PROMPT),
                "max_tokens": CHECK_TOKENS, "temperature": 0.0, "logprobs": 1}
        doc = await self.adapter.post_completions(body)
        choice = choices_by_index(doc, 1)[0]
        try:
            generated = generated_tokens(choice)
        except PermanentError as exc:
            raise EngineRefused(refusal_sentence(
                self.adapter.name, f"it gives no log-probabilities for the tokens it generates ({exc.reason}), "
                "so its prompt log-probabilities cannot be checked")) from None
        text = "".join(generated.tokens)
        if not generated.tokens or not text:
            raise EngineRefused(refusal_sentence(self.adapter.name, "it generated nothing to check against"))
        if isinstance(choice.get("text"), str) and choice["text"]:
            text = choice["text"]
        context = (await self._read([CHECK_PROMPT], form))[0]
        whole = (await self._read([CHECK_PROMPT + text], form))[0]
        n_gen = continuation_tokens(len(context), len(whole))
        back = PromptTokens(whole.tokens[len(whole) - n_gen:], whole.logprobs[len(whole) - n_gen:]) \
            if n_gen > 0 else PromptTokens([], [])
        problem = agreement(generated, back)
        if problem:
            start = self.start
            if start is not None and not start.prefix and start.text in (UNKNOWN, ""):
                # an engine that reads a prompt without a start token may shift it (llama.cpp's server does)
                problem += (f" (it read the prompt without a start token: {start.how}; set chat_template_from or "
                            "prompt_prefix if the model has one)")
            raise EngineRefused(refusal_sentence(self.adapter.name, problem))

    # -- scores ---------------------------------------------------------------------------------------
    async def score_continuations(self, pairs: Sequence[tuple[str, str]]) -> list[ScoredText]:
        """Summed log-probability of each continuation after its context (prompt_logprobs.continuation_tokens).
        A context's own token count is read once and remembered (all CHBias sentences share one)."""
        contexts = [c for c in dict.fromkeys(c for c, _ in pairs) if c not in self._context_counts]
        if contexts:
            for context, read in zip(contexts, await self.prompt_tokens(contexts), strict=True):
                self._context_counts[context] = len(read)
        wholes = await self.prompt_tokens([c + x for c, x in pairs])
        return [score_tail(whole, continuation_tokens(self._context_counts[c], len(whole)), what=repr(x[:40]))
                for (c, x), whole in zip(pairs, wholes, strict=True)]


def _token_text(token: Any, doc: Mapping[str, Any]) -> str:
    """The text of a token a tokenizer endpoint returned: llama.cpp's piece, vLLM's token_strs[0], else its id."""
    if isinstance(token, Mapping):
        piece = token.get("piece")
        return str(piece) if piece else f"<token {token.get('id')}>"
    strs = doc.get("token_strs")
    if isinstance(strs, list) and strs and isinstance(strs[0], str) and strs[0]:
        return strs[0]
    return f"<token {token}>"


def _generated_count(doc: Any, choice: Any) -> int:
    """How many entries at the end of an echoed logprobs object are generated tokens: the usage's
    completion_tokens for a single prompt (llama.cpp, vLLM), else the one token every request asks for."""
    usage = doc.get("usage") if isinstance(doc, dict) else None
    if isinstance(usage, dict) and len(doc.get("choices") or []) == 1:
        count = usage.get("completion_tokens")
        if isinstance(count, int) and count >= 0:
            return count
    text = choice.get("text")
    return 1 if isinstance(text, str) else 0
