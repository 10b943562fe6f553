"""Failure classification shared by the HTTP-based adapters (openai, tencent, http).

One table decides which HTTP statuses are worth retrying, and one parser reads the server's
`Retry-After` hint, so every adapter behaves the same under faults and the run engine can treat them
alike. Reasons built here are one line and never include request headers (where keys live).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import json
import re
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
