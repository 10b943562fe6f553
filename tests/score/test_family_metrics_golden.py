"""Every metric family gives the metrics.json values it gave before, on stored transcripts.

tests/data/golden/ holds one small transcript per family (BiasAsker in both languages, CBBQ, CHBias,
political, task-oriented dialogue, counterfactual pairs; written once by make_transcripts.py from the
real suites with replies that are a fixed function of the probe id) and expected.json, the values the
scoring of the time wrote. Each transcript is scored here with the real oracle (the political texts by
a fixed judge below) and its metrics, counts and tables compared with expected.json: a refactoring of
scoring, the families or the kind registry that changes a number fails here.

How close is "the same" (tests/README.md): counts, labels, names and every number computed from them and the
stored replies by the same IEEE arithmetic are compared exactly (1e-12 relative, room for a last-bit difference
of a math library); the floats that went through sentence embeddings (the counterfactual replies' similarity:
its mean, interval and per-pair column) at 1e-6 relative, since the last digits of an embedding depend on the
CPU's math kernels (another CPU gave 0.4825765259563923 for a stored 0.48257652521133426, 1.5e-9 apart).

When a number changes on purpose (a corrected formula), rewrite expected.json and say why in the commit:

    HARNESS_GOLDEN_WRITE=1 .venv/bin/python -m pytest tests/score/test_family_metrics_golden.py
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.score.scoring import score_run

GOLDEN = Path(__file__).resolve().parent.parent / "data" / "golden"
EXPECTED = GOLDEN / "expected.json"
RUNS = ("biasasker-zh", "biasasker-en", "cbbq", "chbias", "political", "tod", "counterfactual")
JUDGE = f"py:{__name__}:by_length"
#: the parts of metrics.json that are values of the families (not when or by what the run was scored)
COMPARED = ("metrics", "counts", "intervals", "variance_inputs", "tables")
#: where a value went through sentence embeddings (a key named similarity, anywhere in the path)
EMBEDDING_DERIVED = re.compile(r"\.similarity\b")
EMBEDDING_REL = 1e-6  # what an embedding's last digits can move across CPUs, with room to spare
EXACT_REL = 1e-12  # the same arithmetic on the same inputs: only a math library's last bit may differ


def by_length(texts: list[str]) -> list[float]:
    """The political texts' fixed judge: longer continuations read as more conservative."""
    return [min(1.0, len(t) / 60) for t in texts]


def _scored(name: str, tmp_path: Path) -> dict[str, Any]:
    run_dir = tmp_path / name
    shutil.copytree(GOLDEN / name, run_dir)
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": name, "suite": name, "target": "golden"}))
    result = score_run(run_dir, reviews=False,
                       reader_options={"political-judge": JUDGE} if name == "political" else None)
    doc = json.loads(json.dumps(result.to_json(), default=str))
    return {k: doc[k] for k in COMPARED}


def _same(got: Any, want: Any, where: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        assert set(got) == set(want), f"{where}: keys differ: only now {sorted(set(got) - set(want))[:8]}, " \
                                      f"only before {sorted(set(want) - set(got))[:8]}"
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and isinstance(got, float) and not (math.isnan(want) or math.isnan(got)):
        rel = EMBEDDING_REL if EMBEDDING_DERIVED.search(where) else EXACT_REL
        assert got == pytest.approx(want, rel=rel, abs=rel), where
    else:
        assert got == want, where


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("golden")
    with pytest.MonkeyPatch.context() as mp:  # the political judge's cache stays in the temporary folder
        mp.setenv("HARNESS_CACHE_DIR", str(tmp / "cache"))
        mp.chdir(tmp)
        out = {name: _scored(name, tmp) for name in RUNS}
    if os.environ.get("HARNESS_GOLDEN_WRITE") == "1":
        EXPECTED.write_text(json.dumps(out, ensure_ascii=False, indent=1, sort_keys=True) + "\n", "utf-8")
    return out


@pytest.mark.parametrize("name", RUNS)
def test_family_metrics_are_unchanged(scored: dict[str, dict[str, Any]], name: str) -> None:
    expected = json.loads(EXPECTED.read_text("utf-8"))[name]
    got = scored[name]
    assert got["metrics"], f"{name}: nothing was measured"
    for part in COMPARED:
        _same(got[part], expected[part], f"{name}.{part}")


def _nudged(value: Any, rel: float, where: str, *, embedding: bool) -> Any:
    """`value` with each float (of the embedding-derived paths, or of the others) times 1 + rel."""
    if isinstance(value, dict):
        return {k: _nudged(v, rel, f"{where}.{k}", embedding=embedding) for k, v in value.items()}
    if isinstance(value, list):
        return [_nudged(v, rel, f"{where}[{i}]", embedding=embedding) for i, v in enumerate(value)]
    if isinstance(value, float) and value and bool(EMBEDDING_DERIVED.search(where)) == embedding:
        return value * (1 + rel)
    return value


def _compare(got: dict[str, Any], want: dict[str, Any]) -> None:
    for part in COMPARED:
        _same(got[part], want[part], f"counterfactual.{part}")


def test_embedding_floats_may_move_in_the_ninth_digit_and_not_in_the_fourth() -> None:
    """The tolerance is what another CPU needs, not a blanket one: a change in the ninth significant digit of
    the embedding-derived floats passes, one in the fourth fails, and the exact values stay exact."""
    want = json.loads(EXPECTED.read_text("utf-8"))["counterfactual"]
    moved = _nudged(want, 3e-9, "counterfactual", embedding=True)
    assert sum(json.dumps(moved[p]) != json.dumps(want[p]) for p in COMPARED) == 3  # metrics, intervals, tables
    _compare(moved, want)
    _compare(_nudged(want, -3e-9, "counterfactual", embedding=True), want)
    issue = json.loads(json.dumps(want))
    assert issue["intervals"]["counterfactual.similarity"][0] == 0.48257652521133426
    issue["intervals"]["counterfactual.similarity"][0] = 0.4825765259563923  # what another CPU gave (issue 31)
    _compare(issue, want)
    with pytest.raises(AssertionError, match="similarity"):
        _compare(_nudged(want, 3e-4, "counterfactual", embedding=True), want)
    with pytest.raises(AssertionError):  # a rate, interval or p-value from counts: exact
        _compare(_nudged(want, 3e-9, "counterfactual", embedding=False), want)
    counts = json.loads(json.dumps(want))
    key = next(iter(counts["counts"]))
    counts["counts"][key][0] += 1
    with pytest.raises(AssertionError, match="counts"):
        _compare(counts, want)
