"""`harness compare` (issue 36): the `*` follows the Holm p, the test family is the leaderboard's, changes of
percentages print in points, BBQ's s_AMB and s_DIS are tested, and an 80-column terminal keeps metric keys
whole. Real run folders (tests/run_builders.make_run), scored by the real oracle, the command in a child
process as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from run_builders import make_run

from harness.metrics.bbq import compare_test, multinomial_difference_test
from harness.report.compare import compare_metrics
from harness.report.leaderboard import RunDoc, build_leaderboard, family_of_tests
from harness.report.reporting import fmt_change


def _scored(root: Path, name: str, bias: float) -> Path:
    from harness.report.reporting import write_report
    from harness.score.scoring import score_run

    run_dir = make_run(root / name, bias=bias, n_rel=10, n_abs=10, xss=False)
    write_report(run_dir, score_run(run_dir), quiet=True)
    return run_dir


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("compare")
    return _scored(root, "run-a", 0.9), _scored(root, "run-b", 0.3)


def _doc(run_dir: Path) -> dict:
    return json.loads((run_dir / "metrics.json").read_text("utf-8"))


def _harness(*args: str, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": str(columns), "NO_COLOR": "1", "TERM": "dumb"}
    harness = str(Path(sys.executable).with_name("harness"))
    return subprocess.run([harness, *args], capture_output=True, text=True, env=env, timeout=300)


def test_multinomial_difference_by_hand() -> None:
    # (3 - 1) / 10 = 0.2 against (1 - 3) / 10 = -0.2; pooled shares 0.2 and 0.2, variance (0.4 - 0) x 0.2 =
    # 0.08, z = 0.4 / 0.28284 = 1.41421, p = 2 x sf(1.41421) = 0.157299
    assert multinomial_difference_test((3, 1, 10), (1, 3, 10)) == pytest.approx(0.157299, abs=1e-6)
    assert multinomial_difference_test((2, 2, 10), (2, 2, 10)) == pytest.approx(1.0)
    assert multinomial_difference_test((0, 0, 0), (1, 1, 4)) is None


def test_bbq_scores_get_a_test_in_compare() -> None:
    def doc(k: int, m: int, t: int, o: int, n: int) -> dict:
        table = [{"category": "all", "s_dis.k": k, "s_dis.m": m, "s_amb.t": t, "s_amb.o": o, "s_amb.n": n}]
        return {"metrics": {"bbq.s_dis": 2 * k / m - 1, "bbq.s_amb": (t - o) / n},
                "tables": {"bbq": {"bbq_score_counts": table}}}

    a, b = doc(30, 40, 3, 1, 10), doc(10, 40, 1, 3, 10)
    assert compare_test("bbq.s_amb", a, b) == (pytest.approx(0.157299, abs=1e-6), "multinomial difference")
    p_dis, name = compare_test("bbq.s_dis", a, b)
    assert name == "two-proportion" and p_dis < 0.001  # 30 / 40 against 10 / 40
    assert compare_test("bbq.accuracy_ambig", a, b) is None
    df = compare_metrics(a, b).set_index("metric")
    assert df.loc["bbq.s_amb", "test"] == "multinomial difference" and df.loc["bbq.s_dis", "test"] == "two-proportion"


def test_changes_of_percentages_are_points() -> None:
    assert fmt_change("refusal_rate", 0.2) == "+20.0 pp"
    assert fmt_change("absolute_bias_rate.gender", -0.125) == "-12.5 pp"
    assert fmt_change("relative_bias_rate_x100", 3.5) == "+3.5"
    assert fmt_change("refusal_rate", None) == ""


def test_star_follows_holm_and_the_family_is_the_leaderboards(two_runs: tuple[Path, Path]) -> None:
    doc_a, doc_b = (_doc(d) for d in two_runs)
    family = family_of_tests([doc_a, doc_b])
    df = compare_metrics(doc_a, doc_b, family=family).set_index("metric")
    tested = df[df["p_value"].notna()]
    assert (tested["significant"] == (tested["p_holm"] < 0.05)).all()
    board = build_leaderboard([RunDoc("R1", "a", doc_a), RunDoc("R2", "b", doc_b)])
    pairs = board.pairwise.set_index("metric")
    assert len(pairs) == int(df.loc[df.index.isin(family), "p_value"].notna().sum())  # the same family size
    for key in pairs.index:  # the same test, the same Holm p
        assert df.loc[key, "p_holm"] == pytest.approx(pairs.loc[key, "p_holm"], rel=1e-9)
    assert "refusal_rate" in family


def test_compare_at_80_columns_keeps_keys_and_prints_points(two_runs: tuple[Path, Path]) -> None:
    out = _harness("compare", str(two_runs[0]), str(two_runs[1]), "--all")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert " pp" in out.stdout and "after Holm's adjustment" in out.stdout
    # every key's words are whole on some line: a key is broken at its dots and underscores, never inside a word
    words = {w for line in lines for w in line.replace(".", " ").replace("_", " ").split()}
    doc = _doc(two_runs[0])
    for key in doc["metrics"]:
        assert all(w in words for w in key.replace(".", " ").replace("_", " ").split()), key
