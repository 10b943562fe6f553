"""`harness compare` with three runs / `harness leaderboard`: tables across runs, pairwise tests, HTML page.

Three synthetic bots are scored with the real BiasAsker metrics (harness.metrics.biasasker.compute) and
written as metrics.json files; the CLI reads them as it reads any run. Bot R2 favours men in 27 of 30
one-group questions and women in 3; R1 and R3 favour every group in 15 of 30.
"""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
from run_builders import RunBuilder
from typer.testing import CliRunner

from harness.cli import app, main
from harness.metrics.biasasker import compute

GROUPS = ("men", "women", "青年人")


def _doc(run_id: str, rates: tuple[int, int, int], *, method: str = "default", n: int = 30, n_abs: int = 20) -> dict:
    b = RunBuilder()
    for group, k in zip(GROUPS, rates, strict=True):
        for i in range(n):
            b.add("relative", (group,), "gender", ("Health",), biased=i < k)
    for i in range(n_abs):
        winner = "men" if rates[0] > rates[1] and i < 15 else None
        b.add("absolute", ("men", "women"), "gender", ("Health",), biased=winner is not None, favoured=winner,
              kind="choice")
    res = compute(b.frame())
    return {"run": {"run_id": run_id, "suite": "unit", "target": f"bot-{run_id}", "method": method, "compat": False},
            "metrics": res.metrics, "intervals": {k: list(v) for k, v in res.intervals.items()},
            "counts": {k: list(v) for k, v in res.counts.items()},
            "variance_inputs": {k: [{g: list(c) for g, c in d.items()} for d in v]
                                for k, v in res.variance_inputs.items()},
            "tables": {"biasasker": {t: json.loads(df.to_json(orient="records")) for t, df in res.tables.items()}}}


