"""The OpenAI-compatible wire format spoken directly over aiohttp: one POST of a JSON body, one JSON answer.

Why not the official SDK for these targets: at hundreds of requests per second the SDK's request building
(`_build_request`, URL parsing, header merging) cost more CPU than the HTTP exchange itself (issue 38: 69% of the
asking loop; one core reached 986 requests/s at c=256). An OpenAI-compatible endpoint needs nothing the SDK
adds: a URL, a bearer key, a JSON body. lm-eval's `local-chat-completions` talks to such servers the same way.
The SDK stays for targets whose provider needs its specifics (Azure's deployments and api-version, Anthropic).

For a plain-http target with no proxy (a local vLLM or llama.cpp server, the case where requests per second
matter) the POST goes over harness.adapters.http1 instead of aiohttp, unless the target asks for aiohttp itself
(`http_client = "aiohttp"`): aiohttp's own request path cost as much CPU as the rest of the asking loop.

The failure contract is the SDK path's, class for class (adapters.base, adapters.transport): an HTTP error status
goes through `error_for_status` with the server's `error.message` as detail (Retry-After honoured), 401/403 never
quote the server (it echoes the key back), a connection failure is "connection failed: <what happened>", a
socket timeout is "timed out", and every reason passes through the key mask. Decoding (gzip, deflate) is
aiohttp's, as it is under the SDK's aiohttp bridge.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from yarl import URL

from harness.adapters import http1
from harness.adapters.base import AdapterError, PermanentError, TransientError
from harness.adapters.transport import (
    connection_failure,
    decode_json_body,
    error_for_status,
    loaded_aiohttp,
    one_line,
    redact,
)
from harness.core import fast_json

if TYPE_CHECKING:
    import aiohttp

#: The SDK's own default base URL, so a target without base_url reaches the same place either way.
OPENAI_BASE_URL = "https://api.openai.com/v1"
_SDK_PREFIX = re.compile(r"^Error code: \d+ - ")


class WireClient:
    """One aiohttp session that POSTs JSON bodies to an OpenAI-compatible server (one per event loop:
    adapters.transport.PerLoopClient)."""

    def __init__(self, base_url: str | None, api_key: str, timeout_s: float, *, use_http1: bool = True) -> None:
        self.base = str(base_url or OPENAI_BASE_URL).rstrip("/")
        self.timeout = timeout_s
        self._api_key = api_key
        self._urls: dict[str, URL] = {}
        self._proxy = _env_proxy(self.base)
        self._headers = {"Authorization": f"Bearer {api_key}", "Accept": "application/json",
                         "Content-Type": "application/json", "User-Agent": "harness-bias"}
        #: plain-http targets with no proxy go over harness.adapters.http1 (one client per host and port)
        self._use_http1 = use_http1 and http1.AVAILABLE and not self._proxy
        self._http1: dict[tuple[str, int], http1.Http1Client] = {}
        self._session: aiohttp.ClientSession | None = None

    @property
    def session(self) -> aiohttp.ClientSession:
        """The aiohttp session (https targets, proxies, `http_client = "aiohttp"`), made on first use: its SSL
        contexts cost a tenth of a second of start-up that a plain-http run never needs."""
        if self._session is None:
            import aiohttp  # here, not at import: a plain-http run never needs it (a quarter second of start-up)

            # No pool limit: the run engine bounds the requests in flight. The adapter's deadline over the whole
            # exchange is transport.within (every call goes through it), so the only socket timeout is the
            # connect one, a backstop: a sock_read timeout re-armed a timer on every chunk read (a tenth of
            # aiohttp's CPU per request, issue 38) to enforce a looser limit than within's. trust_env stays off
            # and the environment's proxy is read once (_env_proxy): with it on, aiohttp hands every request to
            # a thread twice (netrc, proxy lookup), a fifth of the asking loop's CPU. No cookies are kept.
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(
                connector=connector, cookie_jar=aiohttp.DummyCookieJar(),
                timeout=aiohttp.ClientTimeout(total=None, sock_connect=self.timeout), headers=self._headers)
        return self._session

    @session.setter
    def session(self, session: aiohttp.ClientSession) -> None:
        self._session = session

    def http1_client(self, url: URL) -> http1.Http1Client | None:
        """The keep-alive client for a plain-http URL's host and port, or None when aiohttp carries it."""
        if not self._use_http1 or url.scheme != "http":
            return None
        key = (url.host or "localhost", url.port or 80)
        client = self._http1.get(key)
        if client is None:
            client = self._http1[key] = http1.client_for(url, self._headers, self.timeout)
        return client

    def url(self, path: str) -> URL:
        """The absolute URL of `path` (relative to the base URL unless it is absolute), parsed once."""
        url = self._urls.get(path)
        if url is None:
            url = URL(path if "://" in path else self.base + path)
            self._urls[path] = url
        return url

    async def post(self, path: str, body: Mapping[str, Any]) -> bytes:
        """The raw body of a 2xx answer to POST `body` as JSON; an AdapterError for every other outcome."""
        payload = fast_json.dumps(body)
        url = self.url(path)
        try:
            direct = self.http1_client(url)
            if direct is not None:
                answer = await direct.post(url.raw_path_qs, payload)
                status, content, headers = answer.status, answer.body, answer.headers
            else:
                status, content, headers = await self._post_aiohttp(url, payload)
            if status >= 300:
                raise self.status_error(status, content, headers)
            return content
        except AdapterError:
            raise
        except Exception as exc:
            failure = self.client_failure(exc)
            if failure is None:
                raise
            raise failure from None

    async def _post_aiohttp(self, url: URL, payload: bytes) -> tuple[int, bytes, Mapping[str, str]]:
        # awaited, not `async with`: two context-manager layers less per request; read() closes the
        # connection itself when it fails or is cancelled, and release() hands a finished one back
        response = await self.session.post(url, data=payload, **self._proxy)
        try:
            content = await response.read()
        finally:
            response.release()
        return response.status, content, response.headers

    def client_failure(self, exc: Exception) -> TransientError | None:
        """"timed out" or "connection failed: ..." for an HTTP client's exception; None for any other (a bug).
        aiohttp's classes are looked up only when aiohttp was imported (transport.loaded_aiohttp)."""
        aiohttp = loaded_aiohttp()
        if isinstance(exc, TimeoutError) or (aiohttp is not None and isinstance(exc, aiohttp.ServerTimeoutError)):
            return TransientError(f"timed out after {self.timeout}s")
        if isinstance(exc, OSError) or (aiohttp is not None and isinstance(exc, aiohttp.ClientError)):
            return connection_failure(exc, [self._api_key])
        return None

    async def post_json(self, path: str, body: Mapping[str, Any]) -> Any:
        """The decoded JSON of a 2xx answer to POST `body` (decode_json); an AdapterError for every other outcome."""
        return decode_json(await self.post(path, body))

    def status_error(self, status: int, content: bytes, headers: Mapping[str, str]) -> AdapterError:
        """The error class and one-line reason for an HTTP error status, as the SDK path classifies it."""
        if status in (401, 403):
            return PermanentError(f"HTTP {status}: authentication failed; check the target's API key")
        if status < 400:  # aiohttp followed it already; a POST is not re-sent elsewhere behind the user's back
            where = redact(str(headers.get("location") or headers.get("Location") or "elsewhere"), [self._api_key])
            return PermanentError(f"HTTP {status}: the server redirects to {one_line(where)}; set the target's "
                                  "base_url to that address")
        return error_for_status(status, redact(error_detail(content), [self._api_key]), headers)

    async def close(self) -> None:
        for client in self._http1.values():
            await client.close()
        if self._session is not None:
            await self._session.close()


