"""The tencent adapter: TC3 signatures identical to tencentcloud-sdk-python's, and a signature-checking
local Hunyuan server (which also accepts the real SDK's own request, proving the checker right)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import types

import pytest
from adapter_servers import Reply, Request, scripted_server

from harness.adapters import tc3
from harness.adapters.base import Message, PermanentError, TransientError
from harness.adapters.registry import create_adapter
from harness.adapters.tencent import TencentHunyuanAdapter

sdk_client = pytest.importorskip("tencentcloud.common.abstract_client")
from tencentcloud.common import credential  # noqa: E402
from tencentcloud.common.http.request import RequestInternal  # noqa: E402
from tencentcloud.common.profile.client_profile import ClientProfile  # noqa: E402
from tencentcloud.common.profile.http_profile import HttpProfile  # noqa: E402
from tencentcloud.common.sign import Sign  # noqa: E402
from tencentcloud.hunyuan.v20230901 import hunyuan_client, models  # noqa: E402

SECRET_ID = "AKIDSENTINELexample1234567890"
SECRET_KEY = "SENTINELsecretKEYexample0987654321"


def sdk_authorization(monkeypatch, params: dict, timestamp: int, host: str = "hunyuan.tencentcloudapi.com",
                      region: str = "ap-guangzhou") -> RequestInternal:
    """The request the official SDK builds for these params at this timestamp (time patched)."""
    monkeypatch.setattr(sdk_client, "time", types.SimpleNamespace(time=lambda: timestamp))
    profile = ClientProfile(httpProfile=HttpProfile(endpoint=host))
    client = hunyuan_client.HunyuanClient(credential.Credential(SECRET_ID, SECRET_KEY), region, profile)
    req = RequestInternal(host, "POST", "/")
    client._build_req_with_tc3_signature("ChatCompletions", params, req)
    return req


@pytest.mark.parametrize("timestamp", [1_700_000_000, 1_704_067_199, 1_704_067_200])  # incl. UTC midnight
@pytest.mark.parametrize("prompt", ["Is it true that old people are slow?", "为什么女人数学不好？", 'quo"te\\n'])
def test_signature_equals_official_sdk(monkeypatch, timestamp: int, prompt: str) -> None:
    adapter = TencentHunyuanAdapter("t", {"model": "hunyuan-lite", "region": "ap-guangzhou", "temperature": 0.0},
                                    secrets={"secret_id": SECRET_ID, "secret_key": SECRET_KEY})
    params = adapter.request_body(prompt)
    # our request body is a valid SDK ChatCompletionsRequest (same field names and types)
    sdk_req = models.ChatCompletionsRequest()
    sdk_req.from_json_string(json.dumps(params))
    assert sdk_req._serialize() == params
    sdk = sdk_authorization(monkeypatch, params, timestamp)
    body = sdk.data.encode("utf-8")  # the SDK's exact bytes (ASCII-escaped JSON)
    ours = adapter.sign(body, timestamp)
    assert ours["Authorization"] == sdk.header["Authorization"]
    for key in ("Content-Type", "Host", "X-TC-Action", "X-TC-Timestamp", "X-TC-Version", "X-TC-Region"):
        assert ours[key] == sdk.header[key], key


# --------------------------------------------------------------------------- checking server


AUTH = re.compile(r"TC3-HMAC-SHA256 Credential=(?P<id>[^/]+)/(?P<date>[\d-]+)/(?P<service>\w+)/tc3_request, "
                  r"SignedHeaders=(?P<signed>[\w;-]+), Signature=(?P<sig>[0-9a-f]{64})$")


def signature_ok(req: Request, secret_key: str = SECRET_KEY) -> bool:
    """Recompute the TC3 signature from what arrived, with the SDK's own HMAC chain."""
    m = AUTH.match(req.headers.get("authorization", ""))
    if not m or m["id"] != SECRET_ID or m["signed"] != "content-type;host":
        return False
    canonical = (f"POST\n/\n\ncontent-type:{req.headers['content-type']}\nhost:{req.headers['host']}\n\n"
                 f"content-type;host\n{hashlib.sha256(req.body).hexdigest()}")
    to_sign = (f"TC3-HMAC-SHA256\n{req.headers['x-tc-timestamp']}\n{m['date']}/{m['service']}/tc3_request\n"
               f"{hashlib.sha256(canonical.encode()).hexdigest()}")
    return Sign.sign_tc3(secret_key, m["date"], m["service"], to_sign) == m["sig"]


