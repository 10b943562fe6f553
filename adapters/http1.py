"""A small HTTP/1.1 keep-alive client for plain-http servers: one POST, one complete answer, as little Python
per request as a client can do.

Why not aiohttp for these: at c=256 against a server that answers at once, aiohttp's request path alone (its
ClientRequest and ClientResponse objects, header multidicts, stream readers, timers) costs 0.28 ms of CPU per
request, so a whole core reaches 3,600 requests/s before the harness has done anything (benchmarks/saturation.py,
issue 38). The servers that can answer that fast are local: vLLM, llama.cpp's server, a proxy on the same
machine, all plain http. For them this client writes one prebuilt request and lets httptools (the parser under
uvicorn) read the answer, chunked or sized, on an asyncio Protocol: no stream objects, no timers.

What it does not do, on purpose: TLS, proxies, redirects, cookies, HTTP/2. adapters.openai_wire uses aiohttp for
every https target and whenever the environment names a proxy, so this client only ever talks plain http to the
host the target names.

The failure contract (adapters.base): every failure is an OSError the wire client classifies through
adapters.transport.connection_failure: could not connect (the OS's own error), the server closed the connection
without a reply (ServerClosedConnection), or before the reply was complete (ReplyCutShort), or sent bytes
that are not HTTP (BadHttpReply). A connection that fails, or whose request is cancelled (the adapter's
deadline), is closed, never handed to the next request.
"""

from __future__ import annotations

import asyncio
import collections
import zlib
from dataclasses import dataclass
from typing import Any

try:
    import httptools
except ImportError:  # pragma: no cover - httptools is a dependency; without it the wire client uses aiohttp
    httptools = None  # type: ignore[assignment]

AVAILABLE = httptools is not None


class ServerClosedConnection(ConnectionError):
    """The server closed the connection before any of its answer arrived."""


class ReplyCutShort(ConnectionError):
    """The server closed the connection in the middle of its answer (a body shorter than its length)."""


class BadHttpReply(ConnectionError):
    """The server answered with bytes that are not an HTTP/1.1 response."""


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    """One complete HTTP answer: status, headers (names lower-cased; the last of a repeated name), decoded body."""

    status: int
    headers: dict[str, str]
    body: bytes


