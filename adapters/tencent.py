"""The `tencent` adapter: Tencent Cloud Hunyuan ChatCompletions (API 3.0, version 2023-09-01).

BiasAsker asked Tencent's chatbot through an API that has since been retired; Hunyuan ChatCompletions is
the current one. Requests are signed with TC3-HMAC-SHA256 (adapters.tc3) and sent with httpx, so the
run engine can keep many requests in flight on one event loop. The endpoint is configurable (tests point
it at a local server that checks the signature; users may need a regional or private endpoint).

Tencent Cloud reports most failures as HTTP 200 with {"Response": {"Error": {"Code", "Message"}}}; the
code decides transient (rate limit, internal or engine errors: ask again later) versus permanent
(authentication, parameters, account state: asking again cannot help).
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx

from harness.adapters import tc3
from harness.adapters.base import Adapter, AdapterError, Completion, Message, PermanentError, TransientError
from harness.adapters.transport import (
    PerLoopClient,
    connection_failure,
    decode_json_body,
    error_for_status,
    no_answer,
    one_line,
    redact,
    within,
)
from harness.core.errors import ConfigError

SERVICE = "hunyuan"
VERSION = "2023-09-01"
ACTION = "ChatCompletions"
DEFAULT_ENDPOINT = "https://hunyuan.tencentcloudapi.com"
DEFAULT_TIMEOUT_S = 60.0

#: Error codes (or code prefixes) where waiting and asking again can succeed.
TRANSIENT_CODES = ("RequestLimitExceeded", "InternalError", "FailedOperation.EngineRequestTimeout",
                   "FailedOperation.EngineServerError", "FailedOperation.EngineServerLimitExceeded",
                   "ResourceUnavailable.ServiceUnavailable", "LimitExceeded")


def is_transient_code(code: str) -> bool:
    return any(code == c or code.startswith(c + ".") for c in TRANSIENT_CODES)


class TencentHunyuanAdapter(Adapter):
    """Settings: model (hunyuan-lite), region (ap-guangzhou), endpoint, temperature, top_p, system_prompt,
    extra (dict merged into the request, e.g. {EnableEnhancement = false}), timeout_s.
    Secrets: secret_id, secret_key, optional token (temporary credentials)."""

    kind = "tencent"

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        self.settings.setdefault("model", "hunyuan-lite")
        self.settings.setdefault("endpoint", DEFAULT_ENDPOINT)
        secrets = dict(secrets or {})
        if not secrets.get("secret_id") or not secrets.get("secret_key"):
            raise ConfigError(f"Target '{name}' (tencent adapter) needs secret_env with secret_id and "
                              "secret_key, e.g. TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY.")
        self._secret_id = secrets["secret_id"]
        self._secret_key = secrets["secret_key"]
        self._token = secrets.get("token")
        parts = urlsplit(str(self.settings["endpoint"]))
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ConfigError(f"Target '{name}': endpoint must be a URL like {DEFAULT_ENDPOINT}.")
        self._url = f"{parts.scheme}://{parts.netloc}/"
        self._host = parts.netloc
        self._clients = PerLoopClient(self._new_client, lambda c: c.aclose())

    def _new_client(self) -> httpx.AsyncClient:
        timeout = float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S)
        return httpx.AsyncClient(timeout=timeout, limits=httpx.Limits(max_connections=256))


    def request_body(self, prompt: str, history: Sequence[Message] = ()) -> dict[str, Any]:
        """The ChatCompletions request (Hunyuan uses capitalised field names)."""
        s = self.settings
        messages = []
        if s.get("system_prompt"):
            messages.append({"Role": "system", "Content": str(s["system_prompt"])})
        messages.extend({"Role": m.role, "Content": m.content} for m in history)
        messages.append({"Role": "user", "Content": prompt})
        body: dict[str, Any] = {"Model": s["model"], "Messages": messages, "Stream": False}
        if s.get("temperature") is not None:
            body["Temperature"] = float(s["temperature"])
        if s.get("top_p") is not None:
            body["TopP"] = float(s["top_p"])
        body.update(dict(s.get("extra") or {}))
        return body

    def sign(self, body: bytes, timestamp: int) -> dict[str, str]:
        return tc3.signed_headers(secret_id=self._secret_id, secret_key=self._secret_key, service=SERVICE,
                                  host=self._host, action=ACTION, version=VERSION, body=body,
                                  timestamp=timestamp, region=self.settings.get("region") or None,
                                  token=self._token)

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        body = json.dumps(self.request_body(prompt, history), ensure_ascii=False).encode("utf-8")
        headers = self.sign(body, int(time.time()))  # signed per attempt: signatures expire in 5 minutes
        client = self._clients.get()
        try:
            response = await within(client.timeout.read, client.post(self._url, content=body, headers=headers))
        except httpx.TimeoutException:
            raise TransientError(f"timed out after {client.timeout.read}s") from None
        except httpx.TransportError as exc:
            raise self._redacted(connection_failure(exc)) from None
        if response.status_code != 200:
            raise self._redacted(error_for_status(response.status_code, response.text, response.headers))
        return self._parse(decode_json_body(response.content))

    def _redacted(self, error: AdapterError) -> AdapterError:
        error.reason = redact(error.reason, [self._secret_id, self._secret_key, self._token or ""])
        error.args = (error.reason,)
        return error

    def _parse(self, body: Any) -> Completion:
        response = body.get("Response") if isinstance(body, dict) else None
        if not isinstance(response, dict):
            raise PermanentError("response has no 'Response' object")
        error = response.get("Error")
        if isinstance(error, dict):
            code = str(error.get("Code", "UnknownError"))
            reason = f"{code}: {one_line(str(error.get('Message', '')))}"
            exc: AdapterError = TransientError(reason) if is_transient_code(code) else PermanentError(reason)
            raise self._redacted(exc)
        choices = response.get("Choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise no_answer("response has no Choices")
        message = choices[0].get("Message") or {}
        content = message.get("Content") if isinstance(message, dict) else None
        finish = choices[0].get("FinishReason")
        if not isinstance(content, str) or not content.strip():
            raise no_answer(f"empty reply (FinishReason={finish})", finish)
        usage: dict[str, Any] = {}
        raw_usage = response.get("Usage") if isinstance(response.get("Usage"), dict) else {}
        if isinstance(raw_usage.get("PromptTokens"), int):
            usage["prompt_tokens"] = raw_usage["PromptTokens"]
        if isinstance(raw_usage.get("CompletionTokens"), int):
            usage["completion_tokens"] = raw_usage["CompletionTokens"]
        if finish:
            usage["finish_reason"] = finish  # "sensitive" marks a moderated reply: worth keeping
        if response.get("RequestId"):
            usage["request_id"] = response["RequestId"]
        return Completion(text=content, usage=usage)

    async def aclose(self) -> None:
        await self._clients.aclose()
