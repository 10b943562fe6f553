"""`harness view` over REAL runs of the kinds whose findings had "nullnull" where the confidence boxes should be
(issue 36): a decision audit (decision-hiring-en with the built-in names) and a plugin's run (tests/plugin_pkg's
echoplug, installed on the path as a user's pip install would be), plus a Chinese run (builtin-zh), each made by
`harness run` against a real OpenAI-compatible server on 127.0.0.1 and served by the real `harness view`
process, opened in Chromium at 1,400 and 1,024 px. No page shows "null", "undefined" or "NaN", none is wider than
the window, and no script fails. With the view's scripts before HV.fill, the plugin run's filters read
"reader: any | echoplug-rules | nullnull"."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from adapter_servers import Reply, scripted_server

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "tests" / "plugin_pkg"
RUNS = {"decision": ["-s", "decision-hiring-en", "-p", "names=bertrand2004", "-p", "race={white: White, black: Black}"],
        "plugin": ["-s", str(PLUGIN / "echoplug" / "echo.yaml")],
        "chinese": ["-s", "builtin-zh", "--sample", "12", "--seed", "2"]}
BAD = re.compile(r"\bnull|undefined|\bNaN\b|\[object Object\]")
WAIT_MS = 90_000


def _u(text: str) -> float:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") / 2**64


def _bot(request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
    """Says an animal back half the time, and yes / no / a refusal to the rest, by a hash of the prompt."""
    prompt = json.loads(request.body)["messages"][-1]["content"]
    u = _u(prompt)
    if "Say the word" in prompt:
        text = prompt.split("Say the word", 1)[1].split()[0].strip(".,!") + "!" if u < 0.5 else "I'd rather not."
    else:
        text = "Yes." if u < 0.6 else "No." if u < 0.9 else "I'm sorry, I can't decide about this person."
    return Reply(200, json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}).encode())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("real-view")
    env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"), "HARNESS_CACHE_DIR": str(work / "cache"),
           "XDG_CONFIG_HOME": str(work / "config"), "COLUMNS": "200",
           "PYTHONPATH": os.pathsep.join(p for p in (str(PLUGIN), os.environ.get("PYTHONPATH", "")) if p)}
    with scripted_server() as srv:
        base = srv.route("/bot", _bot)
        (work / "targets.toml").write_text(f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base}/v1"\n'
                                           "concurrency = 8\n", encoding="utf-8")
        for name, args in RUNS.items():
            done = subprocess.run([sys.executable, "-m", "harness", "run", *args, "-t", "bot", "--run-id", name,
                                   "--no-progress"], cwd=work, env=env, capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    view = subprocess.Popen([sys.executable, "-m", "harness", "view", str(work / "transcripts"), "--port", "0",
                             "--no-browser"], cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        url = ""
        for line in view.stdout:  # type: ignore[union-attr]
            found = re.search(r"http://127\.0\.0\.1:\d+/", line)
            if found:
                url = found.group(0).rstrip("/")
                break
        assert url, "harness view printed no address"
        yield url
    finally:
        view.terminate()
        view.wait(timeout=60)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs Debian's: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        yield b
        b.close()


@pytest.mark.parametrize("width", [1400, 1024])
def test_real_decision_plugin_and_chinese_runs_show_no_null(served: str, browser: object, width: int) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": 900}, locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(served + "/")
    for name in RUNS:
        expect(page.locator(f"tr[data-run='{name}']")).to_be_visible()
    for name in RUNS:
        page.goto(served + f"/runs/{name}")
        expect(page.locator("#filters button.primary")).to_be_visible()
        expect(page.locator("#findings tbody tr").first).to_be_visible()
        page.locator("#findings tbody tr").first.click()
        expect(page.locator("#detail h3").first).to_be_visible()
        text = page.inner_text("body")
        assert not BAD.findall(text), (name, width, BAD.findall(text))
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1, (name, width)
    page.goto(served + "/runs/chinese?q=%E5%90%97")  # 吗: the Chinese questions are found and drawn
    expect(page.locator("#findings tbody tr").first).to_contain_text("吗")
    context.close()
    assert not errors, f"page errors: {errors}"