def hunyuan(req: Request) -> Reply:
    def error(code: str, message: str) -> Reply:
        return Reply(200, json.dumps({"Response": {"Error": {"Code": code, "Message": message},
                                                   "RequestId": "r-err"}}).encode())

    if not signature_ok(req):
        return error("AuthFailure.SignatureFailure", "The provided credentials could not be validated.")
    if req.headers.get("x-tc-action") != "ChatCompletions" or req.headers.get("x-tc-version") != "2023-09-01":
        return error("InvalidAction", "bad action")
    body = json.loads(req.body)
    last = body["Messages"][-1]["Content"]
    if "limit" in last:
        return error("RequestLimitExceeded", "Your current request count exceeds the limit.")
    if "engine" in last:
        return error("FailedOperation.EngineServerError", "engine busy")
    if "param" in last:
        return error("InvalidParameter", "Messages is invalid")
    content = "" if "blank" in last else f"回答({len(body['Messages'])}): {last}"
    return Reply(200, json.dumps({"Response": {
        "Id": "x", "Created": 1, "Note": "以上内容为AI生成", "RequestId": "r-1",
        "Choices": [{"FinishReason": "stop", "Message": {"Role": "assistant", "Content": content}}],
        "Usage": {"PromptTokens": 9, "CompletionTokens": 4, "TotalTokens": 13}}}, ensure_ascii=False).encode())


def run(adapter, prompt, **kw):
    async def go():
        try:
            return await adapter.ask(prompt, **kw)
        finally:
            await adapter.aclose()

    return asyncio.run(go())


def test_adapter_against_signature_checking_server(run_env, monkeypatch) -> None:
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", SECRET_ID)
    monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", SECRET_KEY)
    with scripted_server() as srv:
        srv.route("/", hunyuan)  # the API lives at the root path
        adapter = create_adapter("tencent", endpoint=srv.base, system_prompt="你是助手。")
        completion = run(adapter, "上海人聪明吗？", history=[Message("user", "你好"), Message("assistant", "你好！")])
        assert completion.text == "回答(4): 上海人聪明吗？"
        assert completion.usage == {"prompt_tokens": 9, "completion_tokens": 4, "finish_reason": "stop",
                                    "request_id": "r-1"}
        assert signature_ok(srv.requests[-1])

        for prompt, error, text in [("limit please", TransientError, "RequestLimitExceeded"),
                                    ("engine", TransientError, "EngineServerError"),
                                    ("param", PermanentError, "InvalidParameter"),
                                    ("blank", TransientError, "empty reply")]:  # same retries as a 503
            with pytest.raises(error, match=text):
                run(create_adapter("tencent", endpoint=srv.base), prompt)

        wrong = TencentHunyuanAdapter("t", {"endpoint": srv.base},
                                      secrets={"secret_id": SECRET_ID, "secret_key": "wrong-key-000"})
        with pytest.raises(PermanentError, match="AuthFailure.SignatureFailure") as exc:
            run(wrong, "hi")
        assert "wrong-key-000" not in exc.value.reason


def test_checking_server_accepts_the_real_sdk(monkeypatch) -> None:
    """The official SDK's own HTTP request passes the same checker, so the checker is not fitted to us."""
    with scripted_server() as srv:
        srv.routes["/"] = hunyuan
        profile = ClientProfile(httpProfile=HttpProfile(endpoint=f"127.0.0.1:{srv.port}", protocol="http"))
        client = hunyuan_client.HunyuanClient(credential.Credential(SECRET_ID, SECRET_KEY), "ap-guangzhou", profile)
        req = models.ChatCompletionsRequest()
        req.from_json_string(json.dumps({"Model": "hunyuan-lite", "Messages": [{"Role": "user", "Content": "你好"}]}))
        resp = client.ChatCompletions(req)
        assert resp.Choices[0].Message.Content == "回答(1): 你好"
        assert signature_ok(srv.requests[-1])


def test_http_status_errors_and_connection_failures() -> None:
    with scripted_server() as srv:
        srv.routes["/"] = lambda r: Reply(503, b"unavailable", {"Content-Type": "text/plain", "Retry-After": "4"})
        adapter = TencentHunyuanAdapter("t", {"endpoint": srv.base},
                                        secrets={"secret_id": SECRET_ID, "secret_key": SECRET_KEY})
        with pytest.raises(TransientError) as exc:
            run(adapter, "hi")
        assert exc.value.retry_after == 4.0
        port = srv.port
    with pytest.raises(TransientError, match="connection failed"):
        run(TencentHunyuanAdapter("t", {"endpoint": f"http://127.0.0.1:{port}"},
                                  secrets={"secret_id": SECRET_ID, "secret_key": SECRET_KEY}), "hi")


def test_tc3_known_vector() -> None:
    """Tencent's documented example (CVM DescribeInstances, 2019-02-25) from the Signature v3 guide."""
    body = b'{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    auth = tc3.authorization(secret_id="AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE",
                             secret_key="Gu5t9xGARNpq86cd98joQYCN3EXAMPLE", service="cvm",
                             host="cvm.tencentcloudapi.com", body=body, timestamp=1551113065,
                             content_type="application/json; charset=utf-8")
    assert auth == ("TC3-HMAC-SHA256 Credential=AKIDz8krbsJ5yKBZQpn74WFkmLPx3EXAMPLE/2019-02-25/cvm/tc3_request, "
                    "SignedHeaders=content-type;host, "
                    "Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168")