class _Connection(asyncio.Protocol):
    """One keep-alive connection carrying one request at a time; httptools calls the on_* methods."""

    __slots__ = ("_body", "_complete", "_headers", "_parser", "_waiter", "closed", "received", "transport")

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self._parser = httptools.HttpResponseParser(self)
        self._waiter: asyncio.Future[HttpAnswer] | None = None
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []
        self._complete = False
        self.closed = False
        self.received = False  # any byte of the current answer arrived

    # -- asyncio.Protocol -----------------------------------------------------------------------------
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        if self._waiter is None:  # bytes nobody asked for: the connection's state is unknown, so it ends here
            self.close()
            return
        self.received = True
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserError as exc:
            self._fail(BadHttpReply(f"the server's answer is not HTTP/1.1 ({exc})"))
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._waiter is None or self._waiter.done():
            return
        if self._complete:  # headers in, no length, no chunks: the body runs to the close (RFC 9112 6.3)
            self._finish()
        elif self.received:
            self._fail(ReplyCutShort("the connection closed in the middle of the answer"))
        else:
            self._fail(ServerClosedConnection("the server closed the connection without sending an answer"))

    # -- httptools callbacks --------------------------------------------------------------------------
    def on_message_begin(self) -> None:
        if self._waiter is None:  # a second answer in the bytes of the first: nobody asked for it
            self.close()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._headers[name.decode("latin-1").lower()] = value.decode("latin-1")

    def on_headers_complete(self) -> None:
        headers = self._headers
        # neither a length nor chunks: the body is whatever comes before the close
        self._complete = "content-length" not in headers and "chunked" not in headers.get("transfer-encoding", "")

    def on_body(self, body: bytes) -> None:
        self._body.append(body)

    def on_message_complete(self) -> None:
        if 100 <= self._parser.get_status_code() < 200:  # an interim answer (100 Continue): the real one follows
            self._headers, self._body, self._complete = {}, [], False
            return
        self._finish()

    # -- requests -------------------------------------------------------------------------------------
    def send(self, request: bytes) -> asyncio.Future[HttpAnswer]:
        """Write one whole request; the future is its answer (or the connection's failure)."""
        assert self.transport is not None
        self._headers, self._body, self._complete, self.received = {}, [], False, False
        self._waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self._waiter

    @property
    def reusable(self) -> bool:
        return not self.closed and self.transport is not None and not self.transport.is_closing()

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()

    def _finish(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is None or waiter.done():
            return
        try:
            body = _decoded(b"".join(self._body), self._headers.get("content-encoding", ""))
        except zlib.error as exc:
            waiter.set_exception(BadHttpReply(f"the answer's compressed body does not decompress ({exc})"))
            self.close()
            return
        waiter.set_result(HttpAnswer(self._parser.get_status_code(), self._headers, body))
        self._headers, self._body = {}, []  # the answer owns those now
        if not self._parser.should_keep_alive():
            self.close()

    def _fail(self, exc: Exception) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_exception(exc)


def _decoded(body: bytes, encoding: str) -> bytes:
    """The body without its content coding: gzip and deflate, the two this client asks for."""
    encoding = encoding.strip().lower()
    if not encoding or encoding == "identity" or not body:
        return body
    if encoding in ("gzip", "x-gzip"):
        return zlib.decompress(body, 16 + zlib.MAX_WBITS)
    if encoding == "deflate":  # zlib-wrapped as the RFC says, or raw deflate as some servers send
        try:
            return zlib.decompress(body)
        except zlib.error:
            return zlib.decompress(body, -zlib.MAX_WBITS)
    raise zlib.error(f"unknown content coding {encoding!r}")


class Http1Client:
    """Keep-alive connections to one host and port; `post` takes an idle one or opens a new one.

    No pool limit: the caller (the run engine's slots) bounds the requests in flight, as with aiohttp's
    TCPConnector(limit=0)."""

    def __init__(self, host: str, port: int, headers: dict[str, str], connect_timeout_s: float) -> None:
        self.host, self.port = host, port
        self.connect_timeout_s = connect_timeout_s
        name = f"[{host}]" if ":" in host else host  # an IPv6 literal keeps its brackets in Host
        host_header = name if port == 80 else f"{name}:{port}"
        lines = [f"Host: {host_header}", *(f"{k}: {v}" for k, v in headers.items()),
                 "Accept-Encoding: gzip, deflate"]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: collections.deque[_Connection] = collections.deque()
        self._open: set[_Connection] = set()

    def request(self, target: str, payload: bytes) -> bytes:
        """The bytes of one POST of `payload` (JSON) to `target`, the path and query on this host."""
        return b"".join((b"POST ", target.encode("latin-1"), b" HTTP/1.1\r\n", self._head,
                         str(len(payload)).encode(), b"\r\n\r\n", payload))

    async def post(self, target: str, payload: bytes) -> HttpAnswer:
        """POST `payload` to `target` and return the whole answer; an OSError when the exchange fails.

        A connection reused from the pool that the server had closed before reading the request (its
        keep-alive ran out while the request was on its way) is retried once on a fresh connection: nothing
        reached the server, so nothing is asked twice."""
        request = self.request(target, payload)
        reused = True
        connection = self._take_idle()
        if connection is None:
            connection, reused = await self._connect(), False
        try:
            return await self._exchange(connection, request)
        except ServerClosedConnection:
            if not reused:
                raise
        return await self._exchange(await self._connect(), request)

    async def _exchange(self, connection: _Connection, request: bytes) -> HttpAnswer:
        done = False
        try:
            answer = await connection.send(request)
            done = True
            return answer
        finally:
            # a failure, a cancellation (the deadline) or an answer that ends the connection: never reused
            if done and connection.reusable:
                self._idle.append(connection)
            else:
                connection.close()
                self._open.discard(connection)

    def _take_idle(self) -> _Connection | None:
        idle = self._idle
        while idle:
            connection = idle.pop()  # the most recently used: the least likely to have timed out
            if connection.reusable:
                return connection
            self._open.discard(connection)
        return None

    async def _connect(self) -> _Connection:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.connect_timeout_s):
            _, connection = await loop.create_connection(_Connection, self.host, self.port)
        self._open.add(connection)
        return connection

    async def close(self) -> None:
        """Close every connection, idle or busy."""
        for connection in list(self._open):
            connection.close()
        self._open.clear()
        self._idle.clear()
        await asyncio.sleep(0)  # let the transports' close callbacks run on this loop


def client_for(url: Any, headers: dict[str, str], connect_timeout_s: float) -> Http1Client:
    """A client for the host and port of a yarl URL (plain http only: the caller checks the scheme)."""
    return Http1Client(url.host or "localhost", url.port or 80, headers, connect_timeout_s)
