"""The openai adapter: a real answer from a real llama.cpp server, and every failure class mapped right.

The failure tests run the adapter against a real local HTTP server whose replies are scripted (429 with
Retry-After, 5xx, 401 echoing the key, malformed bodies, hangs, resets), once over each HTTP stack the
adapter offers (its own wire client over aiohttp, the default, and the real SDK over httpx2): both must map
every fault the same way.
"""

from __future__ import annotations

import asyncio
import json
import time
from email.utils import formatdate

import pytest
from adapter_servers import Reply, scripted_server

from harness.adapters.base import Message, PermanentError, TransientError
from harness.adapters.openai_chat import HTTP_CLIENT_AIOHTTP, HTTP_CLIENT_HTTP1, HTTP_CLIENT_HTTPX, OpenAIChatAdapter
from harness.adapters.registry import create_adapter, load_targets
from harness.core.errors import ConfigError

SENTINEL = "sk-SENTINEL-7f3a9c2e1b-do-not-leak"


def completion_body(content: str | None = "Hello there.", finish: str = "stop") -> bytes:
    return json.dumps({
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8},
    }).encode()


def adapter(base_url: str, **settings) -> OpenAIChatAdapter:
    return OpenAIChatAdapter("t", {"model": "m", "base_url": base_url, "timeout_s": 5, **settings},
                             secrets={"api_key": SENTINEL})


@pytest.fixture(params=[HTTP_CLIENT_HTTP1, HTTP_CLIENT_AIOHTTP, HTTP_CLIENT_HTTPX])
def stack(request: pytest.FixtureRequest) -> str:
    """The HTTP stack: harness.adapters.http1 (the default for plain http), aiohttp, or the SDK over httpx2; every
    error-mapping test runs over each."""
    return request.param


def ask(a: OpenAIChatAdapter, prompt: str = "Hi?", **kw):
    async def go():
        try:
            return await a.ask(prompt, **kw)
        finally:
            await a.aclose()

    return asyncio.run(go())


# --------------------------------------------------------------------------------- real model


@pytest.mark.slow
def test_real_llama_server_answers(smollm2_server: str) -> None:
    a = OpenAIChatAdapter("smol", {"model": "local", "base_url": smollm2_server, "max_tokens": 24,
                                   "system_prompt": "You are a helpful assistant."})
    completion = ask(a, "What is the capital of France? Answer in one word.")
    assert completion.text.strip()
    assert completion.usage["completion_tokens"] > 0
    assert completion.usage["finish_reason"] in {"stop", "length"}
    # History is sent as earlier turns: the model sees a two-turn conversation.
    follow = ask(a, "And of Italy?", history=[Message("user", "What is the capital of France?"),
                                              Message("assistant", "Paris.")])
    assert follow.text.strip()


@pytest.mark.slow
def test_real_server_through_targets_toml(smollm2_server: str, run_env) -> None:
    (run_env / "targets.toml").write_text(
        f'[targets.smol]\nadapter = "openai"\nmodel = "local"\nbase_url = "{smollm2_server}"\nmax_tokens = 16\n')
    assert load_targets()["smol"].source.endswith("targets.toml")
    a = create_adapter("smol")
    assert ask(a, "Say hello.").text.strip()


# ---------------------------------------------------------------------------- request content


def test_request_carries_key_settings_and_system_prompt(stack: str) -> None:
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body()))
        a = adapter(url + "/v1", http_client=stack, temperature=0.0, max_tokens=7, system_prompt="Be brief.",
                    extra_body={"top_k": 1})
        completion = ask(a, 'Is "x" \\ y?')
        assert completion.text == "Hello there."
        assert completion.usage == {"prompt_tokens": 5, "completion_tokens": 3, "finish_reason": "stop"}
        (req,) = srv.requests
        assert req.path == "/ok/v1/chat/completions"
        assert req.headers["authorization"] == f"Bearer {SENTINEL}"
        sent = json.loads(req.body)
        assert sent["messages"] == [{"role": "system", "content": "Be brief."},
                                    {"role": "user", "content": 'Is "x" \\ y?'}]
        assert sent["max_tokens"] == 7 and sent["temperature"] == 0.0 and sent["top_k"] == 1
        ask(adapter(url + "/v1", http_client=stack, max_completion_tokens=9))
        sent = json.loads(srv.requests[-1].body)
        assert sent["max_completion_tokens"] == 9 and "max_tokens" not in sent


