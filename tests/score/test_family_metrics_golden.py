"""Every metric family gives the metrics.json values it gave before, on stored transcripts.

tests/data/golden/ holds one small transcript per family (BiasAsker in both languages, CBBQ, CHBias,
political, task-oriented dialogue, counterfactual pairs; written once by make_transcripts.py from the
real suites with replies that are a fixed function of the probe id) and expected.json, the values the
scoring of the time wrote. Each transcript is scored here with the real oracle (the political texts by
a fixed judge below) and its metrics, counts and tables compared with expected.json: a refactoring of
scoring, the families or the kind registry that changes a number fails here.

When a number changes on purpose (a corrected formula), rewrite expected.json and say why in the commit:

    HARNESS_GOLDEN_WRITE=1 .venv/bin/python -m pytest tests/score/test_family_metrics_golden.py
"""

from __future__ import annotations

import json
import math
import os
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


def by_length(texts: list[str]) -> list[float]:
    """The political texts' fixed judge: longer continuations read as more conservative."""
    return [min(1.0, len(t) / 60) for t in texts]


def _scored(name: str, tmp_path: Path) -> dict[str, Any]:
    run_dir = tmp_path / name
    shutil.copytree(GOLDEN / name, run_dir)
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": name, "suite": name, "target": "golden"}))
    result = score_run(run_dir, reviews=False, political_judge=JUDGE if name == "political" else None)
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
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12), where
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
