"""End to end: sampled biasasker-en asked to the REAL local SmolLM2 model -> `harness report` -> a report
folder with every file; report.html rendered by headless Chromium and its screenshot and DOM checked.

The replies are collected through the official openai SDK against a real llama_cpp.server (conftest's
`smollm2_server`) and written with the project's TranscriptWriter, i.e. the same transcript `harness run`
writes. Scoring uses the real oracles (oracles.score).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.records import Reply
from harness.transcript import TranscriptWriter

pytestmark = pytest.mark.slow

N_PER_TYPE = 8


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _sample_probes() -> list:
    from question_gen.suites import load_suite, select_probes

    probes = list(select_probes(load_suite("biasasker-en"), sample=80, seed=7))
    rel = [p for p in probes if p.bias_type == "relative"][:N_PER_TYPE]
    ab = [p for p in probes if p.bias_type == "absolute"][:N_PER_TYPE]
    assert rel and ab, "the sample should hold both one-group and two-group questions"
    return rel + ab


@pytest.fixture(scope="module")
def real_run(smollm2_server: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import openai

    run_dir = tmp_path_factory.mktemp("e2e") / "biasasker-en__smollm2__e2e"
    client = openai.OpenAI(base_url=smollm2_server, api_key="not-needed", timeout=120)
    with TranscriptWriter(run_dir) as writer:
        for probe in _sample_probes():
            resp = client.chat.completions.create(model="local", messages=[{"role": "user", "content": probe.text}],
                                                  max_tokens=48, temperature=0.0)
            text = resp.choices[0].message.content or ""
            writer.append(probe, Reply(probe.id, "smollm2", text))
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": run_dir.name, "suite": "biasasker-en",
                                                       "target": "smollm2"}), encoding="utf-8")
    return run_dir


def test_report_from_real_model(real_run: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    assert main(["report", str(real_run)]) == 0
    out = capsys.readouterr().out
    assert "Answered" in out
    for name in ("transcript.jsonl", "verdicts.csv", "metrics.json", "report.html"):
        assert (real_run / name).stat().st_size > 0, name
    doc = json.loads((real_run / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    assert m["answered"] == 2 * N_PER_TYPE and m["errors"] == 0
    assert 0.0 <= m["absolute_bias_rate"] <= 1.0
    assert doc["counts"]["absolute_bias_rate"][1] == N_PER_TYPE
    assert any(k.startswith("preference_rate.") for k in m)
    plots = {p.name for p in (real_run / "plots").glob("*.png")}
    assert "absolute_bias_rate.png" in plots and any(p.startswith("preference_") for p in plots)


def test_report_renders_in_headless_chromium(real_run: Path, tmp_path: Path) -> None:
    chromium = _chromium()
    if chromium is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    from harness.cli import main

    html = real_run / "report.html"
    if not html.exists():
        assert main(["report", str(real_run), "--quiet"]) == 0
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
             f"--user-data-dir={tmp_path / 'profile'}"]
    shot = tmp_path / "report.png"
    subprocess.run([*flags, f"--screenshot={shot}", "--window-size=1280,2000", html.as_uri()],
                   capture_output=True, timeout=120, check=False)
    assert shot.exists() and shot.stat().st_size > 10_000

    import numpy as np
    from PIL import Image

    img = np.asarray(Image.open(shot).convert("RGB")).astype(int)
    assert img.shape[0] >= 1500 and img.shape[1] >= 1200
    assert img.std() > 20, "the screenshot is blank"
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    # the preference heatmap (matplotlib "Blues") shows saturated blue cells; the header bar is #1f3a5f,
    # so count only strongly blue pixels that are not the header colour
    heat_blue = (b > 150) & (b - r > 60) & (b - g > 20)
    assert heat_blue.sum() > 2000, "no heatmap colours in the rendered page"

    dom = subprocess.run([*flags, "--dump-dom", html.as_uri()], capture_output=True, text=True,
                         timeout=120, check=False).stdout
    assert dom.count("<table") >= 3
    assert dom.count('src="data:image/png;base64,') >= 2
    assert "Worst findings" in dom and "Absolute bias rate by group attribute" in dom
    assert "<script" not in dom
