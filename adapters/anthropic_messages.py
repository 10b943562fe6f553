"""The `anthropic` adapter: Anthropic's Messages API through the official `anthropic` SDK.

Why not the `openai` adapter: the Messages API is its own wire format (POST /v1/messages with an
`anthropic-version` header, `system` as a top-level field rather than a message, `max_tokens` required, the
reply as a list of content blocks, errors as {"type": "error", "error": {...}}), so an OpenAI client cannot
speak it; the SDK also keeps the headers and the API version current.

Design choices, as in adapters/openai_chat.py:
  * The SDK's own retries are off (max_retries=0): the run engine owns retries, back-off and rate limits.
  * Failures are classified by the shared table (adapters.transport): 408/409/425/429, every 5xx (Anthropic's
    529 "overloaded" too), timeouts and dropped connections are transient; other 4xx are permanent.
  * 401/403 reasons never quote the server's message, and every other reason has the key masked.
  * A reply with no text block, or only whitespace, is permanent (asking again gets the same answer).
  * Sampling: the SDK (2.14) no longer offers temperature or top_p; a target that sets them has them sent as
    extra body fields (for the models that still read them). Without them the provider's default sampling
    applies, so two runs may differ: compare runs of such a target with that in mind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from harness.adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from harness.adapters.transport import (
    PerLoopClient,
    connection_failure,
    error_for_status,
    no_answer,
    one_line,
    redact,
    within,
)
from harness.core.errors import ConfigError

DEFAULT_TIMEOUT_S = 60.0


class AnthropicMessagesAdapter(Adapter):
    """Settings: model (required), base_url (the SDK's default, https://api.anthropic.com, when unset),
    max_tokens (256; the API requires one), system_prompt, stop (a list of stop sequences), temperature and
    top_p (sent as extra body fields, only when set), timeout_s (60; transport only)."""

    kind = "anthropic"

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        if not self.settings.get("model"):
            raise ConfigError(f"Target '{name}' (anthropic adapter) needs a model: set model = \"...\" under "
                              f"[targets.{name}] in targets.toml.")
        self.settings.setdefault("max_tokens", 256)
        self._api_key = (secrets or {}).get("api_key") or ""
        if not self._api_key:
            raise ConfigError(f"Target '{name}' (anthropic adapter) needs an API key: api_key_env = \"VAR\".")
        try:
            import anthropic
        except ImportError as exc:
            raise ConfigError("The anthropic adapter needs the anthropic SDK: pip install anthropic "
                              "(or the harness-bias[anthropic] extra).") from exc
        self._sdk = anthropic
        self._clients = PerLoopClient(self._new_client, lambda c: c.close())

    def _new_client(self) -> Any:
        timeout = float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S)
        kwargs: dict[str, Any] = {"api_key": self._api_key, "max_retries": 0, "timeout": timeout}
        if self.settings.get("base_url"):
            kwargs["base_url"] = str(self.settings["base_url"])
        return self._sdk.AsyncAnthropic(**kwargs)

    def _request(self, prompt: str, history: Sequence[Message]) -> dict[str, Any]:
        s = self.settings
        # The Messages API has no "system" role: a system prompt (set, or one in the history) is a top-level field.
        system = [m.content for m in history if m.role == "system"]
        if s.get("system_prompt"):
            system.insert(0, str(s["system_prompt"]))
        messages = [{"role": m.role, "content": m.content} for m in history if m.role != "system"]
        messages.append({"role": "user", "content": prompt})
        request: dict[str, Any] = {"model": s["model"], "max_tokens": int(s["max_tokens"]), "messages": messages}
        if system:
            request["system"] = "\n\n".join(system)
        sampling = {key: s[key] for key in ("temperature", "top_p") if s.get(key) is not None}
        if sampling:
            request["extra_body"] = sampling
        if s.get("stop"):
            request["stop_sequences"] = list(s["stop"]) if isinstance(s["stop"], list | tuple) else [str(s["stop"])]
        return request

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        client = self._clients.get()
        sdk = self._sdk
        try:
            message = await within(float(client.timeout) if isinstance(client.timeout, int | float) else None,
                                   client.messages.create(**self._request(prompt, history)))
        except sdk.APIStatusError as exc:
            raise self._status_error(exc) from None
        except sdk.APITimeoutError:
            raise TransientError(f"timed out after {client.timeout}s") from None
        except sdk.APIConnectionError as exc:
            raise connection_failure(exc.__cause__ or exc, [self._api_key]) from None
        except (ValueError, sdk.APIResponseValidationError) as exc:  # a body that is not a Messages reply
            raise TransientError(redact(f"response body is not a Messages reply ({one_line(str(exc), 120)})",
                                        [self._api_key])) from None
        return _completion(message)

    def _status_error(self, exc: Any) -> Exception:
        status = exc.status_code
        if status in (401, 403):
            return PermanentError(f"HTTP {status}: authentication failed; check the target's API key")
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        detail = str(error.get("message") or re.sub(r"^Error code: \d+ - ", "", str(exc.message)))
        return error_for_status(status, redact(detail, [self._api_key]), exc.response.headers)

    async def aclose(self) -> None:
        await self._clients.aclose()


def _completion(message: Any) -> Completion:
    """The text blocks of a Messages reply joined, with usage and stop reason; PermanentError when empty."""
    blocks = getattr(message, "content", None) or []
    text = "".join(getattr(b, "text", "") for b in blocks if getattr(b, "type", "") == "text")
    stop = getattr(message, "stop_reason", None)
    if not text.strip():
        raise no_answer(f"empty reply (stop_reason={stop})", stop)
    usage: dict[str, Any] = {}
    raw = getattr(message, "usage", None)
    for ours, theirs in (("prompt_tokens", "input_tokens"), ("completion_tokens", "output_tokens")):
        value = getattr(raw, theirs, None)
        if isinstance(value, int):
            usage[ours] = value
    if stop:
        usage["finish_reason"] = stop
    return Completion(text=text, usage=usage)
