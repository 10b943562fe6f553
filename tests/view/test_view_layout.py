"""`harness view` in a real Chromium at 1,400 and 1,024 px (issue 36): the runs table fits the window and names
a GGUF model by its file, a run says its answer mode and marks a reply cut at max_tokens, a finding opened low
in the list shows its panel on screen, and the compare page says one run is chat and the other loglik.
Chinese probes are in the runs (tests/view/view_runs.add_chinese_and_pairs)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from run_builders import make_run
from view_runs import ViewServer, add_chinese_and_pairs, score

from harness.core.records import Probe, Reply
from harness.run.transcript import TranscriptWriter

pytestmark = pytest.mark.slow
CHAT, LOGLIK = "builtin-en__chat-bot__s60", "builtin-en__loglik-bot__s60"
GGUF = {"name": "Qwen2.5 Coder 0.5B Instruct AWQ", "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "source": "gguf"}
CUT_REPLY = "Men are healthier because they tend to"
WAIT_MS = 60_000


def _build(root: Path) -> Path:
    for name, mode in ((CHAT, "generate"), (LOGLIK, "loglik")):
        run_dir = make_run(root / name, bias=0.8 if mode == "generate" else 0.4, n_rel=8, n_abs=8, xss=False)
        add_chinese_and_pairs(run_dir)
        if mode == "loglik":
            with TranscriptWriter(run_dir) as w:
                p = Probe.make("unit-report", "en", "yes_no", "relative", "Are men healthy? #cut", groups=("men",),
                               attribute="gender", property="are healthy", categories=("Health",),
                               meta={"template": "cut"})
                w.append(p, Reply(p.id, "unit-target", CUT_REPLY, usage={"finish_reason": "length"}))
        manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
        manifest.update(suite="builtin-en", target=name.split("__")[1], status="complete", answer_mode=mode,
                        started_at="2026-11-27T10:00:00Z", model=GGUF)
        (run_dir / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
        score(run_dir)
    return root


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ViewServer]:
    root = tmp_path_factory.mktemp("layout")
    server = ViewServer(_build(root / "transcripts"), root / "cache")
    yield server
    server.stop()


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


@pytest.fixture(params=[1400, 1024], ids=["1400px", "1024px"])
def page(browser: object, request: pytest.FixtureRequest) -> Iterator[object]:
    context = browser.new_context(viewport={"width": request.param, "height": 800}, locale="zh-CN")
    p = context.new_page()
    p.set_default_timeout(WAIT_MS)
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    from playwright.sync_api import expect

    expect.set_options(timeout=WAIT_MS)  # a busy 2-core machine: a comparison draws its heatmaps first
    yield p
    context.close()
    assert not errors, f"page errors: {errors}"


def test_runs_table_fits_and_names_the_gguf_file(served: ViewServer, page: object) -> None:
    from playwright.sync_api import expect

    page.goto(served.url + "/")
    expect(page.locator(f"tr[data-run='{CHAT}']")).to_be_visible()
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.querySelector('#runs').getBoundingClientRect().right") <= width + 1
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    expect(page.locator(f"tr[data-run='{CHAT}']")).to_contain_text(GGUF["file"])
    expect(page.locator(f"tr[data-run='{CHAT}']")).not_to_contain_text(GGUF["name"])
    assert page.title() == "Runs · harness view"  # the one shell page, filled per page


def test_run_page_mode_cut_and_a_low_finding_on_screen(served: ViewServer, page: object) -> None:
    from playwright.sync_api import expect

    page.goto(served.url + f"/runs/{LOGLIK}")
    expect(page.locator("#answer-mode")).to_contain_text("--answer-mode loglik")
    expect(page.locator("#filters button.primary")).to_be_visible()
    assert "null" not in page.inner_text("#filters")  # no confidences: the boxes are left out, not "nullnull"
    page.goto(served.url + f"/runs/{LOGLIK}?q=%23cut")
    expect(page.locator("#findings tbody tr .badge.cut")).to_have_count(1)
    page.goto(served.url + f"/runs/{LOGLIK}?q=%E8%81%AA%E6%98%8E")  # 聪明: the Chinese probes
    expect(page.locator("#findings tbody tr").first).to_be_visible()
    page.goto(served.url + f"/runs/{LOGLIK}")
    rows = page.locator("#findings tbody tr")
    expect(rows.nth(30)).to_be_visible()
    last = rows.nth(rows.count() - 1)
    last.scroll_into_view_if_needed()
    last.click()
    expect(page.locator("#detail h3").first).to_be_visible()
    top = page.evaluate("document.querySelector('#detail').getBoundingClientRect().top")
    height = page.evaluate("window.innerHeight")
    assert 0 <= top < height - 80, (top, height)
    page.goto(served.url + f"/runs/{LOGLIK}?q=%23cut")
    page.locator("#findings tbody tr").first.click()
    expect(page.locator("#detail-cut")).to_contain_text("cut at max_tokens")


def test_compare_says_chat_against_loglik(served: ViewServer, page: object) -> None:
    from playwright.sync_api import expect

    page.goto(served.url + f"/compare?runs={CHAT}&runs={LOGLIK}")
    expect(page.locator("#mode-note")).to_contain_text("R1: generate, R2: loglik", timeout=WAIT_MS)
    assert "null" not in page.inner_text("#board")
    page.wait_for_function("document.querySelectorAll('#tables .lb-table').length > 0")
    headings = page.locator("#board h2", has_text="Heatmaps")
    imgs = page.locator("#board img").count()
    assert headings.count() == (1 if imgs else 0)
