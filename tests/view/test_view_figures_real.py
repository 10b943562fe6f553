"""`harness view` shows a real BiasAsker run's figures again (issue 36/38): report.html draws BiasAsker's heatmaps
and bars as its own markup and writes no PNG unless asked, and the view listed only plots/*.png, so the main
job's run page had no figure. Runs made by `harness run` of builtin-en (gender, two groups per attribute, a
small --sample, so the heatmaps have cells of five answers or more) and of a decision audit against a real
OpenAI-compatible server on 127.0.0.1, served by the real `harness view` process, opened in Chromium at 1,400
and 1,024 px: the run page shows a heatmap cell with its n, coloured (the colours reach the page through the
CSSOM under its no-inline-style policy), nothing is wider than the window, no script fails and the policy
refuses nothing; the decision run's lowest impact ratio card shows its interval; the compare page of two
BiasAsker runs shows its heatmaps under its Heatmaps heading."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest
from adapter_servers import Reply, scripted_server

pytestmark = pytest.mark.slow
SMALL_EN = ["-s", "builtin-en", "-p", "attributes=[gender]", "-p", "groups_per_attribute=2", "--sample", "150"]
RUNS = {
    "ba": [*SMALL_EN, "--seed", "1"],
    "ba2": [*SMALL_EN, "--seed", "2"],
    "decision": ["-s", "decision-hiring-en", "-p", "names=bertrand2004", "-p", "race={white: White, black: Black}"],
}
WAIT_MS = 90_000


def _bot(request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
    """Yes / no / a refusal by a hash of the prompt (60 / 30 / 10 %)."""
    prompt = json.loads(request.body)["messages"][-1]["content"]
    u = int.from_bytes(hashlib.blake2b(prompt.encode(), digest_size=8).digest(), "big") / 2**64
    text = "Yes." if u < 0.6 else "No." if u < 0.9 else "I'm sorry, I can't decide about this person."
    return Reply(200, json.dumps({"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}).encode())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    work = tmp_path_factory.mktemp("figures-view")
    env = {
        **os.environ,
        "HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"),
        "HARNESS_CACHE_DIR": str(work / "cache"),
        "XDG_CONFIG_HOME": str(work / "config"),
        "COLUMNS": "200",
    }
    with scripted_server() as srv:
        base = srv.route("/bot", _bot)
        (work / "targets.toml").write_text(
            f'[targets.bot]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base}/v1"\nconcurrency = 8\n',
            encoding="utf-8",
        )
        for name, args in RUNS.items():
            done = subprocess.run(
                [sys.executable, "-m", "harness", "run", *args, "-t", "bot", "--run-id", name, "--no-progress"],
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=900,
            )
            assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert not list((work / "transcripts" / "ba").glob("plots/*.png"))  # the figures are the report's markup
    view = subprocess.Popen(
        [sys.executable, "-m", "harness", "view", str(work / "transcripts"), "--port", "0", "--no-browser"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
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
        b = pw.chromium.launch(
            executable_path=path, headless=True, args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]
        )
        yield b
        b.close()


@pytest.mark.parametrize("width", [1400, 1024])
def test_a_real_biasasker_run_shows_the_reports_figures(served: str, browser: object, width: int) -> None:
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # a style the policy refused is a console error; a failed request is listed by its address instead
    page.on(
        "console", lambda m: errors.append(m.text) if m.type == "error" and "Failed to load" not in m.text else None
    )
    page.on(
        "response",
        lambda r: (
            errors.append(f"{r.status} {r.url}") if r.status >= 400 and not r.url.endswith("/favicon.ico") else None
        ),
    )
    page.goto(served + "/runs/ba")
    figures = page.locator("#figures figure.fig-html")
    expect(figures.filter(has_text="Preference rate: gender")).to_be_visible()
    expect(figures.filter(has_text="Absolute bias rate").locator("svg.bars rect").first).to_be_visible()
    cell = page.locator("#figures table.hm td:not(.small)").filter(has=page.locator("small")).first
    expect(cell).to_be_visible()
    assert re.fullmatch(r"\d\.\d\dn=\d+", cell.inner_text().replace("\n", "")), cell.inner_text()
    n = int(cell.locator("small").inner_text().removeprefix("n="))
    assert n >= 5  # a readable cell: fewer answers would be grey
    background = cell.evaluate("c => getComputedStyle(c).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent"), background  # its colour reached the page
    assert page.evaluate("getComputedStyle(document.querySelector('#figures table.hm')).borderCollapse") == "collapse"
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.goto(served + "/runs/decision")  # the lowest impact ratio's card says its interval, as the report's does
    card = page.locator(".card[data-key='decision.min_impact_ratio']")
    expect(card).to_contain_text(re.compile(r"\[\d\.\d+, \d\.\d+\]"))
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    page.goto(served + "/compare?runs=ba&runs=ba2")
    expect(page.get_by_role("heading", name="Heatmaps")).to_be_visible()
    shot = page.locator(".figures figure img").first
    expect(shot).to_be_visible()
    assert shot.evaluate("i => i.complete && i.naturalWidth > 0")
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    context.close()
    assert not errors, f"page errors: {errors}"
