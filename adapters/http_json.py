"""The `http` adapter: any JSON chat endpoint, described by a request template and a response path.

For chatbots with a home-made API (a company's support bot, a research demo) nobody should have to
write Python. The target names:
  * url (and method, default POST);
  * request_template: a TOML table or a JSON string in which any string may contain "{prompt}" (and
    "{system_prompt}"); a string that is exactly "{messages}" becomes an OpenAI-style message list
    (system prompt, history, the prompt). The template is parsed once and filled as a JSON *value*, so
    quotes, backslashes and newlines in a prompt can never break the request;
  * response_path: where the reply text is, dot-separated with list indices ("choices.0.message.content",
    "data.reply"); empty means the whole body is the reply (plain-text endpoints);
  * headers: values may contain ${ENV_VAR}; the registry lists those variables as the target's secrets,
    so a missing one is a one-sentence error and values never enter settings or fingerprints.
"""

from __future__ import annotations

import copy
import json
import os
import re
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from harness.adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from harness.adapters.transport import (
    ENV_REF,
    PerLoopClient,
    connection_failure,
    decode_json_body,
    error_for_status,
    header_env_vars,
    no_answer,
    redact,
    within,
)
from harness.core.errors import ConfigError

DEFAULT_TIMEOUT_S = 60.0


def extract_path(body: Any, path: str) -> Any:
    """Follow a dot path through dicts and lists; raises PermanentError naming the first missing step."""
    current = body
    walked: list[str] = []
    for step in [p for p in path.split(".") if p]:
        walked.append(step)
        if isinstance(current, list) and re.fullmatch(r"-?\d+", step):
            index = int(step)
            if -len(current) <= index < len(current):
                current = current[index]
                continue
        elif isinstance(current, dict) and step in current:
            current = current[step]
            continue
        raise PermanentError(f"response has no field '{'.'.join(walked)}'")
    return current


class HttpJsonAdapter(Adapter):
    """Settings: url, method (POST), request_template, response_path, headers, system_prompt, timeout_s."""

    kind = "http"

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        if not self.settings.get("url"):
            raise ConfigError(f"Target '{name}' (http adapter) needs url = \"https://...\".")
        self.settings.setdefault("method", "POST")
        self.settings.setdefault("response_path", "")
        template = self.settings.get("request_template", {"prompt": "{prompt}"})
        if isinstance(template, str):
            try:
                template = json.loads(template)
            except json.JSONDecodeError as exc:
                raise ConfigError(f"Target '{name}': request_template is not valid JSON ({exc.msg}, "
                                  f"char {exc.pos}); write placeholders inside strings, e.g. \"{{prompt}}\".") from None
        if "{prompt}" not in json.dumps(template) and "{messages}" not in json.dumps(template):
            raise ConfigError(f"Target '{name}': request_template must contain \"{{prompt}}\" or \"{{messages}}\".")
        self._template = template
        # Only a template with a "{messages}" slot passes the earlier turns of a conversation on.
        self.supports_history = "{messages}" in json.dumps(template)  # type: ignore[misc]
        # Secrets arrive from the registry keyed by variable name; direct construction reads the environment.
        secrets = dict(secrets or {})
        headers = dict(self.settings.get("headers") or {})
        self._secret_values = [v for v in secrets.values() if v]
        missing = [v for v in header_env_vars(headers) if v not in secrets and not os.environ.get(v)]
        if missing:
            raise ConfigError(f"Target '{name}' needs the environment variable {' and '.join(missing)}; "
                              "set it or pick another target with --target.")
        self._headers = {key: ENV_REF.sub(lambda m: secrets.get(m.group(1)) or os.environ[m.group(1)], str(value))
                         for key, value in headers.items()}
        self._secret_values += [os.environ[v] for v in header_env_vars(headers) if v not in secrets]
        self._clients = PerLoopClient(self._new_client, lambda c: c.aclose())

    def _new_client(self) -> httpx.AsyncClient:
        timeout = float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S)
        return httpx.AsyncClient(timeout=timeout, headers=self._headers, limits=httpx.Limits(max_connections=256))


    def build_request(self, prompt: str, history: Sequence[Message] = ()) -> Any:
        """Fill the template: placeholders are replaced inside parsed JSON values, never in raw text."""
        system = str(self.settings.get("system_prompt") or "")
        messages = ([{"role": "system", "content": system}] if system else []) + [
            {"role": m.role, "content": m.content} for m in history] + [{"role": "user", "content": prompt}]

        def fill(node: Any) -> Any:
            if isinstance(node, dict):
                return {k: fill(v) for k, v in node.items()}
            if isinstance(node, list):
                return [fill(v) for v in node]
            if isinstance(node, str):
                if node == "{messages}":
                    return copy.deepcopy(messages)
                return node.replace("{system_prompt}", system).replace("{prompt}", prompt)
            return node

        return fill(self._template)

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        client = self._clients.get()
        payload = json.dumps(self.build_request(prompt, history), ensure_ascii=False).encode("utf-8")
        try:
            response = await within(client.timeout.read, client.request(
                str(self.settings["method"]).upper(), str(self.settings["url"]), content=payload,
                headers={"Content-Type": "application/json"}))
        except httpx.TimeoutException:
            raise TransientError(f"timed out after {client.timeout.read}s") from None
        except httpx.TransportError as exc:
            raise connection_failure(exc, self._secret_values) from None
        if response.status_code >= 300:  # redirects are not followed: a moved API is a config error
            error = error_for_status(response.status_code, response.text, response.headers)
            error.reason = redact(error.reason, self._secret_values)
            error.args = (error.reason,)
            raise error
        path = str(self.settings.get("response_path") or "")
        if not path:
            try:
                text = response.content.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise TransientError(f"response body is not valid UTF-8 (byte {exc.start})") from None
        else:
            value = extract_path(decode_json_body(response.content), path)
            if isinstance(value, dict | list):
                raise PermanentError(f"field '{path}' holds a JSON {type(value).__name__}, not text")
            text = "" if value is None else str(value)
        if not text.strip():
            raise no_answer("empty reply")
        return Completion(text=text)

    async def aclose(self) -> None:
        await self._clients.aclose()