# --------------------------------------------------------------------------------- error mapping


def test_429_honours_retry_after_seconds_and_ms(stack: str) -> None:
    with scripted_server() as srv:
        s = srv.route("/s", lambda r: Reply(429, b'{"error": {"message": "slow down"}}',
                                            {"Content-Type": "application/json", "Retry-After": "7"}))
        ms = srv.route("/ms", lambda r: Reply(429, b'{"error": {"message": "slow down"}}',
                                              {"Content-Type": "application/json", "retry-after-ms": "1500"}))
        with pytest.raises(TransientError) as exc:
            ask(adapter(s, http_client=stack))
        assert exc.value.retry_after == 7.0 and "429" in exc.value.reason
        with pytest.raises(TransientError) as exc:
            ask(adapter(ms, http_client=stack))
        assert exc.value.retry_after == 1.5
        assert len(srv.requests) == 2  # the SDK's own retries are off: one request per ask


def test_5xx_transient_with_http_date_retry_after(stack: str) -> None:
    with scripted_server() as srv:
        url500 = srv.route("/e500", lambda r: Reply(500, b'{"error": {"message": "boom"}}'))
        date = formatdate(time.time() + 30, usegmt=True)
        url503 = srv.route("/e503", lambda r: Reply(503, b"busy", {"Content-Type": "text/plain", "Retry-After": date}))
        with pytest.raises(TransientError) as exc:
            ask(adapter(url500, http_client=stack))
        assert "500" in exc.value.reason and "boom" in exc.value.reason
        with pytest.raises(TransientError) as exc:
            ask(adapter(url503, http_client=stack))
        assert 20 < exc.value.retry_after <= 31
        assert len(srv.requests) == 2


@pytest.mark.parametrize("status", [400, 404, 422])
def test_client_errors_are_permanent(status: int, stack: str) -> None:
    with scripted_server() as srv:
        url = srv.route("/c", lambda r: Reply(status, b'{"error": {"message": "bad model"}}'))
        with pytest.raises(PermanentError) as exc:
            ask(adapter(url, http_client=stack))
        assert str(status) in exc.value.reason


def test_401_is_permanent_and_never_echoes_the_key(stack: str) -> None:
    body = json.dumps({"error": {"message": f"Incorrect API key provided: {SENTINEL}."}}).encode()
    with scripted_server() as srv:
        url = srv.route("/auth", lambda r: Reply(401, body))
        with pytest.raises(PermanentError) as exc:
            ask(adapter(url, http_client=stack))
    assert "401" in exc.value.reason
    assert SENTINEL not in exc.value.reason and SENTINEL[:12] not in exc.value.reason
    assert SENTINEL not in repr(exc.value)


def test_malformed_bodies_and_lost_answers_are_transient_a_filtered_one_permanent(stack: str) -> None:
    with scripted_server() as srv:
        bad_json = srv.route("/bad", lambda r: Reply(200, b'{"choices": [{"message": '))
        bad_utf8 = srv.route("/utf", lambda r: Reply(200, b'{"choices": "\xff\xfe"}'))
        empty = srv.route("/empty", lambda r: Reply(200, completion_body("", "content_filter")))
        none = srv.route("/none", lambda r: Reply(200, completion_body(None)))
        nochoice = srv.route("/nochoice", lambda r: Reply(200, b'{"object": "chat.completion", "choices": []}'))
        with pytest.raises(TransientError, match="not valid JSON"):
            ask(adapter(bad_json, http_client=stack))
        with pytest.raises(TransientError, match="not valid UTF-8"):
            ask(adapter(bad_utf8, http_client=stack))
        with pytest.raises(PermanentError, match=r"empty reply \(finish_reason=content_filter\)"):
            ask(adapter(empty, http_client=stack))
        # an empty reply or no choices without a reason: a server fault, the same retries as a 503 (issue 31)
        with pytest.raises(TransientError, match="empty reply"):
            ask(adapter(none, http_client=stack))
        with pytest.raises(TransientError, match="no choices"):
            ask(adapter(nochoice, http_client=stack))


