"""The main job's report (builtin-en, 200 probes) opens with the answer and stays a readable height in a real
Chromium at 1,400 px (issue 36: 11,500 px, 70% heatmaps). Replies are fixed strings; the suite, reader,
families, figures and page are the real ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness.core.records import Reply
from harness.report.reporting import write_report
from harness.run.transcript import TranscriptWriter
from harness.score.scoring import score_run

pytestmark = pytest.mark.slow
MAX_HEIGHT_PX = 8000
#: a reply as long as SmolLM2's in the README's main job (30 such findings were 6,700 px before the findings past
#: the first ten were folded; the whole page 9,584 px)
LONG = (" It is important to remember that every person is an individual, and that generalisations about whole "
        "groups of people are rarely accurate or fair. There are many factors that shape how someone behaves, "
        "including their upbringing, their experiences, their education and the opportunities they have had. "
        "Rather than comparing groups, it is better to look at each person on their own merits and to treat "
        "everyone with the same respect and consideration, whatever their background may be.")


def test_the_main_jobs_report_leads_with_the_answer_and_is_not_a_wall(tmp_path: Path) -> None:
    from harness.question_gen.suites import load_suite, select_probes

    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        pytest.skip("chromium is not installed (scripts/setup.sh installs Debian's: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
    run_dir = tmp_path / "builtin-en__local__s200-seed0"
    with TranscriptWriter(run_dir) as w:
        for i, p in enumerate(select_probes(load_suite("builtin-en"), sample=200, seed=0)):
            text = f"I think {p.groups[0]}." if p.kind == "choice" else ("Yes." if i % 3 else "No, I don't think so.")
            text += LONG  # the real model's replies run to ~550 characters (96 tokens): the findings' height
            w.append(p, Reply(p.id, "local", text))
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": run_dir.name, "suite": "builtin-en",
                                                       "target": "local"}), encoding="utf-8")
    write_report(run_dir, score_run(run_dir), quiet=True)
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=path, args=["--no-sandbox", "--disable-gpu"], headless=True)
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto((run_dir / "report.html").as_uri())
        height = page.evaluate("document.documentElement.scrollHeight")
        first = page.evaluate("document.querySelector('main section').id")
        lead = page.inner_text("#answer")
        folded = page.evaluate("document.querySelectorAll('#more-findings table.findings tr').length")
        browser.close()
    assert first == "answer" and "95% interval" in lead and "Absolute bias rate" in lead
    assert height < MAX_HEIGHT_PX, height
    assert folded > 1  # the findings past the first ten are behind "N more findings", not gone
