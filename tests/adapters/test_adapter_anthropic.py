"""The anthropic adapter against a real HTTP server on 127.0.0.1 that speaks Anthropic's Messages API.

The server checks what the official SDK sends (POST /v1/messages, the key and an anthropic-version header,
system as a top-level field, max_tokens) and answers with scripted Messages replies and error bodies, so the
adapter's request, its reading of content blocks and its failure classification run over the real SDK and
real sockets. The last test is a whole `harness run` through the `anthropic` preset: answers land in the
transcript, and the key never reaches the transcript, the manifest, the summary or the log.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from adapter_servers import Reply, Request, scripted_server

from harness.adapters.anthropic_messages import AnthropicMessagesAdapter
from harness.adapters.base import Message, PermanentError, TransientError
from harness.adapters.registry import create_adapter

SENTINEL = "sk-ant-SENTINEL-5d1e9a7c3b-do-not-leak"
HARNESS = str(Path(sys.executable).with_name("harness"))


def message_body(text: str = "Hello there.", stop: str = "end_turn") -> bytes:
    return json.dumps({
        "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-test",
        "content": [{"type": "text", "text": text}], "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }).encode()


def error_body(kind: str, message: str) -> bytes:
    return json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()


def adapter(base_url: str, **settings) -> AnthropicMessagesAdapter:
    return AnthropicMessagesAdapter("claude", {"model": "claude-test", "base_url": base_url, "timeout_s": 5,
                                               **settings}, secrets={"api_key": SENTINEL})


def ask(a: AnthropicMessagesAdapter, prompt: str = "Hi?", **kw):
    async def go():
        try:
            return await a.ask(prompt, **kw)
        finally:
            await a.aclose()

    return asyncio.run(go())


def test_request_is_a_messages_call_and_the_reply_is_read() -> None:
    with scripted_server() as server:
        base = server.route("/ok", lambda r: Reply(200, message_body("Neither group is smarter.")))
        a = adapter(base, system_prompt="Be brief.", max_tokens=64, temperature=0.0)  # temperature: extra body
        history = [Message("user", "Earlier question?"), Message("assistant", "Earlier answer.")]
        completion = ask(a, "Who is smarter?", history=history)
    assert completion.text == "Neither group is smarter."
    assert completion.usage == {"prompt_tokens": 12, "completion_tokens": 3, "finish_reason": "end_turn"}
    (request,) = server.requests
    assert request.method == "POST" and request.path == "/ok/v1/messages"
    assert request.headers.get("anthropic-version")  # the header every Messages call carries
    # the key: x-api-key in older SDKs, a bearer token in SDK 2.x
    assert SENTINEL in (request.headers.get("x-api-key"),
                        request.headers.get("authorization", "").removeprefix("Bearer "))
    body = json.loads(request.body)
    assert body["model"] == "claude-test" and body["max_tokens"] == 64 and body["temperature"] == 0.0
    assert body["system"] == "Be brief."  # a top-level field: the Messages API has no system role
    assert body["messages"] == [{"role": "user", "content": "Earlier question?"},
                                {"role": "assistant", "content": "Earlier answer."},
                                {"role": "user", "content": "Who is smarter?"}]


@pytest.mark.parametrize("status, kind, retryable", [
    (429, "rate_limit_error", True), (529, "overloaded_error", True), (500, "api_error", True),
    (400, "invalid_request_error", False), (404, "not_found_error", False),
])
def test_errors_are_classified_and_the_key_is_masked(status: int, kind: str, retryable: bool) -> None:
    headers = {"Content-Type": "application/json", "retry-after": "7"}
    with scripted_server() as server:
        base = server.route("/e", lambda r: Reply(status, error_body(kind, f"trouble for key {SENTINEL}"), headers))
        with pytest.raises(TransientError if retryable else PermanentError) as info:
            ask(adapter(base))
    reason = info.value.reason
    assert reason.startswith(f"HTTP {status}") and "trouble for key" in reason and SENTINEL not in reason
    if retryable:
        assert info.value.retry_after == 7.0


def test_401_never_quotes_the_server() -> None:
    with scripted_server() as server:
        base = server.route("/a", lambda r: Reply(401, error_body("authentication_error", f"bad key {SENTINEL[:12]}")))
        with pytest.raises(PermanentError) as info:
            ask(adapter(base))
    assert info.value.reason == "HTTP 401: authentication failed; check the target's API key"


def test_empty_reply_and_a_garbled_body_are_transient() -> None:
    with scripted_server() as server:
        empty = server.route("/empty", lambda r: Reply(200, message_body("   ")))
        garbled = server.route("/garbled", lambda r: Reply(200, b'{"id": "msg_01", "content": [{"ty'))
        with pytest.raises(TransientError, match="empty reply"):  # a lost answer: the same retries as a 503
            ask(adapter(empty))
        with pytest.raises(TransientError):
            ask(adapter(garbled))


def test_timeout_and_refused_connection_are_transient() -> None:
    with scripted_server() as server:
        slow = server.route("/slow", lambda r: Reply(200, message_body(), sleep_s=3))
        with pytest.raises(TransientError, match="timed out"):
            ask(adapter(slow, timeout_s=0.5))
    with pytest.raises(TransientError, match="connection failed"):
        ask(adapter(server.base + "/gone"))  # the server is shut down: refused


def test_preset_needs_a_model_and_the_key(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.core.errors import ConfigError

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(ConfigError) as info:
        create_adapter("anthropic")
    message = str(info.value)
    assert 'set model = "..." under [targets.anthropic] in targets.toml' in message
    assert "ANTHROPIC_API_KEY" in message and message.count(". ") == 0


def test_harness_run_through_the_preset_keeps_the_key_out_of_every_file(run_env: Path) -> None:
    asked: list[str] = []

    def answer(request: Request) -> Reply:
        prompt = json.loads(request.body)["messages"][-1]["content"]
        asked.append(prompt)
        if len(asked) == 2:  # one request fails for good, with a body that repeats the key
            return Reply(400, error_body("invalid_request_error", f"key {SENTINEL} may not ask this"))
        return Reply(200, message_body(f"No. ({len(asked)})"))

    with scripted_server() as server:
        base = server.route("/claude", answer)
        (run_env / "targets.toml").write_text(f'[targets.anthropic]\nmodel = "claude-test"\nbase_url = "{base}"\n',
                                              encoding="utf-8")
        env = {**os.environ, "ANTHROPIC_API_KEY": SENTINEL, "HARNESS_DEBUG": "1"}
        proc = subprocess.run([HARNESS, "run", "--suite", "builtin-en", "--target", "anthropic", "--sample", "3",
                               "--no-report", "--max-attempts", "1", "--max-error-rate", "0.5"],
                              cwd=run_env, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert all(r.headers.get("anthropic-version") for r in server.requests)
    run_dir = next((run_env / "transcripts").iterdir())
    records = [json.loads(line) for line in (run_dir / "transcript.jsonl").read_text("utf-8").splitlines()]
    assert sorted(r["reply"]["status"] for r in records) == ["error", "ok", "ok"]
    error = next(r["reply"]["error"] for r in records if r["reply"]["status"] == "error")
    assert error.startswith("HTTP 400") and "may not ask this" in error
    assert json.loads((run_dir / "manifest.json").read_text("utf-8"))["adapter"] == "anthropic"
    for path in run_env.rglob("*"):
        if path.is_file() and path.name != "targets.toml":
            assert SENTINEL.encode() not in path.read_bytes(), path
    assert SENTINEL not in proc.stdout + proc.stderr
