"""The azure-openai adapter against a real HTTP server on 127.0.0.1 that speaks Azure OpenAI's wire format.

Azure addresses a deployment, not a model: POST {endpoint}/openai/deployments/{deployment}/chat/completions
with ?api-version=V in the query and the key in an `api-key` header. The server answers only requests of
that shape (anything else gets Azure's 404), so the test proves the openai SDK's Azure client is what the
adapter uses, and that the `azure-openai` preset asks for its endpoint, deployment and key in one sentence.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from adapter_servers import Reply, Request, scripted_server

from harness.adapters.azure_openai import DEFAULT_API_VERSION, AzureOpenAIAdapter
from harness.adapters.base import PermanentError, TransientError
from harness.adapters.registry import create_adapter
from harness.core.errors import ConfigError

SENTINEL = "azure-SENTINEL-0b6c1f4e8d2a-do-not-leak"
HARNESS = str(Path(sys.executable).with_name("harness"))


def completion_body(content: str = "Neither.") -> bytes:
    return json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 9, "completion_tokens": 2, "total_tokens": 11}}).encode()


def azure(deployment: str = "bias-dep", api_version: str = DEFAULT_API_VERSION):
    """A handler that answers only what Azure would: the deployment path, the api-version query, api-key."""
    def handle(request: Request) -> Reply:
        url = urlsplit(request.path)
        wanted_path = url.path.endswith(f"/openai/deployments/{deployment}/chat/completions")
        if not wanted_path or parse_qs(url.query).get("api-version") != [api_version]:
            return Reply(404, b'{"error": {"code": "DeploymentNotFound", "message": "no such deployment"}}')
        if request.headers.get("api-key") != SENTINEL:
            return Reply(401, json.dumps({"error": {"code": "401", "message": f"bad key {SENTINEL}"}}).encode())
        return Reply(200, completion_body(f"answered by {deployment}"))
    return handle


def ask(a: AzureOpenAIAdapter, prompt: str = "Who is smarter?"):
    async def go():
        try:
            return await a.ask(prompt)
        finally:
            await a.aclose()

    return asyncio.run(go())


@pytest.mark.parametrize("http_client", ["aiohttp", "httpx"])
def test_deployment_path_api_version_and_key_header(http_client: str) -> None:
    with scripted_server() as server:
        endpoint = server.route("/res", azure())
        a = AzureOpenAIAdapter("az", {"endpoint": endpoint, "deployment": "bias-dep", "timeout_s": 5,
                                      "http_client": http_client, "system_prompt": "Be brief."},
                               secrets={"api_key": SENTINEL})
        completion = ask(a)
    assert completion.text == "answered by bias-dep"
    (request,) = server.requests
    assert urlsplit(request.path).path == "/res/openai/deployments/bias-dep/chat/completions"
    assert parse_qs(urlsplit(request.path).query) == {"api-version": [DEFAULT_API_VERSION]}
    assert request.headers["api-key"] == SENTINEL and "authorization" not in request.headers
    body = json.loads(request.body)
    assert body["messages"] == [{"role": "system", "content": "Be brief."},
                                {"role": "user", "content": "Who is smarter?"}]
    assert body["temperature"] == 0.0 and body["max_tokens"] == 256


def test_api_version_setting_is_sent_and_a_wrong_deployment_is_permanent() -> None:
    with scripted_server() as server:
        endpoint = server.route("/res", azure(api_version="2025-01-01-preview"))
        ok = AzureOpenAIAdapter("az", {"endpoint": endpoint, "deployment": "bias-dep",
                                       "api_version": "2025-01-01-preview"}, secrets={"api_key": SENTINEL})
        assert ask(ok).text == "answered by bias-dep"
        wrong = AzureOpenAIAdapter("az", {"endpoint": endpoint, "deployment": "other",
                                          "api_version": "2025-01-01-preview"}, secrets={"api_key": SENTINEL})
        with pytest.raises(PermanentError, match="HTTP 404: no such deployment"):
            ask(wrong)


def test_401_is_permanent_and_never_quotes_the_key() -> None:
    with scripted_server() as server:
        endpoint = server.route("/res", azure())
        a = AzureOpenAIAdapter("az", {"endpoint": endpoint, "deployment": "bias-dep"},
                               secrets={"api_key": "not-the-key"})
        with pytest.raises(PermanentError) as info:
            ask(a)
    assert info.value.reason == "HTTP 401: authentication failed; check the target's API key"


def test_429_is_transient_with_retry_after() -> None:
    with scripted_server() as server:
        endpoint = server.route("/res", lambda r: Reply(429, b'{"error": {"message": "slow down"}}',
                                                        {"Content-Type": "application/json", "retry-after": "3"}))
        a = AzureOpenAIAdapter("az", {"endpoint": endpoint, "deployment": "d"}, secrets={"api_key": SENTINEL})
        with pytest.raises(TransientError) as info:
            ask(a)
    assert info.value.retry_after == 3.0


def test_fingerprint_follows_the_deployment_not_the_key() -> None:
    base = {"endpoint": "https://r.openai.azure.com", "deployment": "a"}
    one = AzureOpenAIAdapter("az", base, secrets={"api_key": "k1"})
    assert one.fingerprint() == AzureOpenAIAdapter("az", base, secrets={"api_key": "k2"}).fingerprint()
    assert one.fingerprint() != AzureOpenAIAdapter("az", {**base, "deployment": "b"},
                                                   secrets={"api_key": "k1"}).fingerprint()


def test_preset_asks_for_endpoint_deployment_and_key(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AZURE_OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as info:
        create_adapter("azure-openai")
    message = str(info.value)
    assert 'set endpoint = "..." and deployment = "..." under [targets.azure-openai] in targets.toml' in message
    assert "AZURE_OPENAI_API_KEY" in message


def test_harness_run_through_the_preset(run_env: Path) -> None:
    with scripted_server() as server:
        endpoint = server.route("/res", azure())
        (run_env / "targets.toml").write_text(
            f'[targets.azure-openai]\nendpoint = "{endpoint}"\ndeployment = "bias-dep"\n', encoding="utf-8")
        env = {**os.environ, "AZURE_OPENAI_API_KEY": SENTINEL}
        proc = subprocess.run([HARNESS, "run", "--suite", "builtin-en", "--target", "azure-openai", "--sample", "2",
                               "--no-report"], cwd=run_env, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    run_dir = next((run_env / "transcripts").iterdir())
    replies = [json.loads(x)["reply"] for x in (run_dir / "transcript.jsonl").read_text("utf-8").splitlines()]
    assert [r["text"] for r in replies] == ["answered by bias-dep"] * 2
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert SENTINEL.encode() not in path.read_bytes(), path
    assert SENTINEL not in proc.stdout + proc.stderr
