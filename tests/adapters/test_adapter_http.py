"""The http adapter against a real local HTTP server: templates, paths, env headers, status mapping."""

from __future__ import annotations

import asyncio
import json

import pytest
from adapter_servers import Reply, scripted_server

from harness.adapters.base import Message, PermanentError, TransientError
from harness.adapters.http_json import HttpJsonAdapter
from harness.adapters.registry import create_adapter
from harness.core.errors import HarnessError

TOKEN = "tok-SENTINEL-91b2"


def ask(a, prompt="Hi?", **kw):
    async def go():
        try:
            return await a.ask(prompt, **kw)
        finally:
            await a.aclose()

    return asyncio.run(go())


def reply_json(obj) -> Reply:
    return Reply(200, json.dumps(obj, ensure_ascii=False).encode())


def test_template_path_and_env_header_through_targets_toml(run_env, monkeypatch) -> None:
    monkeypatch.setenv("BOT_TOKEN", TOKEN)
    with scripted_server() as srv:
        url = srv.route("/chat", lambda r: reply_json({"data": {"reply": "当然不是。", "id": 3}}))
        (run_env / "targets.toml").write_text(f"""
[targets.bot]
adapter = "http"
url = "{url}"
request_template = {{ session = "s1", input = {{ text = "{{prompt}}", lang = "zh" }} }}
response_path = "data.reply"
headers = {{ Authorization = "Bearer ${{BOT_TOKEN}}", X-Client = "harness" }}
""", encoding="utf-8")
        prompt = 'He said "no"\\n then \\ left\n第二行 {braces}'
        completion = ask(create_adapter("bot"), prompt)
        assert completion.text == "当然不是。"
        (req,) = srv.requests
        assert req.headers["authorization"] == f"Bearer {TOKEN}"
        assert req.headers["x-client"] == "harness"
        assert json.loads(req.body) == {"session": "s1", "input": {"text": prompt, "lang": "zh"}}


def test_json_string_template_and_messages_placeholder() -> None:
    with scripted_server() as srv:
        url = srv.route("/v1", lambda r: reply_json({"choices": [{"message": {"content": "ok"}}]}))
        a = HttpJsonAdapter("t", {"url": url, "response_path": "choices.0.message.content",
                                  "system_prompt": "Be brief.",
                                  "request_template": '{"model": "m", "messages": "{messages}"}'})
        assert ask(a, "Q2", history=[Message("user", "Q1"), Message("assistant", "A1")]).text == "ok"
        sent = json.loads(srv.requests[0].body)
        assert sent == {"model": "m", "messages": [
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Q1"},
            {"role": "assistant", "content": "A1"}, {"role": "user", "content": "Q2"}]}


def test_plain_text_endpoint_with_empty_path() -> None:
    with scripted_server() as srv:
        url = srv.route("/txt", lambda r: Reply(200, "纯文本回答".encode(), {"Content-Type": "text/plain"}))
        assert ask(HttpJsonAdapter("t", {"url": url})).text == "纯文本回答"


def test_status_and_body_failures_map_like_the_other_adapters() -> None:
    with scripted_server() as srv:
        r429 = srv.route("/r429", lambda r: Reply(429, b"{}", {"Retry-After": "3"}))
        r502 = srv.route("/r502", lambda r: Reply(502, b"bad gateway", {"Content-Type": "text/plain"}))
        r401 = srv.route("/r401", lambda r: Reply(401, f"bad token {TOKEN}".encode(), {"Content-Type": "text/plain"}))
        missing = srv.route("/missing", lambda r: reply_json({"data": {}}))
        nested = srv.route("/nested", lambda r: reply_json({"data": {"reply": {"text": "x"}}}))
        blank = srv.route("/blank", lambda r: reply_json({"data": {"reply": "  "}}))
        garbled = srv.route("/garbled", lambda r: Reply(200, b'{"data": {"reply": "cut'))
        slow = srv.route("/slow", lambda r: Reply(200, b"{}", sleep_s=2.0))
        moved = srv.route("/moved", lambda r: Reply(301, b"", {"Location": "http://elsewhere/"}))

        def make(url, **kw):
            return HttpJsonAdapter("t", {"url": url, "response_path": "data.reply", "timeout_s": 5,
                                         "headers": {"Authorization": "Bearer ${HTTP_TEST_TOKEN}"}, **kw},
                                   secrets={"HTTP_TEST_TOKEN": TOKEN})

        with pytest.raises(TransientError) as exc:
            ask(make(r429))
        assert exc.value.retry_after == 3.0
        with pytest.raises(TransientError, match="HTTP 502: bad gateway"):
            ask(make(r502))
        with pytest.raises(PermanentError) as exc:
            ask(make(r401))
        assert "401" in exc.value.reason and TOKEN not in exc.value.reason
        with pytest.raises(PermanentError, match="no field 'data.reply'"):
            ask(make(missing))
        with pytest.raises(PermanentError, match="holds a JSON dict"):
            ask(make(nested))
        with pytest.raises(TransientError, match="empty reply"):  # a lost answer: the same retries as a 503
            ask(make(blank))
        with pytest.raises(TransientError, match="not valid JSON"):
            ask(make(garbled))
        with pytest.raises(TransientError, match="timed out"):
            ask(make(slow, timeout_s=0.3))
        with pytest.raises(PermanentError, match="HTTP 301"):
            ask(make(moved))


def test_config_mistakes_are_one_sentence(monkeypatch) -> None:
    monkeypatch.delenv("NOPE_TOKEN", raising=False)
    with pytest.raises(HarnessError, match="needs url"):
        HttpJsonAdapter("t", {})
    with pytest.raises(HarnessError, match="not valid JSON"):
        HttpJsonAdapter("t", {"url": "http://x", "request_template": '{"q": {prompt}}'})
    with pytest.raises(HarnessError, match="must contain"):
        HttpJsonAdapter("t", {"url": "http://x", "request_template": {"q": "static"}})
    with pytest.raises(HarnessError, match="NOPE_TOKEN"):
        HttpJsonAdapter("t", {"url": "http://x", "headers": {"Authorization": "Bearer ${NOPE_TOKEN}"}})
