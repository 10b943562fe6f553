"""The `openai` adapter: any OpenAI-compatible Chat Completions endpoint, over its wire format or the official SDK.

Works with OpenAI and every compatible server (vLLM, llama.cpp server, Ollama, DeepSeek, Qwen, Hunyuan's
compatible endpoint): only `base_url` and `model` change.

Design choices:
  * The SDK's own retries are off (max_retries=0): the run engine owns retries, backoff and rate limits,
    so a fault is counted once and honoured the same way for every adapter.
  * Requests go through the SDK's documented low-level call for any endpoint,
    `client.post("/chat/completions", cast_to=httpx2.Response, body=...)`, and we parse the JSON ourselves.
    That skips the SDK's typed-dict transform of the request and its pydantic response models, which cost
    more CPU than the HTTP exchange itself (benchmarks/run_throughput.py; CPU is what limits hundreds of
    requests per second on two cores), and lets us classify a garbled body precisely. The SDK still does
    the rest: base URL, auth headers, status errors (APIStatusError with the parsed error body).
  * By default (`http_client = "http1"`) the adapter speaks the OpenAI-compatible wire format itself
    (harness.adapters.openai_wire), as lm-eval does: the SDK's request building was most of the CPU of the
    asking loop (issue 38). Plain-http targets go over harness.adapters.http1 (aiohttp's own request path
    cost as much again), https targets and proxies over aiohttp; `http_client = "aiohttp"` puts every
    request on aiohttp. The failure classes are the same on every path (tests/adapters/test_adapter_openai.py
    runs every fault over each). `http_client = "httpx"` selects the SDK over its default stack; without
    aiohttp installed that is used automatically. A subclass whose provider needs the SDK's specifics
    (Azure) sets `speaks_wire = False` and gets the SDK over aiohttp.
  * Malformed JSON / invalid UTF-8 bodies are transient (adapters.transport.decode_json_body explains
    why), and so is a well-formed body without choices or with empty content (a server that lost the
    generation answers the next request: the same retries as a 503), unless the server says it stopped on
    purpose (finish_reason content_filter or length: asking again gets the same; transport.no_answer).
  * `timeout_s` is a deadline for the whole exchange (transport.within), not the HTTP client's per-phase
    timeouts, which a server trickling its body byte by byte never trips.
  * 401/403 reasons never quote the server's message: OpenAI echoes part of the key back in it.
  * The vendored aiohttp bridge reports every aiohttp connection error (reset, refused, server gone) as
    an httpx2 ConnectTimeout, so the SDK calls them timeouts; `_connection_failure` looks at the original
    aiohttp exception and keeps "timed out" for real timeouts only, as with the httpx stack.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from harness.adapters.transport import (
    PerLoopClient,
    connection_failure,
    decode_json_body,
    error_for_status,
    loaded_aiohttp,
    no_answer,
    one_line,
    redact,
    within,
)
from harness.core.errors import ConfigError

DEFAULT_TIMEOUT_S = 60.0
#: Sent when the target names no key: local servers ignore it, the SDK refuses to start without one.
NO_KEY = "no-key-needed"
HTTP_CLIENT_AIOHTTP = "aiohttp"
HTTP_CLIENT_HTTPX = "httpx"
#: the wire format over harness.adapters.http1 for plain-http targets (aiohttp for https and proxies)
HTTP_CLIENT_HTTP1 = "http1"


@functools.cache
def _aiohttp_installed() -> bool:
    """Whether aiohttp (the openai[aiohttp] extra) is installed, without importing it: a plain-http target on
    the default client never uses it, and importing it cost a quarter of a second of start-up (issue 38)."""
    return importlib.util.find_spec("aiohttp") is not None


if TYPE_CHECKING:
    import openai


def _sdk() -> Any:
    """The openai SDK, imported on first use: only the SDK path (http_client = "httpx", Azure) needs it, and
    importing it costs 1.7 s of start-up (its pydantic models), more than a whole run of the wire path."""
    import openai

    return openai


class OpenAIChatAdapter(Adapter):
    """Settings: model (required), base_url, temperature (0.0), max_tokens (256) or max_completion_tokens,
    system_prompt, top_p, seed, stop, extra_body (dict passed through to the server), timeout_s (60),
    http_client ("http1" when httptools and aiohttp are installed, "aiohttp", or "httpx"; transport only, not part
    of the fingerprint)."""

    kind = "openai"
    #: False where the provider needs the SDK's client (Azure's deployment URLs and api-version).
    speaks_wire: bool = True

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None, *,
                 secrets: Mapping[str, str] | None = None) -> None:
        super().__init__(name, settings)
        if not self.settings.get("model"):
            raise ConfigError(f"Target '{name}' (openai adapter) needs a model setting, e.g. model = \"gpt-4o-mini\".")
        self.settings.setdefault("temperature", 0.0)
        self.settings.setdefault("max_tokens", 256)
        self._api_key = (secrets or {}).get("api_key") or NO_KEY
        self.http_client = self._pick_http_client(self.settings.get("http_client"))
        self._clients = PerLoopClient(self._new_client, lambda c: c.close())
        self._served: Any = None  # harness.adapters.served_logprobs.ServedLogprobs, made on first use

    def _pick_http_client(self, wanted: Any) -> str:
        from harness.adapters.http1 import AVAILABLE as HTTP1_AVAILABLE

        if wanted in (None, ""):
            if not _aiohttp_installed():
                return HTTP_CLIENT_HTTPX
            return HTTP_CLIENT_HTTP1 if HTTP1_AVAILABLE else HTTP_CLIENT_AIOHTTP
        if wanted == HTTP_CLIENT_HTTPX:
            return HTTP_CLIENT_HTTPX
        if wanted == HTTP_CLIENT_HTTP1:
            if not _aiohttp_installed() or not HTTP1_AVAILABLE:
                raise ConfigError(f"Target '{self.name}' asks for http_client = \"http1\", which needs httptools "
                                  "and aiohttp; run `pip install httptools 'openai[aiohttp]'` or drop the setting.")
            return HTTP_CLIENT_HTTP1
        if wanted == HTTP_CLIENT_AIOHTTP:
            if not _aiohttp_installed():
                raise ConfigError(f"Target '{self.name}' asks for http_client = \"aiohttp\", which is not "
                                  "installed; run `pip install 'openai[aiohttp]'` or drop the setting.")
            return HTTP_CLIENT_AIOHTTP
        raise ConfigError(f"Target '{self.name}': http_client must be \"http1\", \"aiohttp\" or \"httpx\", "
                          f"not {wanted!r}.")

    @property
    def _timeout_s(self) -> float:
        return float(self.settings.get("timeout_s") or DEFAULT_TIMEOUT_S)

    @property
    def _wire(self) -> bool:
        return self.speaks_wire and self.http_client != HTTP_CLIENT_HTTPX

    def _new_client(self) -> Any:
        timeout = self._timeout_s
        if self._wire:
            from harness.adapters.openai_wire import WireClient

            return WireClient(self.settings.get("base_url") or None, self._api_key, timeout,
                              use_http1=self.http_client == HTTP_CLIENT_HTTP1)
        openai = _sdk()
        http_client = (openai.DefaultAioHttpClient(timeout=timeout)
                       if self.http_client != HTTP_CLIENT_HTTPX else None)  # "http1" means aiohttp here
        return openai.AsyncOpenAI(
            api_key=self._api_key,
            base_url=self.settings.get("base_url") or None,
            max_retries=0,
            timeout=timeout,
            http_client=http_client,
        )

    def _messages(self, prompt: str, history: Sequence[Message]) -> list[dict[str, str]]:
        system = self.settings.get("system_prompt")
        if not system and not history:  # the asking loop's case: one message, no generator to build
            return [{"role": "user", "content": prompt}]
        messages = [{"role": "system", "content": str(system)}] if system else []
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
            request.update(s["extra_body"])  # sent as-is: client.post does no transform of the body
        return request

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        return parse_chat_completion(await self.post_chat(self._request(prompt, history)))

    async def post_chat(self, body: dict[str, Any]) -> Any:
        """POST one Chat Completions request body; the decoded JSON, failures classified as for ask().

        Public for callers that need more of the answer than its text (harness.adapters.label_probs reads
        the log-probabilities)."""
        return await self._post("/chat/completions", body)

    async def post_completions(self, body: dict[str, Any]) -> Any:
        """POST one legacy Completions request body (prompt log-probabilities: harness.adapters.served_logprobs);
        the decoded JSON, failures classified as for ask()."""
        return await self._post("/completions", body)

    async def post_server(self, path: str, body: dict[str, Any]) -> Any:
        """POST `body` to `path` at the server's root (the base URL without its /v1: vLLM's /tokenize,
        llama.cpp's /tokenize and /extras/tokenize); the decoded JSON, failures classified as for ask()."""
        base = str(self.settings.get("base_url") or "https://api.openai.com/v1").rstrip("/")
        root = base[: -len("/v1")] if base.endswith("/v1") else base
        return await self._post(root + path, body)

    # -- prompt log-probabilities (white-box suites on a served model: harness.adapters.served_logprobs) -----
    @property
    def served_logprobs(self) -> Any:
        """The server's prompt log-probabilities, checked once per adapter (created on first use)."""
        if self._served is None:
            from harness.adapters.served_logprobs import ServedLogprobs

            self._served = ServedLogprobs(self)
        return self._served

    @property
    def start_token_text(self) -> str | None:
        """The text of the start token each scored text was read after ("" none, "unknown" when the harness
        could not learn it), once the first score was asked; None before (served_logprobs.StartToken)."""
        start = self._served.start if self._served is not None else None
        return start.text if start is not None else None

    @property
    def start_token_note(self) -> str | None:
        """The one sentence saying why the start token could not be learned (None when it was)."""
        start = self._served.start if self._served is not None else None
        return start.note if start is not None else None

    async def score_continuations(self, pairs: Sequence[tuple[str, str]]) -> list[Any]:
        """ScoredText (summed log-probability, tokens) of each continuation after its context, as the served
        model reads it; the engine is checked first (EngineRefused when its numbers disagree)."""
        return await self.served_logprobs.score_continuations(pairs)

    async def loglikelihoods(self, prompt: str, continuations: Sequence[str]) -> list[float]:
        """CBBQ's log-likelihood answers on a served model: each continuation's summed log-probability after
        the prompt, formatted by the chat template of `chat_template_from` when set (else sent as it is)."""
        return [s.logprob for s in await self.score_continuations(self.loglik_pairs(prompt, continuations))]

    def loglik_pairs(self, prompt: str, continuations: Sequence[str]) -> list[tuple[str, str]]:
        """The (context, continuation) pairs `loglikelihoods` scores (the run layer sends them through its engine)."""
        from harness.adapters.prompt_logprobs import split_context

        context = self.served_logprobs.format_prompt(prompt)
        return [split_context(context, c) for c in continuations]

    async def _post(self, path: str, body: dict[str, Any]) -> Any:
        client = self._clients.get()
        if self._wire:  # the wire client classifies its own failures (harness.adapters.openai_wire)
            return await within(self._timeout_s, client.post_json(path, body))
        import httpx2

        openai = _sdk()
        try:
            # the target's timeout_s is a deadline for the whole exchange (transport.within), not per phase
            response = await within(self._timeout_s, client.post(path, cast_to=httpx2.Response, body=body))
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from None
        except openai.APIConnectionError as exc:  # APITimeoutError is a subclass
            raise self._connection_failure(exc, client.timeout) from None
        except Exception as exc:
            aiohttp = loaded_aiohttp()
            if aiohttp is not None and isinstance(exc, aiohttp.ClientError):  # one the bridge does not map
                raise self._connection_failure(exc, client.timeout) from None
            raise
        return decode_json_body(response.content)

    def _connection_failure(self, exc: BaseException, timeout: Any) -> TransientError:
        """"timed out" for timeouts, "connection failed (Cause: detail)" for everything else."""
        cause = _aiohttp_cause(exc)
        if cause is not None:
            timed_out = isinstance(cause, loaded_aiohttp().ServerTimeoutError | TimeoutError)
        else:
            timed_out = isinstance(exc, _sdk().APITimeoutError)
            cause = exc.__cause__ or exc
        if timed_out:
            return TransientError(f"timed out after {timeout}s")
        return connection_failure(cause, [self._api_key])

    def _status_error(self, exc: openai.APIStatusError) -> Exception:
        status = exc.status_code
        if status in (401, 403):
            return PermanentError(f"HTTP {status}: authentication failed; check the target's API key")
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = str(body.get("message") or re.sub(r"^Error code: \d+ - ", "", exc.message))
        return error_for_status(status, redact(detail, [self._api_key]), exc.response.headers)

    async def aclose(self) -> None:
        await self._clients.aclose()


def _aiohttp_cause(exc: BaseException) -> BaseException | None:
    """The aiohttp exception behind `exc` (itself or in its `raise ... from` chain), if any."""
    aiohttp = loaded_aiohttp()
    if aiohttp is None:
        return None
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, aiohttp.ClientError):
            return current
        seen.add(id(current))
        current = current.__cause__
    return None


def parse_chat_completion(body: Any) -> Completion:
    """Text and usage from a Chat Completions body; PermanentError when there is no usable answer."""
    if not isinstance(body, dict):
        raise PermanentError("response is not a chat completion object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            raise no_answer(f"server error: {one_line(str(error['message']))}")
        raise no_answer("response has no choices")
    choice = choices[0]
    message = choice.get("message") or {}
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # content parts (some compatible servers)
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    finish = choice.get("finish_reason")
    if not isinstance(content, str) or not content.strip():
        raise no_answer(f"empty reply (finish_reason={finish})", finish)
    usage: dict[str, Any] = {}
    if isinstance(body.get("usage"), dict):
        for key in ("prompt_tokens", "completion_tokens"):
            if isinstance(body["usage"].get(key), int):
                usage[key] = body["usage"][key]
    if finish:
        usage["finish_reason"] = finish
    return Completion(text=content, usage=usage)
