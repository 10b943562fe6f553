"""A real HTTP server on 127.0.0.1 for adapter tests: scripted replies, every request recorded.

Each test registers a handler function for a path prefix ("/r429/..."); the handler gets the parsed
request and returns (status, headers, body bytes) or a special action ("sleep", "reset"). This exercises
the adapters' real HTTP stacks (openai SDK, httpx) end to end; only the server's answers are scripted.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})
    sleep_s: float = 0.0  # wait before answering (timeouts)
    reset: bool = False  # close the socket without any response (dropped connection)


Handler = Callable[[Request], Reply]


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the default backlog (5) resets connections under concurrent tests


class ScriptedServer:
    def __init__(self) -> None:
        self.routes: dict[str, Handler] = {}
        self.requests: list[Request] = []
        self.connections = 0  # TCP connections accepted (a keep-alive client opens one for many requests)
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                return None

            def setup(self) -> None:
                server.connections += 1
                super().setup()

            def _serve(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                request = Request(self.command, self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                server.requests.append(request)
                prefix = "/" + self.path.lstrip("/").split("/", 1)[0]
                handler = server.routes.get(prefix)
                reply = handler(request) if handler else Reply(404, b'{"error": {"message": "no route"}}')
                if reply.sleep_s:
                    time.sleep(reply.sleep_s)
                if reply.reset:
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                    self.connection.close()
                    self.close_connection = True
                    return
                self.send_response(reply.status)
                for key, value in reply.headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(reply.body)))
                self.end_headers()
                with suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(reply.body)

            do_POST = _serve  # noqa: N815 - http.server's naming
            do_GET = _serve  # noqa: N815

        self.httpd = _Server(("127.0.0.1", 0), _Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"

    def route(self, prefix: str, handler: Handler) -> str:
        """Register a handler; returns the base URL for it (e.g. for an SDK base_url)."""
        self.routes[prefix] = handler
        return self.base + prefix


@contextmanager
def scripted_server() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    thread = threading.Thread(target=server.httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
