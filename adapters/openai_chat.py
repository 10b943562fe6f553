"""The `openai` adapter: any OpenAI-compatible Chat Completions endpoint through the official SDK.

Works with OpenAI and every compatible server (vLLM, llama.cpp server, Ollama, DeepSeek, Qwen, Hunyuan's
compatible endpoint): only `base_url` and `model` change.

Design choices:
  * The SDK's own retries are off (max_retries=0): the run engine owns retries, backoff and rate limits,
    so a fault is counted once and honoured the same way for every adapter.
  * We ask for the raw HTTP response and parse the JSON ourselves. That skips building pydantic models
    (CPU matters at hundreds of requests per second on two cores) and lets us classify a garbled body
    precisely instead of receiving whatever the SDK raises for it.
  * Malformed JSON / invalid UTF-8 bodies are transient (adapters.transport.decode_json_body explains
    why); a well-formed body without choices, or with empty content, is permanent: asking again with the
    same settings would get the same answer.
  * 401/403 reasons never quote the server's message: OpenAI echoes part of the key back in it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import openai

from adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from adapters.transport import (
    PerLoopClient,
    decode_json_body,
    error_for_status,
    one_line,
    redact,
)
from harness.errors import ConfigError

DEFAULT_TIMEOUT_S = 60.0
#: Sent when the target names no key: local servers ignore it, the SDK refuses to start without one.
NO_KEY = "no-key-needed"


class OpenAIChatAdapter(Adapter):
    """Settings: model (required), base_url, temperature (0.0), max_tokens (256) or max_completion_tokens,
    system_prompt, top_p, seed, stop, extra_body (dict passed through to the server), timeout_s (60)."""

    kind = "openai"

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        if not self.settings.get("model"):
            raise ConfigError(f"Target '{name}' (openai adapter) needs a model setting, e.g. model = \"gpt-4o-mini\".")
        self.settings.setdefault("temperature", 0.0)
        self.settings.setdefault("max_tokens", 256)
        self._api_key = (secrets or {}).get("api_key") or NO_KEY
        self._clients = PerLoopClient(self._new_client, lambda c: c.close())

    def _new_client(self) -> openai.AsyncOpenAI:
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.settings.get("base_url") or None,
            max_retries=0,
            timeout=float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S),
        )


    def _messages(self, prompt: str, history: Sequence[Message]) -> list[dict[str, str]]:
        messages = []
        if self.settings.get("system_prompt"):
            messages.append({"role": "system", "content": str(self.settings["system_prompt"])})
        messages.extend({"role": m.role, "content": m.content} for m in history)
        messages.append({"role": "user", "content": prompt})
        return messages

    def _request(self, prompt: str, history: Sequence[Message]) -> dict[str, Any]:
        s = self.settings
        request: dict[str, Any] = {"model": s["model"], "messages": self._messages(prompt, history),
                                   "temperature": s["temperature"]}
        # Newer OpenAI models (o-series, gpt-5) reject max_tokens and want max_completion_tokens.
        if s.get("max_completion_tokens") is not None:
            request["max_completion_tokens"] = s["max_completion_tokens"]
        else:
            request["max_tokens"] = s["max_tokens"]
        for key in ("top_p", "seed", "stop"):
            if s.get(key) is not None:
                request[key] = s[key]
        if s.get("extra_body"):
            request["extra_body"] = dict(s["extra_body"])
        return request

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        client = self._clients.get()
        try:
            raw = await client.chat.completions.with_raw_response.create(**self._request(prompt, history))
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from None
        except openai.APITimeoutError:
            raise TransientError(f"timed out after {client.timeout}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc
            detail = one_line(f"{type(cause).__name__}: {cause}") if str(cause) else type(cause).__name__
            raise TransientError(redact(f"connection failed ({detail})", [self._api_key])) from None
        return parse_chat_completion(decode_json_body(raw.http_response.content))

    def _status_error(self, exc: openai.APIStatusError) -> Exception:
        status = exc.status_code
        if status in (401, 403):
            return PermanentError(f"HTTP {status}: authentication failed; check the target's API key")
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = str(body.get("message") or re.sub(r"^Error code: \d+ - ", "", exc.message))
        return error_for_status(status, redact(detail, [self._api_key]), exc.response.headers)

    async def aclose(self) -> None:
        await self._clients.aclose()


def parse_chat_completion(body: Any) -> Completion:
    """Text and usage from a Chat Completions body; PermanentError when there is no usable answer."""
    if not isinstance(body, dict):
        raise PermanentError("response is not a chat completion object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            raise PermanentError(f"server error: {one_line(str(error['message']))}")
        raise PermanentError("response has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts (some compatible servers)
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    finish = choice.get("finish_reason")
    if not isinstance(content, str) or not content.strip():
        raise PermanentError(f"empty reply (finish_reason={finish})")
    usage: dict[str, Any] = {}
    if isinstance(body.get("usage"), dict):
        for key in ("prompt_tokens", "completion_tokens"):
            if isinstance(body["usage"].get(key), int):
                usage[key] = body["usage"][key]
    if finish:
        usage["finish_reason"] = finish
    return Completion(text=content, usage=usage)