def test_big_reply_is_returned_whole(stack: str) -> None:
    big = "word " * 200_000  # ~1 MB
    with scripted_server() as srv:
        url = srv.route("/big", lambda r: Reply(200, completion_body(big)))
        assert ask(adapter(url, http_client=stack)).text == big


def test_gzip_reply_is_decoded(stack: str) -> None:
    """Hosted providers compress replies; the aiohttp bridge leaves decoding to httpx2, which must do it."""
    import gzip

    with scripted_server() as srv:
        url = srv.route("/gz", lambda r: Reply(200, gzip.compress(completion_body("Compressed, still me.")),
                                               {"Content-Type": "application/json", "Content-Encoding": "gzip"}))
        assert ask(adapter(url, http_client=stack)).text == "Compressed, still me."
        assert "gzip" in srv.requests[0].headers.get("accept-encoding", "")


def test_timeout_reset_and_refused_are_transient(stack: str) -> None:
    with scripted_server() as srv:
        slow = srv.route("/slow", lambda r: Reply(200, completion_body(), sleep_s=2.0))
        reset = srv.route("/reset", lambda r: Reply(reset=True))
        with pytest.raises(TransientError, match="timed out"):
            ask(adapter(slow, http_client=stack, timeout_s=0.3))
        with pytest.raises(TransientError, match="connection failed"):
            ask(adapter(reset, http_client=stack))
        port = srv.port
    with pytest.raises(TransientError, match="connection failed"):
        ask(adapter(f"http://127.0.0.1:{port}/v1", http_client=stack))  # server is gone: connection refused


def test_adapter_survives_several_event_loops(stack: str) -> None:
    """The CLI and tests may call asyncio.run more than once with one adapter."""
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body()))
        a = adapter(url, http_client=stack)

        async def one():
            return await a.ask("Hi?")

        assert asyncio.run(one()).text == "Hello there."
        assert asyncio.run(one()).text == "Hello there."
        asyncio.run(a.aclose())


def test_concurrent_requests_are_all_answered(stack: str) -> None:
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body(), sleep_s=0.2))
        a = adapter(url, http_client=stack)

        async def many():
            started = time.perf_counter()
            results = await asyncio.gather(*(a.ask(f"q{i}") for i in range(20)))
            await a.aclose()
            return results, time.perf_counter() - started

        results, _elapsed = asyncio.run(many())
        assert len(results) == 20 and all(r.text == "Hello there." for r in results)
        assert sorted(json.loads(r.body)["messages"][-1]["content"] for r in srv.requests) == sorted(
            f"q{i}" for i in range(20))


# ----------------------------------------------------------------------------------- HTTP stack


def test_aiohttp_carries_the_requests_it_is_asked_to_carry() -> None:
    """`http_client = "aiohttp"` speaks the wire format over aiohttp itself (issue 38: the SDK's request building
    was the asking loop's limit); `http_client = "httpx"` gives the SDK's own stack."""
    import aiohttp

    seen: list[str] = []

    class Spy(aiohttp.TraceConfig):
        def __init__(self) -> None:
            super().__init__()
            self.on_request_start.append(self._start)

        async def _start(self, _session, _ctx, params) -> None:
            seen.append(str(params.url))

    assert adapter("http://127.0.0.1:1/v1", http_client="httpx").http_client == HTTP_CLIENT_HTTPX
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body()))
        a = adapter(url, http_client="aiohttp")

        async def go():
            client = a._clients.get()
            assert type(client).__name__ == "WireClient"  # harness.adapters.openai_wire, not the SDK
            assert client.http1_client(client.url("/chat/completions")) is None
            client.session = aiohttp.ClientSession(trace_configs=[Spy()])
            try:
                return await a.ask("Hi?")
            finally:
                await a.aclose()

        assert asyncio.run(go()).text == "Hello there."
    assert seen == [url + "/chat/completions"]


