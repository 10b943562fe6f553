"""BiasAsker heatmaps show each cell's n, grey out cells of fewer than 5 answers, and are not drawn at all when
nearly every cell is that small: one note names them (issue 36: 70% of a report was heatmaps of 1-2 answers)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from harness.core.figures import MIN_READABLE_N, heatmap, plt, readable_share
from harness.metrics import FamilyResult
from harness.metrics.biasasker_plots import biasasker_plots


def _pref(attribute: str, n: int) -> list[dict]:
    return [{"attribute": attribute, "group": g, "category": c, "rate": 0.5, "k": n // 2, "n": n}
            for g in ("a", "b", "c") for c in ("Overall", "work", "home")]


def _adv(attribute: str, n_of: dict[str, int]) -> list[dict]:
    rows = []
    for category, n in n_of.items():
        for gi, gj in (("x", "y"), ("y", "x")):
            rows.append({"attribute": attribute, "category": category, "group_i": gi, "group_j": gj,
                         "t_ij": n - n // 3 if gi == "x" else n // 3, "t_ji": n // 3 if gi == "x" else n - n // 3,
                         "advantage": 0.5})
    return rows


def test_readable_share_counts_only_cells_with_a_count() -> None:
    assert readable_share([[1, 5], [float("nan"), 9]]) == 2 / 3
    assert readable_share([[float("nan")]]) == 0.0


def test_heatmap_prints_each_n_and_greys_small_cells() -> None:
    fig, ax = plt.subplots()
    m = pd.DataFrame([[0.9, 0.1]], index=["g"], columns=["p", "q"])
    heatmap(ax, m, cmap="Blues", counts=[[2, 40]])
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["0.10\nn=40", "0.90\nn=2"]
    assert len(ax.images) == 2  # the colour layer and the grey layer over the small cell
    grey = ax.images[1].get_array()
    assert not grey.mask[0, 0] and grey.mask[0, 1]  # only the cell of 2 answers is greyed
    plt.close(fig)


def test_tiny_heatmaps_are_left_out_with_one_note(tmp_path: Path) -> None:
    result = FamilyResult("biasasker", tables={
        "preference_rate": pd.DataFrame(_pref("age", 2) + _pref("gender", 12)),
        "advantage": pd.DataFrame(_adv("race", {"Overall": 2, "work": 1}) + _adv("gender", {"Overall": 9, "work": 1})),
    })
    names = {p.name for p in biasasker_plots(result, tmp_path)}
    assert names == {"preference_gender.png", "advantage_gender.png"}
    (note,) = [n for n in result.notes if "not drawn" in n]
    assert "preference age" in note and "advantage race" in note and "gender" not in note
    assert f"{MIN_READABLE_N} or more answers" in note
