"""harness.adapters.http1 against a real TCP server on 127.0.0.1 whose bytes are scripted per request: keep-alive,
chunked and compressed bodies, bodies that run to the close, and every way a connection can fail."""

from __future__ import annotations

import asyncio
import gzip
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

import pytest

from harness.adapters import http1
from harness.adapters.transport import connection_failure

pytestmark = pytest.mark.skipif(not http1.AVAILABLE, reason="httptools is not installed")

#: what the server does for the n-th request (0-based, over all connections): bytes to send, then close or not
Script = Callable[[int], tuple[bytes, bool]]


def answer(body: bytes, *headers: str, status: str = "200 OK") -> bytes:
    head = "".join(f"{h}\r\n" for h in headers)
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        head += f"Content-Length: {len(body)}\r\n"
    return f"HTTP/1.1 {status}\r\n{head}\r\n".encode() + body


@dataclass
class RawServer:
    script: Script
    connections: int = 0
    requests: list[bytes] = field(default_factory=list)
    sock: socket.socket = field(default_factory=socket.socket)
    port: int = 0

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._connection, args=(conn,), daemon=True).start()

    def _connection(self, conn: socket.socket) -> None:
        buffer = b""
        with conn, suppress(OSError):
            while True:
                while b"\r\n\r\n" not in buffer:
                    data = conn.recv(65536)
                    if not data:
                        return
                    buffer += data
                head, _, rest = buffer.partition(b"\r\n\r\n")
                length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                                  if line.lower().startswith(b"content-length")))
                while len(rest) < length:
                    rest += conn.recv(65536)
                self.requests.append(head + b"\r\n\r\n" + rest[:length])
                buffer = rest[length:]
                data, close = self.script(len(self.requests) - 1)
                conn.sendall(data)
                if close:
                    conn.shutdown(socket.SHUT_RDWR)
                    return


@contextmanager
def raw_server(script: Script) -> Iterator[RawServer]:
    server = RawServer(script)
    server.sock.bind(("127.0.0.1", 0))
    server.port = server.sock.getsockname()[1]
    server.sock.listen(64)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        with suppress(OSError):
            server.sock.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread, which then returns
        server.sock.close()
        thread.join(5)


def post_all(server: RawServer, payloads: list[bytes]) -> list[http1.HttpAnswer | BaseException]:
    """Each payload POSTed in turn on one client; an exception in place of an answer that failed."""

    async def go() -> list[http1.HttpAnswer | BaseException]:
        client = http1.Http1Client("127.0.0.1", server.port, {"Authorization": "Bearer k"}, 5.0)
        out: list[http1.HttpAnswer | BaseException] = []
        for payload in payloads:
            try:
                out.append(await client.post("/v1/chat/completions", payload))
            except OSError as exc:
                out.append(exc)
        await client.close()
        return out

    return asyncio.run(go())


def test_keep_alive_carries_every_request_on_one_connection_with_exact_bytes() -> None:
    with raw_server(lambda n: (answer(b'{"n": %d}' % n, "Content-Type: application/json"), False)) as server:
        answers = post_all(server, [b'{"a": 1}', b'{"bb": 22}', b"{}"])
    assert [a.body for a in answers] == [b'{"n": 0}', b'{"n": 1}', b'{"n": 2}']  # type: ignore[union-attr]
    assert answers[0].headers["content-type"] == "application/json"  # type: ignore[union-attr]
    assert server.connections == 1
    assert server.requests[1] == (f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\n"
                                  "Authorization: Bearer k\r\nAccept-Encoding: gzip, deflate\r\n"
                                  'Content-Length: 10\r\n\r\n{"bb": 22}').encode()


