"""End to end: `harness run` on a sample of biasasker-en against the REAL local SmolLM2 model -> the run's
report folder with every file -> report.html rendered by headless Chromium, screenshot and DOM checked.

The target is an OpenAI-compatible llama_cpp.server (conftest `smollm2_server`) named in a targets.toml
in the working directory, as a user would set it up. If that server cannot answer on this machine (a
llama.cpp build for the wrong CPU dies with SIGILL on the first completion), the same model runs
in-process through the `hf` adapter (built-in target `local`): still the real model, never a stand-in.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

pytestmark = pytest.mark.slow

SAMPLE = 16
SEED = 7
REPO = Path(__file__).resolve().parent.parent.parent


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _server_answers(base_url: str) -> bool:
    try:
        r = httpx.post(f"{base_url}/chat/completions", timeout=120,
                       json={"model": "local", "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 4})
        return r.status_code == 200
    except httpx.HTTPError:
        return False


@pytest.fixture(scope="module")
def real_run(smollm2_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("e2e")
    if _server_answers(smollm2_server):
        target = "e2e-smollm2"
        (work / "targets.toml").write_text(
            f'[targets.{target}]\nadapter = "openai"\nmodel = "local"\nbase_url = "{smollm2_server}"\n'
            'temperature = 0.0\nmax_tokens = 48\nconcurrency = 1\ntimeout_s = 120\n', encoding="utf-8")
    else:
        print("llama_cpp.server could not answer; using the in-process hf target 'local' (same model)")
        target = "local"
    env = {**os.environ, "HARNESS_TRANSCRIPTS_DIR": str(work / "transcripts"),
           "HARNESS_CACHE_DIR": str(work / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "harness", "run", "--suite", "biasasker-en", "--target", target,
         "--sample", str(SAMPLE), "--seed", str(SEED), "--run-id", "e2e", "--no-progress"],
        cwd=work, env=env, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return work / "transcripts" / "e2e"


def test_run_writes_the_whole_report_folder(real_run: Path) -> None:
    for name in ("manifest.json", "transcript.jsonl", "verdicts.csv", "metrics.json", "report.html"):
        assert (real_run / name).stat().st_size > 0, name
    doc = json.loads((real_run / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    assert m["total"] == SAMPLE and m["answered"] + m["errors"] == SAMPLE
    assert m["answered"] >= SAMPLE - 1
    assert m["biasasker.absolute_questions"] + m["biasasker.relative_questions"] == m["answered"]
    if m["biasasker.absolute_questions"]:
        assert 0.0 <= m["absolute_bias_rate"] <= 1.0
        lo, hi = doc["intervals"]["absolute_bias_rate"]
        assert lo <= m["absolute_bias_rate"] <= hi
    assert any(k.startswith("preference_rate.") for k in m)
    assert not list(real_run.glob("plots/*.png"))  # BiasAsker's figures are the page's own markup (issue 38)
    html = (real_run / "report.html").read_text(encoding="utf-8")
    assert "<h3>Absolute bias rate</h3>" in html and '<svg class="bars"' in html
    # a preference heatmap is drawn, or (its cells nearly all too small to read at this sample) named in a note
    assert "<h3>Preference rate: " in html or any(
        "preference" in note for note in doc.get("notes", [])), doc.get("notes")
    lines = (real_run / "verdicts.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) >= 1 + m["answered"]  # header + one row per answer (replies may span lines)


def test_report_command_rescores_the_run(real_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    before = json.loads((real_run / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    assert main(["report", str(real_run)]) == 0
    assert "Answered" in capsys.readouterr().out
    after = json.loads((real_run / "metrics.json").read_text(encoding="utf-8"))["metrics"]
    assert after == before  # scoring is deterministic


def test_report_renders_in_headless_chromium(real_run: Path, tmp_path: Path) -> None:
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    html = real_run / "report.html"
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "report.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1280,2000", html.as_uri()],
                   capture_output=True, timeout=180, check=False)
    assert shot.exists() and shot.stat().st_size > 10_000

    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape[0] >= 1500 and img.shape[1] >= 1200
    assert img.std() > 20, "the screenshot is blank"
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    # Heatmap colours: the preference heatmap ("Blues", light to #08306b) or the bars/advantage cells (red,
    # green). The page chrome is white/grey plus a #1f3a5f header band (b - r = 64), which the thresholds exclude.
    blue = (b > 90) & (b - r > 80) & (b - g > 20)
    red = (r > 150) & (r - g > 80) & (r - b > 80)
    green = (g > 90) & (g - r > 50) & (g - b > 20)
    assert blue.sum() + red.sum() + green.sum() > 2000, "no heatmap colours in the rendered page"

    dom = subprocess.run([*flags, "--dump-dom", html.as_uri()], capture_output=True, text=True,
                         timeout=180, check=False).stdout
    assert dom.count("<table") >= 3
    assert dom.count("<svg") >= 2  # the bar charts, drawn by the page itself
    assert "Worst findings" in dom and "Absolute bias rate by group attribute" in dom
    assert "<script" not in dom
