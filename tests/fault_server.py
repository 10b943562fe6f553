"""A real OpenAI-compatible chat server on 127.0.0.1 that misbehaves on a seeded schedule.

Used by the fault, kill -9 and secrets tests (and runnable by hand: `python tests/fault_server.py`).
It speaks POST /v1/chat/completions and GET /v1/models over real sockets (stdlib ThreadingHTTPServer,
HTTP/1.1 keep-alive), so the openai SDK, httpx and the run engine are exercised exactly as against a
provider. Which fault a request gets is decided by hashing (seed, prompt, how many times this prompt was
asked before), so a schedule is reproducible whatever the order in which concurrent requests arrive, and
a retry of the same prompt draws a fresh outcome, as with a flaky provider.

Faults: 429 with Retry-After, 500, 503, hanging past the client's timeout, connection reset (TCP RST),
malformed JSON, empty content, a 1 MB reply, invalid UTF-8 (and, opt-in, a body without choices, a body cut
short of its Content-Length, a body trickled a byte at a time past any total timeout, a 401 that echoes the key it
received, as careless providers do, and 400, 429 and 500 bodies that echo a *shortened* key:
`sk-SENTI****Tz9`, `sk-...4Tz9`, a cut-off start; `echoed_forms(key)` lists them). `healed = True` (or
POST /_control/heal) turns every fault off. `requests_by_prompt` counts every request per prompt (the
kill -9 test uses it to prove nothing recorded is asked again).

`script` maps a prompt to a fixed outcome, whatever the schedule: (200, text) answers with `text`
verbatim (markup, control characters, lone surrogates sent as JSON escapes), (status, message) answers
with that HTTP error whose body's message is `message`. The untrusted-text tests use it.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import struct
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

FAULT_429 = "429"
FAULT_500 = "500"
FAULT_503 = "503"
FAULT_HANG = "hang"
FAULT_RESET = "reset"
FAULT_MALFORMED = "malformed_json"
FAULT_EMPTY = "empty_content"
FAULT_HUGE = "huge_1mb"
FAULT_BAD_UTF8 = "invalid_utf8"
FAULT_AUTH = "401"  # opt-in (not in ALL_FAULTS): a 401 whose message repeats the key it was sent
# opt-in: error bodies that repeat a shortened form of the key they were sent (see echoed_forms)
FAULT_ECHO_400 = "400_echo"
FAULT_ECHO_429 = "429_echo"
FAULT_ECHO_500 = "500_echo"
# opt-in: a 200 whose body has no choices; a body cut short of its Content-Length, then the connection closed;
# a body sent a byte every `trickle_s` seconds (each read within any per-read timeout, the whole far beyond it)
FAULT_NO_CHOICES = "no_choices"
FAULT_TRUNCATED = "truncated"
FAULT_TRICKLE = "trickle"
ALL_FAULTS = (FAULT_429, FAULT_500, FAULT_503, FAULT_HANG, FAULT_RESET, FAULT_MALFORMED, FAULT_EMPTY,
              FAULT_HUGE, FAULT_BAD_UTF8)
# Relative weights: the 1 MB reply is rare (it is a valid, if silly, answer that lands in the transcript).
DEFAULT_WEIGHTS = {FAULT_429: 3, FAULT_500: 3, FAULT_503: 2, FAULT_HANG: 1, FAULT_RESET: 2,
                   FAULT_MALFORMED: 2, FAULT_EMPTY: 2, FAULT_HUGE: 0.3, FAULT_BAD_UTF8: 2}
HUGE_SIZE = 1 << 20


def echoed_forms(key: str) -> dict[str, str]:
    """The shortened key each echo fault quotes, by fault: what a provider's body may reveal of a key."""
    return {FAULT_ECHO_400: f"{key[:8]}****{key[-4:]}", FAULT_ECHO_429: f"sk-...{key[-4:]}",
            FAULT_ECHO_500: f"{key[:16]}..."}


