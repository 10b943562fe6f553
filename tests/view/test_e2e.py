"""End to end in a real Chromium (Debian's, driven by Playwright's Python package; no browser download):
list -> run -> filter -> open a finding -> label it in review -> the recomputed metric shows; compare two
runs; a run still being written updates; replies holding markup stay text and run nothing.

HARNESS_VIEW_SCREENSHOTS=DIR saves a PNG of each page there (the README's docs/images/view_*.png).
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from run_builders import XSS_SCRIPT
from view_runs import RUN_A, RUN_B, ViewServer

pytestmark = pytest.mark.slow
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-dev-shm-usage"]
WAIT_MS = 60_000  # a busy 2-core machine: scoring and drawing after a label can take many seconds


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = _chromium()
    if path is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs Debian's: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1360, "height": 900}, locale="en-US")
    p = context.new_page()
    p.set_default_timeout(WAIT_MS)
    dialogs: list[str] = []
    p.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" and "Content Security" in m.text else None)
    yield p
    context.close()
    assert not dialogs, f"a reply's markup ran as script: {dialogs}"
    assert not errors, f"page errors: {errors}"


def _shot(page: object, name: str, at: str | None = None) -> None:
    """A screenshot of the window, scrolled to the top or to the element `at`."""
    out = os.environ.get("HARNESS_VIEW_SCREENSHOTS")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        if at is None:
            page.evaluate("window.scrollTo(0, 0)")
        else:
            page.locator(at).first.evaluate("e => e.scrollIntoView({block: 'start'})")
        page.screenshot(path=str(Path(out) / f"view_{name}.png"), full_page=False)


def test_list_run_filter_finding_review_and_the_metric_recomputed(view: ViewServer, page: object) -> None:
    from playwright.sync_api import expect

    page.goto(view.url + "/")
    rows = page.locator("#runs tbody tr")
    expect(rows).to_have_count(2)
    expect(page.locator(f"tr[data-run='{RUN_A}'] .run-status")).to_have_text("complete")
    page.fill("#run-filter", "bot-b")
    expect(rows).to_have_count(1)
    page.fill("#run-filter", "")
    page.click(f"a[href='/runs/{RUN_A}']")
    expect(page.locator("h1")).to_have_text(RUN_A)
    count = page.locator("#count")
    expect(count).to_contain_text("finding(s) match")
    total = int(re.match(r"([\d,]+)", count.inner_text()).group(1).replace(",", ""))
    page.select_option("#f-attribute", "gender")
    expect(count).not_to_contain_text(f"{total:,} finding")
    expect(page).to_have_url(re.compile(r"attribute=gender"))
    cells = page.locator("#findings tbody tr td:nth-child(2)")
    assert set(cells.all_inner_texts()) == {"gender"}
    # the reply holding <script> shows as text, and runs nothing (the fixture fails on any dialog)
    page.fill("#f-q", "script")
    page.press("#f-q", "Enter")
    expect(page.locator("#findings tbody tr")).to_have_count(1)
    page.locator("#findings tbody tr").first.click()
    expect(page.locator("#detail-reply")).to_have_text(XSS_SCRIPT)
    assert page.locator("script:not([src])").count() == 0
    # a Chinese group name is offered, and the report opens in its sandboxed frame (its own policy, no script)
    assert "青年人" in page.locator("#f-group option").all_inner_texts()
    page.click("#report summary")
    expect(page.frame_locator("iframe.report").locator("body")).to_contain_text("Absolute bias rate")
    page.fill("#f-q", "")
    page.select_option("#f-verdict", "biased")
    expect(page.locator("#findings tbody tr").first).to_be_visible()
    page.locator("#findings tbody tr").first.click()
    expect(page.locator("#review-this")).to_be_visible()
    _shot(page, "run")
    page.click("#review-this")
    expect(page.locator("#review-reply")).to_be_visible()
    oracle_biased = "(biased)" in page.locator("#review-item").inner_text()
    page.keyboard.press("d")  # deny: not biased, so it disagrees with the oracle's biased verdict
    expect(page.locator("#changes-table")).to_be_visible(timeout=WAIT_MS)
    agreement = page.locator("#changes-table tr[data-key='oracle_agreement'] td.after")
    expect(agreement).to_have_text("0.0% [0.0%, 79.3%]" if oracle_biased else "100.0% [20.7%, 100.0%]")
    assert page.locator("#changes-table td.after.changed").count() >= 2  # the agreement and a bias metric moved
    _shot(page, "review_changed")
    # undo from the keyboard takes the label back off the page
    page.keyboard.press("k")
    expect(page.locator("#review-item button.current kbd")).to_have_text("d")  # the label it has, marked
    page.keyboard.press("z")
    expect(page.locator("#your-label")).to_contain_text("none yet")


def test_compare_two_runs_tables_heatmaps_and_one_probe_side_by_side(view: ViewServer, page: object) -> None:
    from playwright.sync_api import expect

    page.goto(view.url + "/")
    page.check(f"tr[data-run='{RUN_A}'] input[type=checkbox]")
    page.check(f"tr[data-run='{RUN_B}'] input[type=checkbox]")
    page.click("#compare-picked")
    expect(page.locator("#tables .lb-table").first).to_be_visible(timeout=WAIT_MS)
    first = page.locator("#tables .lb-table").first
    expect(first.locator("h3")).to_contain_text("Absolute bias rate")
    expect(first.locator("thead th")).to_have_text(["", "R1", "R2"])
    expect(page.locator("#legend")).to_contain_text(RUN_B)
    _shot(page, "compare")
    page.wait_for_function("[...document.querySelectorAll('#board img')].length > 0 && "
                           "[...document.querySelectorAll('#board img')].every(i => i.complete && i.naturalWidth > 0)")
    page.fill("#probe-q", "healthier")
    page.press("#probe-q", "Enter")
    page.locator("#probe-hits a").first.click()
    expect(page.locator("#side .reply-col")).to_have_count(2)
    _shot(page, "compare_probe", at="#probe h2")


def test_a_run_being_written_updates_in_the_list_and_its_page(view: ViewServer, live_run, page: object) -> None:
    from playwright.sync_api import expect

    name = live_run.run_dir.name
    page.goto(view.url + "/")
    row = page.locator(f"tr[data-run='{name}']")
    expect(row.locator(".run-status")).to_have_text("running")
    expect(row.locator(".answered")).to_have_text("3")
    live_run.add(5)
    expect(row.locator(".answered")).to_have_text("8")
    _shot(page, "runs")
    page.goto(view.url + f"/runs/{name}")
    expect(page.locator("#count")).to_contain_text("8 finding(s)")
    live_run.add(4)
    expect(page.locator("#count")).to_contain_text("12 finding(s)")
    expect(page.locator("#findings")).to_contain_text("老年人勤奋吗")
    live_run.close()
    expect(page.locator("#run-head .badge")).to_have_text("stopped")