def _env_proxy(base: str) -> dict[str, Any]:
    """The proxy the environment names for `base` (HTTPS_PROXY, NO_PROXY, ...), as session.post keywords; {} for none.
    The SDK's httpx stack honours these variables too, so a target behind a proxy works on both paths. aiohttp's
    reading of them (netrc credentials included) is used only when the environment names a proxy for the scheme."""
    if URL(base).scheme not in urllib.request.getproxies():
        return {}
    from aiohttp.helpers import get_env_proxy_for_url

    try:
        proxy, auth = get_env_proxy_for_url(URL(base))
    except LookupError:
        return {}
    return {"proxy": proxy, "proxy_auth": auth}


def decode_json(content: bytes) -> Any:
    """A 2xx body's JSON value (harness.core.fast_json); a body it cannot read gets transport.decode_json_body's
    verdict and reason ("not valid UTF-8", "not valid JSON"), exactly as before."""
    try:
        return fast_json.loads(content)
    except ValueError:  # UnicodeDecodeError and JSONDecodeError alike: the shared reader says which
        return decode_json_body(content)


def error_detail(content: bytes) -> str:
    """The server's own words for an error: `error.message` of a JSON body (OpenAI's shape), else the body."""
    text = content.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if isinstance(data, dict):
        data = data.get("error", data)
        if isinstance(data, dict) and data.get("message"):
            return str(data["message"])
    return _SDK_PREFIX.sub("", str(data)) if data not in (None, "") else text