def _echo_body(fault: str, key: str) -> tuple[int, str]:
    shown = echoed_forms(key)[fault]
    if fault == FAULT_ECHO_400:
        return 400, f"Incorrect API key provided: {shown}. You can find your API key in your account settings."
    if fault == FAULT_ECHO_429:
        return 429, f"Rate limit reached for key {shown} on requests per min. Please try again in 1s."
    return 500, f"Upstream rejected the credential starting {shown} (request req_7)."


def answer_for(prompt: str) -> str:
    """The healthy answer: deterministic, so tests can check that the reply belongs to its probe."""
    return f"Answer to: {prompt}"


def _completion(content: str, model: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fault", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": max(1, len(content) // 4), "total_tokens": 10},
    }


class FaultServer:
    """Start with `with FaultServer(...) as server:`; `server.base_url` ends in /v1."""

    def __init__(self, *, seed: int = 0, fault_rate: float = 0.3, weights: dict[str, float] | None = None,
                 hang_s: float = 2.0, delay_s: float = 0.0, retry_after: str = "1",
                 api_key: str | None = None, echo_key_in_401: bool = True, healed: bool = False,
                 script: dict[str, tuple[int, str]] | None = None, trickle_s: float = 0.2) -> None:
        self.seed = seed
        self.fault_rate = fault_rate
        self.weights = dict(weights or DEFAULT_WEIGHTS)
        self.hang_s = hang_s
        self.delay_s = delay_s
        self.retry_after = retry_after
        self.api_key = api_key  # when set, a request without "Bearer <api_key>" gets a 401
        self.echo_key_in_401 = echo_key_in_401  # like careless providers: the 401 body repeats the key
        self.healed = healed
        self.script = dict(script or {})
        self.trickle_s = trickle_s
        self.requests_by_prompt: Counter[str] = Counter()
        self.faults_served: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- schedule --------------------------------------------------------------------------------
    def decide(self, prompt: str, nth: int) -> str | None:
        """The fault for the nth request (0-based) with this prompt, or None for a healthy answer."""
        if self.healed or self.fault_rate <= 0:
            return None
        rng = random.Random(f"{self.seed}|{nth}|{prompt}")
        if rng.random() >= self.fault_rate:
            return None
        kinds = [k for k, w in self.weights.items() if w > 0]
        return rng.choices(kinds, weights=[self.weights[k] for k in kinds])[0]

    def heal(self) -> None:
        self.healed = True

    @property
    def total_requests(self) -> int:
        return sum(self.requests_by_prompt.values())

    # -- lifecycle -------------------------------------------------------------------------------
    def start(self, port: int = 0) -> str:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = _QuietServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self._httpd.request_queue_size = 256
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()
        return self.base_url

    @property
    def port(self) -> int:
        assert self._httpd is not None
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FaultServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up mid-reply (timeouts, kill -9) is expected here, not worth a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: FaultServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return None  # quiet: thousands of requests per test

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, obj: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(obj).encode(), headers)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/").endswith("/models"):
            self._json(200, {"object": "list", "data": [{"id": "fault-model", "object": "model"}]})
        else:
            self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path.startswith("/_control/heal"):
            owner.heal()
            self._json(200, {"healed": True})
            return
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._json(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
            return
        try:
            body = json.loads(raw)
            prompt = str(body["messages"][-1]["content"])
            model = str(body.get("model", "fault-model"))
        except (ValueError, KeyError, IndexError, TypeError):
            self._json(400, {"error": {"message": "bad request body", "type": "invalid_request_error"}})
            return
        with owner._lock:
            nth = owner.requests_by_prompt[prompt]
            owner.requests_by_prompt[prompt] += 1
        if owner.api_key is not None:
            auth = self.headers.get("Authorization", "")
            if auth != f"Bearer {owner.api_key}":
                shown = auth.removeprefix("Bearer ") if owner.echo_key_in_401 else "***"
                self._json(401, {"error": {"message": f"Incorrect API key provided: {shown}.",
                                           "type": "invalid_request_error", "code": "invalid_api_key"}})
                return
        if prompt in owner.script:
            status, text = owner.script[prompt]
            if status == 200:
                self._json(200, _completion(text, model))
            else:
                self._json(status, {"error": {"message": text, "type": "scripted"}}, {"Retry-After": "0"})
            return
        fault = owner.decide(prompt, nth)
        if fault is not None:
            with owner._lock:
                owner.faults_served[fault] += 1
        if owner.delay_s:
            time.sleep(owner.delay_s)
        self._serve(fault, prompt, model)

    def _serve(self, fault: str | None, prompt: str, model: str) -> None:
        owner = self.owner
        if fault is None:
            self._json(200, _completion(answer_for(prompt), model))
        elif fault == FAULT_AUTH:
            shown = self.headers.get("Authorization", "").removeprefix("Bearer ")
            self._json(401, {"error": {"message": f"Incorrect API key provided: {shown}.",
                                       "type": "invalid_request_error", "code": "invalid_api_key"}})
        elif fault in (FAULT_ECHO_400, FAULT_ECHO_429, FAULT_ECHO_500):
            status, message = _echo_body(fault, self.headers.get("Authorization", "").removeprefix("Bearer "))
            self._json(status, {"error": {"message": message, "type": "invalid_request_error"}},
                       {"Retry-After": "0"} if status == 429 else None)
        elif fault == FAULT_429:
            self._json(429, {"error": {"message": "Rate limit reached, slow down.", "type": "rate_limit_error"}},
                       {"Retry-After": owner.retry_after})
        elif fault in (FAULT_500, FAULT_503):
            self._json(int(fault), {"error": {"message": f"upstream failure {fault}", "type": "server_error"}})
        elif fault == FAULT_HANG:
            time.sleep(owner.hang_s)
            with contextlib.suppress(OSError):  # the client gave up long ago
                self._json(200, _completion(answer_for(prompt), model))
        elif fault == FAULT_RESET:
            # SO_LINGER with a zero timeout makes close() send a TCP RST instead of a FIN.
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
            self.connection.close()
        elif fault == FAULT_MALFORMED:
            self._send(200, b'{"id": "chatcmpl-fault", "choices": [{"index": 0, "message": {"role": "assis')
        elif fault == FAULT_EMPTY:
            self._json(200, _completion("", model))
        elif fault == FAULT_HUGE:
            filler = ("lorem ipsum " * (HUGE_SIZE // 12 + 1))[:HUGE_SIZE]
            self._json(200, _completion(filler, model))
        elif fault == FAULT_NO_CHOICES:
            self._json(200, {"id": "chatcmpl-fault", "object": "chat.completion", "model": model, "choices": []})
        elif fault == FAULT_TRUNCATED:
            body = json.dumps(_completion(answer_for(prompt), model)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body) + 100))
            self.end_headers()
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif fault == FAULT_TRICKLE:
            body = json.dumps(_completion(answer_for(prompt), model)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(OSError):  # the client's deadline passed: it hung up
                for i in range(len(body)):
                    self.wfile.write(body[i:i + 1])
                    self.wfile.flush()
                    time.sleep(owner.trickle_s)
        elif fault == FAULT_BAD_UTF8:
            good = json.dumps(_completion("XXXX", model)).encode()
            self._send(200, good.replace(b"XXXX", b"caf\xc3 \xff\xfe broken"))
        else:  # pragma: no cover - a typo in weights
            raise ValueError(fault)


if __name__ == "__main__":  # pragma: no cover - manual use
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8799)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fault-rate", type=float, default=0.3)
    parser.add_argument("--healed", action="store_true")
    args = parser.parse_args()
    srv = FaultServer(seed=args.seed, fault_rate=args.fault_rate, healed=args.healed)
    print(srv.start(args.port), file=sys.stderr)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        srv.stop()