def test_chunked_gzip_and_a_body_that_runs_to_the_close_are_read_whole() -> None:
    packed = gzip.compress(b'{"text": "' + b"x" * 5000 + b'"}')
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(packed[i:i + 700]), packed[i:i + 700])
                       for i in range(0, len(packed), 700)) + b"0\r\n\r\n"
    replies = [(answer(chunked, "Transfer-Encoding: chunked", "Content-Encoding: gzip"), False),
               (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n" + b'{"to": "the close"}', True)]
    with raw_server(lambda n: replies[n]) as server:
        first, second = post_all(server, [b"{}", b"{}"])
    assert first.body == b'{"text": "' + b"x" * 5000 + b'"}'  # type: ignore[union-attr]
    assert second.body == b'{"to": "the close"}'  # type: ignore[union-attr]


def test_an_error_status_is_an_answer_with_its_headers() -> None:
    with raw_server(lambda n: (answer(b'{"error": {"message": "slow down"}}', "Retry-After: 7",
                                      status="429 Too Many Requests"), False)) as server:
        (got,) = post_all(server, [b"{}"])
    assert isinstance(got, http1.HttpAnswer)
    assert (got.status, got.headers["retry-after"]) == (429, "7")


def test_connection_close_is_honoured_and_the_next_request_opens_a_new_connection() -> None:
    with raw_server(lambda n: (answer(b"{}", "Connection: close"), True)) as server:
        answers = post_all(server, [b"{}", b"{}"])
    assert all(isinstance(a, http1.HttpAnswer) for a in answers)
    assert server.connections == 2


def test_a_body_cut_short_is_said_so() -> None:
    with raw_server(lambda n: (b"HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n" + b'{"partial', True)) as server:
        (got,) = post_all(server, [b"{}"])
    assert isinstance(got, http1.ReplyCutShort)
    assert connection_failure(got).reason.startswith(
        "connection failed: the server closed the connection before the reply was complete (ReplyCutShort: ")


def test_a_fresh_connection_closed_without_an_answer_fails_once_and_is_not_retried() -> None:
    with raw_server(lambda n: (b"", True)) as server:
        (got,) = post_all(server, [b"{}"])
    assert isinstance(got, http1.ServerClosedConnection)
    assert connection_failure(got).reason.startswith(
        "connection failed: the server closed the connection without a reply (ServerClosedConnection: ")
    assert len(server.requests) == 1


def test_a_kept_connection_the_server_dropped_is_retried_once_on_a_new_one() -> None:
    """The keep-alive race: the server closes a kept connection as the next request reaches it."""
    replies = [(answer(b'{"first": 1}'), False), (b"", True), (answer(b'{"again": 2}'), False)]
    with raw_server(lambda n: replies[n]) as server:
        first, second = post_all(server, [b"{}", b"{}"])
    assert second.body == b'{"again": 2}'  # type: ignore[union-attr]
    assert server.connections == 2


def test_bytes_that_are_not_http_fail_the_request_and_the_connection() -> None:
    with raw_server(lambda n: (b"SMTP ready\r\n\r\n", False)) as server:
        (got,) = post_all(server, [b"{}"])
    assert isinstance(got, http1.BadHttpReply)
    assert "not HTTP/1.1" in str(got)


def test_nobody_listening_is_the_operating_systems_refusal() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def go() -> BaseException:
        client = http1.Http1Client("127.0.0.1", port, {}, 5.0)
        with pytest.raises(OSError) as info:
            await client.post("/", b"{}")
        return info.value

    refused = asyncio.run(go())
    assert connection_failure(refused).reason.startswith("connection failed: could not connect to the server")


def test_a_cancelled_request_closes_its_connection_and_is_never_reused() -> None:
    """The adapter's deadline cancels a request whose answer has not come: that connection may still carry
    the late answer, so the next request must not read it as its own."""
    gate = threading.Event()

    def script(n: int) -> tuple[bytes, bool]:
        if n == 0:
            gate.wait(5)
            return answer(b'{"late": 0}'), False
        return answer(b'{"mine": %d}' % n), False

    async def go(server: RawServer) -> bytes:
        client = http1.Http1Client("127.0.0.1", server.port, {}, 5.0)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await client.post("/", b"{}")
        gate.set()
        got = await client.post("/", b"{}")
        await client.close()
        return got.body

    with raw_server(script) as server:
        assert asyncio.run(go(server)) == b'{"mine": 1}'
    assert server.connections == 2


def test_an_interim_answer_is_skipped_and_unasked_bytes_end_the_connection() -> None:
    replies = [(b"HTTP/1.1 100 Continue\r\n\r\n" + answer(b'{"real": 1}'), False),
               (answer(b'{"second": 2}') + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}", False),
               (answer(b'{"third": 3}'), False)]
    with raw_server(lambda n: replies[n]) as server:
        answers = post_all(server, [b"{}", b"{}", b"{}"])
    assert [a.body for a in answers] == [b'{"real": 1}', b'{"second": 2}', b'{"third": 3}']  # type: ignore[union-attr]
    assert server.connections == 2  # the answer nobody asked for closed the first connection


def test_a_redirect_is_a_permanent_error_that_names_the_new_address() -> None:
    """A POST is never re-sent to another address behind the user's back: the reason says where to point."""
    from harness.adapters.base import PermanentError
    from harness.adapters.openai_wire import WireClient

    with raw_server(lambda n: (answer(b"", "Location: https://api.example.com/v1/chat/completions",
                                      status="308 Permanent Redirect"), False)) as server:
        async def go() -> None:
            client = WireClient(f"http://127.0.0.1:{server.port}/v1", "k", 5.0)
            try:
                await client.post_json("/chat/completions", {"model": "m"})
            finally:
                await client.close()

        with pytest.raises(PermanentError, match=r"^HTTP 308: the server redirects to https://api\.example\.com/v1/"
                                                 r"chat/completions; set the target's base_url"):
            asyncio.run(go())
