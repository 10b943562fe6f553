"""The progress bar's total is the number of probes the run will ask from the start, the copies that
-p mutate / -p perturb add included (it was the selection before the copies: "33/5"), as --dry-run counts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fault_server import FaultServer
from rich.console import Console

from harness.question_gen.suites import select_probes
from harness.run.execute import run_suite
from harness.run.plan import plan_run

SAMPLE, SEED = 4, 2


@pytest.mark.parametrize(("overrides", "sample"), [({"mutate": "fiction,split"}, SAMPLE), ({"perturb": "gender"}, 40)])
def test_the_plan_counts_the_copies(run_env: Path, overrides: dict[str, str], sample: int) -> None:
    asked = sum(1 for _ in select_probes("builtin-en", sample=sample, seed=SEED, overrides=overrides))
    assert asked != sample  # the copies change the count: the test would not see the old total otherwise
    plan = plan_run("builtin-en", "local", sample=sample, seed=SEED, overrides=overrides)
    assert plan.estimate == asked
    assert plan_run("builtin-en", "local", sample=sample, seed=SEED, limit=3, overrides=overrides).estimate == 3


def test_the_bar_shows_the_real_total(run_env: Path) -> None:
    overrides = {"mutate": "fiction,split"}
    asked = sum(1 for _ in select_probes("builtin-en", sample=SAMPLE, seed=SEED, overrides=overrides))
    buffer = io.StringIO()
    with FaultServer(healed=True) as server:
        (run_env / "targets.toml").write_text(f'[targets.srv]\nadapter = "openai"\nmodel = "m"\n'
                                              f'base_url = "{server.base_url}"\n', encoding="utf-8")
        outcome = run_suite("builtin-en", "srv", sample=SAMPLE, seed=SEED, overrides=overrides, use_cache=False,
                            console=Console(file=buffer, force_terminal=True, width=160))
    assert outcome.run_counts["answered"] == asked
    shown = buffer.getvalue()
    assert f"{asked}/{asked}" in shown and f"/{SAMPLE} " not in shown
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["probes_selected"] == asked
