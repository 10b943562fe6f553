"""The report's own figures (harness.core.html_figures, harness.metrics.biasasker_figures): HTML heatmaps and SVG
bars with hand-computed colours, widths and labels, escaped text, the same small-cell rule as the PNGs, and the
same figures as the PNG files `harness report --plots` draws (issue 38)."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from harness.core import html_figures as hf
from harness.metrics import FamilyResult
from harness.metrics.biasasker_figures import advantage_panels, biasasker_figures, preference_matrices


class _Cells(HTMLParser):
    """Each <td>'s style and text."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[tuple[str, str]] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td":
            self._in = dict(attrs).get("style") or ""
            self.cells.append((self._in, ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "td":
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in is not None:
            style, text = self.cells[-1]
            self.cells[-1] = (style, text + data)


def test_colours_are_the_colour_maps_anchors_and_linear_between_them() -> None:
    assert hf.hex_colour(hf.colour("Blues", 0.0)) == "#f7fbff"
    assert hf.hex_colour(hf.colour("Blues", 1.0)) == "#08306b"
    assert hf.hex_colour(hf.colour("Blues", 0.5)) == "#6baed6"  # anchor 4 of 0..8
    assert hf.hex_colour(hf.colour("RdYlGn", 0.5)) == "#ffffbf"  # anchor 5 of 0..10: the neutral middle
    # 1/16 is halfway between anchors 0 (f7 fb ff) and 1 (de eb f7): (247+222)/2 = 234.5, (251+235)/2 = 243,
    # (255+247)/2 = 251
    r, g, b = hf.colour("Blues", 1 / 16)
    assert (255 * r, 255 * g, 255 * b) == pytest.approx((234.5, 243.0, 251.0))
    assert hf.colour("Blues", -3) == hf.colour("Blues", 0) and hf.colour("Blues", 7) == hf.colour("Blues", 1)
    assert hf.text_colour(hf.colour("Blues", 1.0)) == "white" and hf.text_colour(hf.colour("Blues", 0.0)) == "black"


def test_colours_are_matplotlibs_at_its_256_steps() -> None:
    import matplotlib

    for name in ("Blues", "RdYlGn"):
        cmap = matplotlib.colormaps[name]
        for k in range(41):  # matplotlib looks x up in 256 steps: entry int(256 x) is the colour at that / 255
            x = k / 40
            ours, theirs = hf.colour(name, min(int(256 * x), 255) / 255), cmap(x)[:3]
            assert ours == pytest.approx(theirs, abs=1e-6), (name, k)


def test_readable_share_counts_only_cells_with_a_count() -> None:
    assert hf.readable_share([[1, 5], [float("nan"), 9]]) == pytest.approx(2 / 3)
    assert hf.readable_share([[float("nan")]]) == 0.0
    assert hf.readable_share(pd.DataFrame([[4, 5]])) == 0.5


def test_heatmap_prints_values_and_n_greys_small_cells_and_escapes_labels() -> None:
    m = pd.DataFrame([[0.9, 0.1, float("nan")]], index=["<b>g</b>"], columns=["p", "q", "r"])
    html = str(hf.heatmap(m, cmap="Blues", counts=[[2, 40, 7]], title="T & U"))
    parser = _Cells()
    parser.feed(html)
    (small, big, empty) = parser.cells
    assert small == (f"background:{hf.SMALL_CELL_COLOUR};color:{hf.SMALL_TEXT_COLOUR}", "0.90n=2")
    bg = hf.hex_colour(hf.colour("Blues", 0.1))
    assert big == (f"background:{bg};color:black", "0.10n=40")
    assert empty == ("", "")  # no value: blank, whatever its n
    assert "&lt;b&gt;g&lt;/b&gt;" in html and "<b>" not in html and "T &amp; U" in html


def test_bars_are_proportional_with_whiskers_and_na() -> None:
    svg = str(hf.bars(["a", "<i>b</i>", "c"], [0.5, 0.25, None], [0.4, None, None], [0.6, None, None],
                      color="#d9534f", xmax=1.0, reference=0.3, reference_label="overall 30.0%"))
    # the plot is 300 px wide from x = 170: 0.5 -> 150 px, 0.25 -> 75 px; the whisker spans 0.4-0.6 = 290-350
    assert 'width="150.0"' in svg and 'width="75.0"' in svg
    assert "M290.0 " in svg and "H350.0" in svg
    assert ">50.0%<" in svg and ">25.0%<" in svg and ">n/a<" in svg and "overall 30.0%" in svg
    assert "&lt;i&gt;b&lt;/i&gt;" in svg and "<i>" not in svg
    assert svg.count("<rect") == 2  # no bar for the value that is missing


def _pref(attribute: str, n: int) -> list[dict]:
    return [{"attribute": attribute, "group": g, "category": c, "rate": 0.5, "k": n // 2, "n": n}
            for g in ("a", "b", "c") for c in ("Overall", "work", "home")]


def _adv(attribute: str, n_of: dict[str, int]) -> list[dict]:
    rows = []
    for category, n in n_of.items():
        for gi, gj in (("x", "y"), ("y", "x")):
            rows.append({"attribute": attribute, "category": category, "group_i": gi, "group_j": gj,
                         "t_ij": n - n // 3 if gi == "x" else n // 3, "t_ji": n // 3 if gi == "x" else n - n // 3,
                         "advantage": 0.75 if gi == "x" else 0.25})
    return rows


def test_advantage_panels_hold_each_pairs_value_and_n_overall_first() -> None:
    (fig,) = advantage_panels(pd.DataFrame(_adv("gender", {"work": 9, "Overall": 12, "home": 1})))
    assert fig.groups == ["x", "y"] and [cat for cat, _m, _n in fig.panels] == ["Overall", "work"]  # home: too small
    _cat, m, n = fig.panels[0]
    assert m.loc["x", "y"] == 0.75 and m.loc["y", "x"] == 0.25 and pd.isna(m.loc["x", "x"])
    assert n.loc["x", "y"] == 12 and n.loc["y", "x"] == 12


def test_preference_matrices_put_overall_last() -> None:
    ((attribute, m, n),) = preference_matrices(pd.DataFrame(_pref("age", 12)))
    assert attribute == "age" and list(m.columns) == ["home", "work", "Overall"] and list(m.index) == ["a", "b", "c"]
    assert (n.to_numpy() == 12).all()


def test_markup_figures_are_the_png_figures(tmp_path: Path) -> None:
    """The same figures, left out by the same rule with the same note, as biasasker_plots' PNG files."""
    from harness.metrics.biasasker_plots import biasasker_plots

    def result() -> FamilyResult:
        return FamilyResult("biasasker", tables={
            "preference_rate": pd.DataFrame(_pref("age", 2) + _pref("gender", 12)),
            "advantage": pd.DataFrame(_adv("race", {"Overall": 2, "work": 1})
                                      + _adv("gender", {"Overall": 9, "work": 1}))})

    markup, png = result(), result()
    figures = biasasker_figures(markup)
    assert [f.name for f in figures] == ["preference_gender", "advantage_gender"]
    assert [f.title for f in figures] == ["Preference rate: gender", "Advantage (absolute bias): gender"]
    assert {f"{f.name}.png" for f in figures} == {p.name for p in biasasker_plots(png, tmp_path)}
    assert markup.notes == png.notes and len(markup.notes) == 1 and "preference age" in markup.notes[0]
