"""What keeps `harness view` a local tool: headers, the token of a non-loopback host, host and CSRF checks.

- Every response carries a strict Content-Security-Policy: scripts only from the server's own files (no
  inline script, no eval), no plugin, no other origin; replies are untrusted text and the pages put them in
  the DOM with textContent, so a reply holding `<script>` shows as text and could not run if it got in.
  report.html (inline CSS, base64 figures, no script) is served inside a sandboxed frame with a policy of
  its own that forbids every script.
- On 127.0.0.1 (the default) only a request whose Host header names this machine is served: a web page
  elsewhere cannot reach the server through DNS rebinding. Any other --host needs a token: the CLI prints
  a URL carrying it once (or takes it from $HARNESS_VIEW_TOKEN); a browser that opens the URL gets it as an
  HttpOnly, SameSite=Strict cookie, and a script sends `Authorization: Bearer TOKEN`.
- A request that changes something (a review label, a rescore) must be a POST carrying the header
  `X-Harness-View: 1`, which a cross-origin form or image cannot send, and an Origin, when it has one, of
  this server.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from http.cookies import SimpleCookie
from urllib.parse import parse_qs, quote, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_ENV = "HARNESS_VIEW_TOKEN"
COOKIE = "harness_view_token"
CSRF_HEADER = b"x-harness-view"
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            "connect-src 'self'; font-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; "
            "frame-ancestors 'none'")
#: report.html: its own inline CSS and base64 figures, nothing else; shown only in a frame of our pages.
REPORT_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox; frame-ancestors 'self'"
HEADERS = ((b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer"),
           (b"cross-origin-opener-policy", b"same-origin"), (b"cross-origin-resource-policy", b"same-origin"))


def new_token() -> str:
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Guard:
    """ASGI middleware doing everything in the module docstring; `token` None means loopback, no token."""

    def __init__(self, app: ASGIApp, *, token: str | None) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.lower(): v for k, v in scope.get("headers") or []}
        problem = self._refuse(scope, headers)
        if problem is not None:
            await _plain(send, *problem)
            return
        if self.token is not None:
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            if query.get("token") and scope["method"] == "GET" and not scope["path"].startswith("/api/"):
                # the printed URL: keep the token as a cookie and drop it from the address bar and history
                rest = {k: v for k, v in query.items() if k != "token"}
                location = quote(scope["path"]) + (("?" + urlencode(rest, doseq=True)) if rest else "")
                await _redirect(send, location, self.token)
                return
        await self.app(scope, receive, _with_headers(send, scope["path"]))

    def _refuse(self, scope: Scope, headers: dict[bytes, bytes]) -> tuple[int, str] | None:
        host = headers.get(b"host", b"").decode("latin-1").lower()
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        if self.token is None and not is_loopback(name):
            return 403, ("This server answers only requests addressed to this machine (127.0.0.1 or "
                         "localhost).")
        if self.token is not None and not self._has_token(scope, headers):
            return 401, ("This server needs its token: open the URL `harness view` printed, or send the "
                         "header 'Authorization: Bearer TOKEN'.")
        if scope["method"] not in ("GET", "HEAD"):
            if headers.get(CSRF_HEADER) != b"1":
                return 403, ("Changes must come from the viewer's own pages (the X-Harness-View header is "
                             "missing).")
            origin = headers.get(b"origin")
            if origin is not None and origin.decode("latin-1").lower().split("://", 1)[-1] != host:
                return 403, "A request from another site is refused."
        return None

    def _has_token(self, scope: Scope, headers: dict[bytes, bytes]) -> bool:
        assert self.token is not None
        given: list[str] = []
        auth = headers.get(b"authorization", b"").decode("latin-1")
        if auth.lower().startswith("bearer "):
            given.append(auth[7:].strip())
        cookie = SimpleCookie()
        try:
            cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
        except Exception:  # noqa: BLE001 - a malformed Cookie header is no token, never a crash
            cookie = SimpleCookie()
        if COOKIE in cookie:
            given.append(cookie[COOKIE].value)
        if scope["method"] == "GET":
            given += parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token", [])
        return any(hmac.compare_digest(g.encode(), self.token.encode()) for g in given)


def _with_headers(send: Send, path: str) -> Callable[[Message], Awaitable[None]]:
    csp = REPORT_CSP if path.endswith("/report.html") else PAGE_CSP

    async def wrapped(message: Message) -> None:
        if message["type"] == "http.response.start":
            names = {k.lower() for k, _ in message.get("headers", [])}
            extra = [(b"content-security-policy", csp.encode())] + [h for h in HEADERS if h[0] not in names]
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)
    return wrapped


async def _plain(send: Send, status: int, text: str) -> None:
    body = text.encode("utf-8")
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(body)).encode()),
                            (b"content-security-policy", PAGE_CSP.encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, location: str, token: str) -> None:
    cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
    await send({"type": "http.response.start", "status": 303,
                "headers": [(b"location", location.encode("latin-1", "replace")),
                            (b"set-cookie", cookie.encode()), (b"content-length", b"0"),
                            (b"content-security-policy", PAGE_CSP.encode()), *HEADERS]})
    await send({"type": "http.response.body", "body": b""})
