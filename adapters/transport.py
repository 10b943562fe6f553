"""Failure classification shared by the HTTP-based adapters (openai, tencent, http).

One table decides which HTTP statuses are worth retrying, and one parser reads the server's
`Retry-After` hint, so every adapter behaves the same under faults and the run engine can treat them
alike. Reasons built here are one line and never include request headers (where keys live).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import email.utils
import json
import re
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Generic, TypeVar

from harness.adapters.base import AdapterError, PermanentError, TransientError
from harness.core.redaction import mask_secrets

#: Statuses where asking again later can succeed: request timeout, conflict (OpenAI uses it for
#: transient locks), too early, rate limited, and every server-side failure.
RETRYABLE_STATUSES = frozenset({408, 409, 425, 429})

#: A ${VAR} reference to an environment variable in a header value (see adapters.http_json).
ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def header_env_vars(headers: Mapping[str, Any] | None) -> list[str]:
    """Environment variables referenced as ${VAR} in header values: they are the target's secrets."""
    found: list[str] = []
    for value in (headers or {}).values():
        for var in ENV_REF.findall(str(value)):
            if var not in found:
                found.append(var)
    return found


def parse_retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, from `retry-after-ms` (OpenAI) or `Retry-After`.

    `Retry-After` may be delta-seconds or an HTTP date (RFC 9110 10.2.3); both are accepted. Returns
    None when absent or unreadable, and never a negative number.
    """
    if not headers:
        return None
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_for_status(status: int, detail: str, headers: Mapping[str, str] | None = None) -> AdapterError:
    """Map an HTTP error status to the adapter failure contract (see adapters.base)."""
    reason = f"HTTP {status}" + (f": {one_line(detail)}" if detail else "")
    if status in RETRYABLE_STATUSES or status >= 500:
        return TransientError(reason, retry_after=parse_retry_after(headers))
    return PermanentError(reason)


#: Why a server may end an answer without text on purpose: its content filter, or the token limit (a reasoning
#: model that spent max_tokens thinking). Asking again with the same settings gives the same empty answer.
DELIBERATE_STOPS = frozenset({"content_filter", "length", "max_tokens", "sensitive", "refusal"})


def no_answer(reason: str, stop: Any = None) -> AdapterError:
    """A well-formed response with no usable answer (no choices, empty text). Transient, with the same retries
    as a 503: a server that lost the generation (a crashed worker, a proxy's placeholder body) answers the next
    request; the run engine caps the attempts, so a server that always answers so still ends as a recorded
    error. Permanent only when the server says it stopped on purpose (DELIBERATE_STOPS)."""
    if isinstance(stop, str) and stop.lower() in DELIBERATE_STOPS:
        return PermanentError(reason)
    return TransientError(reason)


# What a dropped connection means, by the client library's exception name (aiohttp's, httpx's, adapters.http1's):
# said in the harness's words, the library's text kept as detail. Checked along the exception's class hierarchy.
_CONNECTION_WORDS = (
    (("ClientPayloadError", "ContentLengthError", "TransferEncodingError", "IncompleteRead",
      "RemoteProtocolError:incomplete", "ReplyCutShort"),
     "the server closed the connection before the reply was complete"),
    (("ServerDisconnectedError", "RemoteProtocolError", "ServerClosedConnection"),
     "the server closed the connection without a reply"),
    (("ClientConnectorError", "ConnectError", "ConnectionRefusedError"), "could not connect to the server"),
    (("ConnectionResetError", "ClientOSError"), "the connection was reset"),
    (("ReadError",), "the connection broke while the reply was being read"),
)


def connection_words(exc: BaseException) -> str | None:
    """What happened to the connection, in the harness's words, or None when the exception is not one we know."""
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = str(exc).lower()
    if "RemoteProtocolError" in names and ("incomplete" in text or "complete message body" in text):
        names.add("RemoteProtocolError:incomplete")
    for known, words in _CONNECTION_WORDS:
        if names.intersection(known):
            return words
    return None


def loaded_aiohttp() -> Any:
    """The aiohttp module when this process has imported it, else None. Telling an exception by aiohttp's classes
    needs no import (it cost a quarter second of start-up, issue 38): if aiohttp was never imported, none of its
    errors can have been raised."""
    return sys.modules.get("aiohttp")


def connection_failure(exc: BaseException, secrets: Iterable[str] = ()) -> TransientError:
    """TransientError for a connection that failed: "connection failed: <what happened> (<library's text>)",
    or "connection failed (<library's text>)" for one we cannot name. Never the raw client message alone
    (`ClientPayloadError: Response payload is not completed: <ContentLengthError...>` says nothing to a user)."""
    detail = one_line(f"{type(exc).__name__}: {exc}") if str(exc) else type(exc).__name__
    words = connection_words(exc)
    reason = f"connection failed: {words} ({detail})" if words else f"connection failed ({detail})"
    return TransientError(redact(reason, list(secrets)))


def timed_out(timeout_s: float) -> TransientError:
    """The one reason for an attempt that passed its deadline."""
    return TransientError(f"timed out after {timeout_s:g}s")


#: A deadline the caller already enforces around an adapter call, as (the loop's clock, the task it bounds): the
#: run engine sets it for each attempt it runs under its own asyncio.timeout. `within` then arms no timer of its
#: own when that deadline comes first (it would fire first anyway), which halves the timers of an asked probe:
#: each cost 3% of the asking loop's CPU at c=256 (issue 38). Any other task, or no caller, arms its own.
ENCLOSING_DEADLINE: contextvars.ContextVar[tuple[float, asyncio.Task[Any] | None] | None] = contextvars.ContextVar(
    "harness_enclosing_deadline", default=None)


async def within(timeout_s: float | None, call: Awaitable[Any]) -> Any:
    """`call` under a total deadline of `timeout_s` seconds (TransientError "timed out" past it).

    Why: an HTTP client's timeout is per phase (httpx: connect, write, each read, pool; aiohttp's socket
    reads alike), so a server that sends a byte every few seconds, or a queue for a pooled connection, keeps a
    request going well past the target's `timeout_s`. A deadline over the whole exchange, body included, is
    what a user means by a timeout."""
    if not timeout_s or timeout_s <= 0:
        return await call
    enclosing = ENCLOSING_DEADLINE.get()
    if (enclosing is not None and enclosing[1] is asyncio.current_task()
            and enclosing[0] <= asyncio.get_running_loop().time() + timeout_s):
        return await call  # the caller's deadline is sooner: it would cancel this call before ours fired
    try:
        async with asyncio.timeout(timeout_s):
            return await call
    except TimeoutError:
        raise timed_out(timeout_s) from None


def one_line(text: str, limit: int = 200) -> str:
    """Collapse whitespace and cut long server messages so a reason stays one readable line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def redact(text: str, secrets: Iterable[str]) -> str:
    """Remove secret values from a message, whole or shortened (`sk-SENTI****6789`): servers echo keys
    back in error bodies of any status (harness.core.redaction)."""
    return mask_secrets(text, secrets)


def decode_json_body(content: bytes) -> Any:
    """Parse a response body, raising TransientError for bodies that are not valid UTF-8 JSON.

    Why transient: a truncated or garbled body (proxy cut the connection, server crashed mid-write) is a
    property of that one response, not of the request; asking again usually works, and the run engine
    caps attempts, so a server that always sends garbage still ends as a recorded error.
    """
    try:
        return json.loads(content.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise TransientError(f"response body is not valid UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise TransientError(f"response body is not valid JSON ({exc.msg} at char {exc.pos})") from None


ClientT = TypeVar("ClientT")


class PerLoopClient(Generic[ClientT]):
    """One HTTP client per running event loop, created on first use and closed by `aclose()`.

    Why: an httpx (or openai) client's connection pool belongs to the event loop that first used it, and
    the CLI, the pytest plugin and notebooks may run several loops in one process; reusing a client from
    a closed loop fails with "Event loop is closed". Keeping this in one place means every HTTP adapter
    gets it right the same way.
    """

    def __init__(self, factory: Callable[[], ClientT], close: Callable[[ClientT], Awaitable[Any]]) -> None:
        self._factory = factory
        self._close = close
        self._client: ClientT | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> ClientT:
        loop = asyncio.get_running_loop()
        if self._client is None or self._loop is not loop:
            self._client = self._factory()
            self._loop = loop
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            with contextlib.suppress(RuntimeError):  # its event loop is closed: nothing left to release
                await self._close(client)
