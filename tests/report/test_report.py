"""Report folder from a real transcript on disk: files, metrics.json keys, HTML escaping, offline page.

The oracle here is a tiny deterministic stand-in (reply starts with "Yes" -> biased) so that the report
code is tested on exact, known verdicts; the real oracles are exercised end to end in
test_report_e2e.py against a real local model.
"""

from __future__ import annotations

import csv
import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from run_builders import XSS_SCRIPT, make_run

from harness.report.reporting import write_report
from harness.score.scoring import score_run


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_report_folder_has_every_file_and_escapes_model_text(tmp_path: Path, fake_oracle: None) -> None:
    run_dir = make_run(tmp_path / "run1")
    result = score_run(run_dir)
    files = write_report(run_dir, result, quiet=True)

    for name in ("verdicts.csv", "metrics.json", "report.html", "transcript.jsonl"):
        assert (run_dir / name).stat().st_size > 0, name
    assert files.plots == [] and not list(run_dir.glob("plots/*.png"))  # BiasAsker's figures are the page's own

    doc = json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))
    m = doc["metrics"]
    answered = 2 * 3 * 12 + 2 * 2 * 12
    assert m["answered"] == answered and m["errors"] == 2 and m["total"] == answered + 2
    assert m["error_rate"] == pytest.approx(2 / (answered + 2))
    for key in ("absolute_bias_rate", "absolute_bias_rate.gender", "absolute_bias_rate.age",
                "relative_bias_rate", "relative_bias_rate.gender", "relative_bias_rate_x100.gender",
                "preference_rate.gender.men", "refusal_rate"):
        assert key in m, key
    assert m["relative_bias_rate_x100.gender"] == pytest.approx(100 * m["relative_bias_rate.gender"])
    assert doc["counts"]["absolute_bias_rate"][1] == 2 * 2 * 12
    assert doc["run"]["suite"] == "unit-report"
    assert doc["error_reasons"] == {"HTTP 503 from target after 4 attempts": 2}

    with (run_dir / "verdicts.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == answered
    assert any(r["reply"] == XSS_SCRIPT for r in rows)  # CSV keeps the exact text

    html = (run_dir / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html.lower()
    assert "<img src=x onerror" not in html
    assert "&lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html
    parser = _Tags()
    parser.feed(html)
    tags = [t for t, _ in parser.tags]
    assert "script" not in tags
    assert not [a for t, a in parser.tags if t == "img"]
    heads = [d.strip() for d in parser.text]
    for title in ("Preference rate: gender", "Preference rate: age", "Advantage (absolute bias): gender",
                  "Absolute bias rate", "Relative bias rate"):  # every figure the PNGs showed
        assert title in heads, title
    assert tags.count("svg") == 4 and ("table", {"class": "hm"}) in parser.tags  # 2 bar charts per bar figure
    assert not any(a.get("onerror") for _, a in parser.tags)
    assert "http://" not in html and "https://" not in html  # opens offline: no external resource
    text = "".join(parser.text)
    assert XSS_SCRIPT in text  # shown to the reader as text
    assert "青年人" in text


def _render(text: str) -> Any:
    """The pixels of `text` drawn with the report's fonts (Agg), as an array."""
    import numpy as np

    from harness.core.figures import plt

    fig = plt.figure(figsize=(1, 1), dpi=60)
    fig.text(0.5, 0.5, text, fontsize=30, ha="center", va="center")
    fig.canvas.draw()
    pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()
    plt.close(fig)
    return pixels


def test_chinese_labels_are_drawn_with_real_glyphs() -> None:
    """On a machine set up by scripts/setup.sh a CJK font is there: this fails (never skips) without one."""
    import warnings

    from harness.core.figures import missing_glyphs, setup_fonts

    assert setup_fonts() is not None, "no CJK font: run scripts/setup.sh (fonts-noto-cjk or pylopdf-fonts-zh-cn)"
    assert missing_glyphs(["青年人", "偏好率"]) == ""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the missing-glyph warning of the reference box below
        box = _render("\U000F0001")  # a private-use code point no font draws: the missing-glyph box
    young, year, blank = _render("青"), _render("年"), _render(" ")
    assert (young != blank).any()  # something was drawn
    assert (young != box).any() and (year != box).any()  # ... and it is not the box
    assert (young != year).any()  # two characters, two different glyphs (boxes would be identical)


def test_english_figure_saves_under_matplotlibs_default_generic_family(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A figure drawn before setup_fonts() (matplotlib's default family 'sans-serif', a generic name that
    FontProperties would parse as a fontconfig pattern) still finds DejaVu Sans for Latin text."""
    import matplotlib

    from harness.core.figures import missing_glyphs, plt, save_figure

    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["sans-serif"])
    assert missing_glyphs(["SE gender n/a"]) == ""
    fig, ax = plt.subplots()
    ax.set_title("S_amb by category")
    assert save_figure(fig, tmp_path / "en.png").exists()


def test_figure_without_a_font_for_its_labels_is_left_out_with_one_note(tmp_path: Path, fake_oracle: None,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import matplotlib

    from harness.core.figures import MissingGlyphsError, plt, save_figure

    monkeypatch.setitem(matplotlib.rcParams, "font.family", ["DejaVu Sans"])  # as on a machine without CJK
    fig, ax = plt.subplots()
    ax.set_title("青年人")
    with pytest.raises(MissingGlyphsError):
        save_figure(fig, tmp_path / "zh.png")
    assert not (tmp_path / "zh.png").exists()
    run_dir = make_run(tmp_path / "run-nofont", xss=False)
    result = score_run(run_dir)
    write_report(run_dir, result, quiet=True, plots=True)  # the PNGs, drawn with matplotlib's fonts
    notes = [n for n in result.notes if "CJK font" in n]
    assert len(notes) == 1 and "\n" not in notes[0]
    assert "preference_gender.png" in {p.name for p in (run_dir / "plots").glob("*.png")}  # English ones stay


def test_plots_writes_the_same_figures_as_png_files_beside_the_page(tmp_path: Path, fake_oracle: None) -> None:
    """`harness report --plots`: every BiasAsker figure the page shows is also a PNG file; the page still shows
    its own markup (no figure twice), and a later report without --plots removes the stale PNGs."""
    run_dir = make_run(tmp_path / "run-plots", xss=False)
    files = write_report(run_dir, score_run(run_dir), quiet=True, plots=True)
    pngs = {p.name for p in files.plots}
    assert {"preference_gender.png", "preference_age.png", "advantage_gender.png", "absolute_bias_rate.png",
            "relative_bias_rate.png"} <= pngs
    assert all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in files.plots)
    html = files.html.read_text(encoding="utf-8")
    assert "data:image/png" not in html and html.count('<table class="hm">') >= 3
    write_report(run_dir, score_run(run_dir), quiet=True)
    assert not list(run_dir.glob("plots/*.png"))


def test_rescoring_is_stable_and_overwrites(tmp_path: Path, fake_oracle: None) -> None:
    run_dir = make_run(tmp_path / "run2", xss=False)
    first = write_report(run_dir, score_run(run_dir), quiet=True)
    a = json.loads(first.metrics.read_text())["metrics"]
    write_report(run_dir, score_run(run_dir), quiet=True)
    b = json.loads(first.metrics.read_text())["metrics"]
    assert a == b
    assert not list(run_dir.glob("*.tmp"))


def test_report_cli_and_bad_run(tmp_path: Path, fake_oracle: None, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    run_dir = make_run(tmp_path / "run3", xss=False)
    assert main(["report", str(run_dir)]) == 0
    out = capsys.readouterr().out
    assert "Absolute bias rate" in out and "report.html" in out
    assert main(["report", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert "No run folder" in err and "Traceback" not in err
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["report", str(empty)]) == 2
    assert "has no transcript.jsonl" in capsys.readouterr().err


def test_every_biasasker_report_states_the_oracles_own_error(tmp_path: Path, fake_oracle: None,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A bias rate's interval covers sampling only; the report must also say how often the oracle itself
    reads a reply differently from a person (the measured blind figure), in the terminal, the HTML and
    metrics.json, and name the method when it is not the default."""
    from rich.console import Console

    from harness.oracles.measured import BLIND_ACCURACY

    run_dir = make_run(tmp_path / "run-note")
    result = score_run(run_dir)
    write_report(run_dir, result, console=Console(width=400))
    quote = f"{BLIND_ACCURACY['en']:.0%} of English"
    assert quote in capsys.readouterr().out  # English run: only the English figure
    assert "in Chinese" not in " ".join(result.notes)
    assert quote in (run_dir / "report.html").read_text(encoding="utf-8")
    assert any(quote in n for n in json.loads((run_dir / "metrics.json").read_text(encoding="utf-8"))["notes"])

    compat = score_run(run_dir, compat=True)
    assert not any(quote in n for n in compat.notes)
    assert any("compat mode" in n and "docs/oracles.md" in n for n in compat.notes)