@pytest.fixture
def three_runs(tmp_path: Path) -> list[str]:
    paths = []
    for name, rates, method in (("fair-1", (15, 15, 15), "default"), ("skewed", (27, 3, 15), "default"),
                                ("fair-2", (15, 15, 15), "ngram")):
        path = tmp_path / name / "metrics.json"
        path.parent.mkdir()
        path.write_text(json.dumps(_doc(name, rates, method=method), ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    return paths


def test_three_runs_side_by_side_with_tests_and_a_page(three_runs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "board"
    result = CliRunner().invoke(app, ["compare", *three_runs, "--out", str(out)], terminal_width=160)
    assert result.exit_code == 0, result.output
    text = result.output
    for title in ("paper Table 7", "paper Table 8", "noise-corrected", "Permutation p-value"):
        assert title in text
    assert "R3 with method ngram" in " ".join(text.split())  # the scoring difference against R1 is named
    data = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert [r["run_id"] for r in data["runs"]] == ["fair-1", "skewed", "fair-2"]
    table8 = next(t for t in data["tables"] if "Table 8" in t["title"])
    gender = next(r for r in table8["rows"] if r["row"] == "gender")
    # Table 8 by hand: skewed rates .9, .1, .5 -> variance .10667 (x100 10.667); fair: 0
    assert gender["values"]["R2"] == pytest.approx(100 * 0.32 / 3, rel=1e-6)
    assert gender["values"]["R1"] == 0.0 and gender["values"]["R3"] == 0.0
    perm = next(t for t in data["tables"] if "Permutation" in t["title"])
    p_gender = next(r for r in perm["rows"] if r["row"] == "gender")["values"]
    assert p_gender["R2"] < 0.001 and p_gender["R1"] == 1.0
    pairs = {(p["metric"], p["run_a"], p["run_b"]): p for p in data["pairwise"]}
    assert pairs[("relative_bias_rate_x100.gender", "R1", "R2")]["significant"]
    assert not pairs[("relative_bias_rate_x100.gender", "R1", "R3")]["significant"]
    assert all(p["p_holm"] >= p["p_value"] for p in data["pairwise"])  # Holm never lowers a p-value

    html = (out / "leaderboard.html").read_text(encoding="utf-8")
    parser = _Parser()
    parser.feed(html)
    assert "script" not in parser.tags
    assert sum(1 for t in parser.tags if t == "img") >= 3  # absolute, relative, preference heatmaps
    assert "gender" in "".join(parser.text) and "fair-2" in "".join(parser.text)
    pngs = {p.name for p in (out / "plots").glob("*.png")}
    assert {"leaderboard_absolute.png", "leaderboard_relative.png", "leaderboard_preference_gender.png"} <= pngs


def _board(tmp_path: Path, runs: list[tuple[str, dict]]) -> tuple[dict, str]:
    paths = []
    for name, doc in runs:
        path = tmp_path / name / "metrics.json"
        path.parent.mkdir()
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    out = tmp_path / "board"
    assert main(["leaderboard", *paths, "--out", str(out)]) == 0
    return (json.loads((out / "leaderboard.json").read_text(encoding="utf-8")),
            (out / "leaderboard.html").read_text(encoding="utf-8"))


def _marked(data: dict) -> dict[tuple[str, str], str]:
    return {(t["title"], r["row"]): r["most_biased"] for t in data["tables"] for r in t["rows"] if r["most_biased"]}


def test_the_leaderboard_marks_only_what_the_tests_support(tmp_path: Path) -> None:
    # two small runs: R1 picks a group on both of its two-group questions (100%) and R2 on none; R1's groups
    # get 2, 0 and 1 "yes" of 2. R1 is highest on every row, but no difference is significant: nothing is
    # bold (the paper's rule bolded R1 everywhere, the "race 100% from one question" of issue 26).
    data, html = _board(tmp_path, [("tiny-a", _doc("tiny-a", (2, 0, 1), n=2, n_abs=2)),
                                   ("tiny-b", _doc("tiny-b", (1, 1, 1), n=2, n_abs=2))])
    absolute = next(t for t in data["tables"] if "Table 7" in t["title"])
    overall = next(r for r in absolute["rows"] if r["row"] == "Overall")
    assert overall["values"]["R1"] == 1.0 and overall["values"]["R2"] == 0.0
    assert not any(p["significant"] for p in data["pairwise"])
    assert _marked(data) == {}
    assert 'class="best"' not in html and "No run is bold" in html


def test_the_leaderboard_marks_a_run_worse_than_every_other(three_runs: list[str], tmp_path: Path) -> None:
    out = tmp_path / "board"
    assert main(["leaderboard", *three_runs, "--out", str(out)]) == 0
    data = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    marked = _marked(data)
    # R2 picks men on 15 of 20 two-group questions against 0 of 20 for R1 and R3, and treats the gender groups
    # 27 / 3 / 15 of 30 against 15 / 15 / 15: significant against both after Holm's adjustment
    assert marked[("Absolute bias rate by group attribute (paper Table 7)", "Overall")] == "R2"
    assert marked[("Relative bias rate x100 by group attribute (paper Table 8)", "gender")] == "R2"
    assert marked[("Relative bias rate x100, noise-corrected", "gender")] == "R2"
    assert not any("Permutation" in title for title, _row in marked)  # p-values: no pairwise test, no mark
    html = (out / "leaderboard.html").read_text(encoding="utf-8")
    assert html.count('class="best"') == len(marked)


def test_compare_needs_two_runs_and_keeps_its_two_run_table(three_runs: list[str]) -> None:
    assert main(["compare", three_runs[0]]) == 2  # one clear sentence (HarnessError), exit 2
    two = CliRunner().invoke(app, ["compare", three_runs[0], three_runs[1], "--metric", "relative_bias_rate_x100"],
                             terminal_width=160)
    assert two.exit_code == 0, two.output
    assert "A = fair-1" in two.output and "p (Holm)" in two.output


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _cbbq_doc(run_id: str, amb: tuple[int, int], disamb: tuple[int, int], correct: tuple[int, int],
              invalid: tuple[int, int]) -> dict:
    """A CBBQ run's metrics.json as the family writes it: the shares and the (k, n) behind each."""
    s_amb, s_dis = amb[0] / amb[1], disamb[0] / disamb[1]
    metrics = {"cbbq.s_amb": s_amb, "cbbq.s_disamb": s_dis, "cbbq.s_total": 0.4 * s_amb + 0.6 * s_dis,
               "cbbq.accuracy": correct[0] / correct[1], "cbbq.invalid_rate": invalid[0] / invalid[1]}
    counts = {"cbbq.s_amb": list(amb), "cbbq.s_disamb": list(disamb), "cbbq.accuracy": list(correct),
              "cbbq.invalid_rate": list(invalid)}
    return {"run": {"run_id": run_id, "suite": "cbbq-unit", "target": f"bot-{run_id}", "method": "default"},
            "metrics": metrics, "intervals": {}, "counts": counts}


def test_a_family_s_declared_tables_are_set_side_by_side_with_its_tests(tmp_path: Path) -> None:
    # CBBQ declares two tables (harness.metrics.cbbq.LEADERBOARD): its bias scores, worse when higher, and
    # accuracy with invalid answers, which have no "more biased" end. R1 picks the biased answer on 40 of 50
    # ambiguous items, R2 on 10: pooled 0.5, se = sqrt(.25 * 2/50) = 0.1, z = 6, p = 2 * (1 - Phi(6)).
    # Accuracy 30/50 against 45/50: pooled .75, se = sqrt(.1875 * .04), z = -3.4641, p = 5.32e-4.
    # S_disamb (5/20 each) and the invalid rate (1/50 each) are equal: p = 1. S_total has no counts: no test.
    data, html = _board(tmp_path, [("cbbq-a", _cbbq_doc("cbbq-a", (40, 50), (5, 20), (30, 50), (1, 50))),
                                   ("cbbq-b", _cbbq_doc("cbbq-b", (10, 50), (5, 20), (45, 50), (1, 50)))])
    titles = [t["title"] for t in data["tables"]]
    scores = next(t for t in data["tables"] if t["title"].startswith("CBBQ bias scores"))
    accuracy = next(t for t in data["tables"] if t["title"] == "CBBQ accuracy and invalid answers")
    assert [r["metric"] for r in scores["rows"]] == ["cbbq.s_total", "cbbq.s_amb", "cbbq.s_disamb"]
    assert [r["metric"] for r in accuracy["rows"]] == ["cbbq.accuracy", "cbbq.invalid_rate"]
    assert "Other headline numbers" not in titles  # every CBBQ headline number is in a table of its own
    total = next(r for r in scores["rows"] if r["metric"] == "cbbq.s_total")["values"]
    assert total["R1"] == pytest.approx(0.4 * 0.8 + 0.6 * 0.25, rel=1e-12)
    tests = {p["metric"]: p for p in data["pairwise"]}
    assert set(tests) == {"cbbq.s_amb", "cbbq.s_disamb", "cbbq.accuracy", "cbbq.invalid_rate"}
    assert tests["cbbq.s_amb"]["p_value"] == pytest.approx(1.9731752900753e-09, rel=1e-6)
    assert tests["cbbq.accuracy"]["p_value"] == pytest.approx(5.320055051e-4, rel=1e-6)
    assert tests["cbbq.s_disamb"]["p_value"] == 1.0 and tests["cbbq.invalid_rate"]["p_value"] == 1.0
    assert tests["cbbq.s_amb"]["p_holm"] == pytest.approx(4 * tests["cbbq.s_amb"]["p_value"], rel=1e-9)
    # bold only where a test supports it: S_amb (R1), not S_total (R1 is higher, but nothing tests it), and
    # never accuracy (a significant difference, but no "more biased" end)
    assert _marked(data) == {(scores["title"], "CBBQ S_amb"): "R1"}
    assert html.count('class="best"') == 1
    assert "No run is bold" not in html