def test_plain_http_goes_over_the_http1_client_by_default_and_https_over_aiohttp() -> None:
    """The default stack (issue 38): a plain-http target's requests are written by harness.adapters.http1 on kept-
    alive connections (the server sees one connection for three requests, each with its Host, key, type and
    length); an https target's URL is left to aiohttp, and so is every URL when the environment names a proxy."""
    from harness.adapters.openai_wire import WireClient

    default = adapter("http://127.0.0.1:1/v1")
    assert default.http_client == HTTP_CLIENT_HTTP1
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body()))
        a = adapter(url)

        async def go():
            client = a._clients.get()
            assert client.http1_client(client.url("/chat/completions")) is not None
            try:
                return [await a.ask(f"Hi {i}?") for i in range(3)]
            finally:
                await a.aclose()

        assert [c.text for c in asyncio.run(go())] == ["Hello there."] * 3
        assert srv.connections == 1, srv.connections
        first = srv.requests[0]
        port = url.split(":")[2].split("/")[0]
        assert first.headers["host"] == f"127.0.0.1:{port}"
        assert first.headers["authorization"] == f"Bearer {SENTINEL}"
        assert first.headers["content-type"] == "application/json"
        assert int(first.headers["content-length"]) == len(first.body)
        assert json.loads(first.body)["messages"] == [{"role": "user", "content": "Hi 0?"}]
    secure = WireClient("https://api.example.com/v1", "k", 5.0)
    assert secure.http1_client(secure.url("/chat/completions")) is None


_ASK_AND_LIST_MODULES = """
import asyncio, sys
from harness.adapters.openai_chat import OpenAIChatAdapter
a = OpenAIChatAdapter("t", {"model": "m", "base_url": sys.argv[1], "timeout_s": 5}, secrets={"api_key": "k"})
async def go():
    try:
        return await a.ask("Hi?")
    finally:
        await a.aclose()
print(asyncio.run(go()).text, "aiohttp" in sys.modules)
"""


@pytest.mark.slow
def test_a_plain_http_target_never_imports_aiohttp(monkeypatch: pytest.MonkeyPatch) -> None:
    """Start-up (issue 38): importing aiohttp cost a quarter second before the first request, and a plain-http
    target on the default client never uses it; a fresh process asks once and aiohttp is still not loaded."""
    import subprocess
    import sys

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    with scripted_server() as srv:
        url = srv.route("/ok", lambda r: Reply(200, completion_body()))
        done = subprocess.run([sys.executable, "-c", _ASK_AND_LIST_MODULES, url], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["Hello", "there.", "False"], done.stdout


def test_a_proxy_in_the_environment_sends_every_request_through_aiohttp(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.adapters.openai_wire import WireClient

    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    client = WireClient("http://10.1.2.3:8000/v1", "k", 5.0)
    assert client.http1_client(client.url("/chat/completions")) is None


def test_http_client_setting_is_checked_and_not_part_of_the_fingerprint() -> None:
    with pytest.raises(ConfigError, match="http_client"):
        adapter("http://127.0.0.1:1/v1", http_client="curl")
    assert (adapter("http://x/v1", http_client="httpx").fingerprint()
            == adapter("http://x/v1", http_client="aiohttp").fingerprint() == adapter("http://x/v1").fingerprint())


def test_wire_client_reads_the_environments_proxy_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wire client keeps aiohttp's trust_env off (two thread hops per request) but still honours
    HTTPS_PROXY / NO_PROXY, as the SDK's httpx stack does: read once, when the client is made."""
    from harness.adapters.openai_wire import _env_proxy

    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
    assert _env_proxy("https://api.example.com/v1") == {}
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.internal:3128")
    assert str(_env_proxy("https://api.example.com/v1")["proxy"]) == "http://proxy.internal:3128"
    monkeypatch.setenv("NO_PROXY", "api.example.com")
    assert _env_proxy("https://api.example.com/v1") == {}
