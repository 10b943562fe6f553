"""Big batches are scored by forked worker processes (oracles.score): the verdicts must be exactly the
ones a single process gives, in the same order, on real labelled replies and on synthetic ones."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from harness import oracles
from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR, Probe, Reply
from harness.oracles import PARALLEL_MIN, plan_workers, score

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = Path(__file__).parent.parent / "data"


def _benchmark_module():
    spec = importlib.util.spec_from_file_location("oracle_speed_bench", ROOT / "benchmarks" / "oracle_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _labelled() -> list[tuple[Probe, Reply]]:
    out = []
    for lang in ("en", "zh"):
        for line in (DATA / f"labelled_{lang}.jsonl").read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                probe = Probe.from_dict(item["probe"])
                out.append((probe, Reply(probe.id, item.get("source", "labelled"), item["reply"])))
    return out


@pytest.fixture(scope="module")
def batch() -> list[tuple[Probe, Reply]]:
    """Labelled replies, synthetic benchmark pairs, and failed replies (never scored) in between."""
    entries = _labelled() + _benchmark_module().synthetic(700, seed=5)
    failed = [(p, Reply(p.id, "bot", "", status=STATUS_ERROR, error="timeout")) for p, _r in entries[::97]]
    mixed = []
    for i, pair in enumerate(entries):
        mixed.append(pair)
        if i % 97 == 0:
            mixed.append(failed[i // 97])
    return mixed


@pytest.mark.parametrize("compat", [False, True], ids=["default", "compat"])
def test_forked_workers_give_the_single_process_verdicts(batch, compat: bool) -> None:
    single = score(batch, compat=compat, workers=1)
    assert len(single) == sum(1 for _p, r in batch if r.ok) > 1000
    forked = score(batch, compat=compat, workers=2)
    assert forked == single  # same verdicts, same order
    assert [v.probe_id for v in forked] == [p.id for p, r in batch if r.ok]


def test_the_pool_really_forks(batch) -> None:
    """score(workers=2) must not quietly fall back to one process on Linux."""
    ok = [(p, r) for p, r in batch if r.ok]
    before = os.times()
    forked = oracles._score_forked(ok, "default", oracles.RULES, 2)
    after = os.times()
    assert forked is not None and forked == score(ok, workers=1)
    assert after.children_user + after.children_system > before.children_user + before.children_system


def test_plan_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(oracles.WORKERS_ENV, raising=False)
    cores = os.cpu_count() or 1
    assert plan_workers(PARALLEL_MIN - 1) == 1
    assert plan_workers(PARALLEL_MIN) == cores
    assert plan_workers(10 * PARALLEL_MIN, compat=True) == 1  # too cheap a verdict to ship between processes
    assert plan_workers(10 * PARALLEL_MIN, method="sentence") == 1  # torch already uses every core
    monkeypatch.setenv(oracles.WORKERS_ENV, "3")
    assert plan_workers(PARALLEL_MIN) == 3 and plan_workers(5) == 1
    monkeypatch.setenv(oracles.WORKERS_ENV, "1")
    assert plan_workers(10 * PARALLEL_MIN) == 1
    monkeypatch.setenv(oracles.WORKERS_ENV, "many")
    with pytest.raises(HarnessError, match="whole number"):
        plan_workers(5)
