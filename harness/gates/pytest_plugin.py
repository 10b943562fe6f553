"""pytest plugin (entry point `pytest11: harness`): bias gates as ordinary tests.

Two ways to write them:

* declarative: a `fairness_<name>.yaml` file (see harness.gates.fairness) is collected into one test item per
  gate, e.g. `fairness_mybot.yaml::absolute_bias_rate`. A failed gate reports the metric, its value, the
  limit and the worst examples (question + reply). `{max: V}` fails above V, `{min: V}` below it (a ratio
  where lower is worse; on a family's shortfall metric only beyond chance, harness.gates.checks);
* Python: the `harness_run` fixture runs and scores a suite and returns a harness.gates.fairness.HarnessResult
  for plain asserts:

      def test_gender(harness_run):
          result = harness_run(suite="biasasker-en", target="local", sample=10)
          assert result["relative_bias_rate.gender"] <= 0.05, result.explain("relative_bias_rate.gender")

Runs go through harness.run.engine with a run id derived from suite/target/sample/seed, into the same run
folders as `harness run` ($HARNESS_TRANSCRIPTS_DIR or ./transcripts): rerunning pytest re-asks nothing
already answered, and a crashed CI job resumes. Within one pytest session each run is made once and
shared by all gates and fixtures that ask for it.

Baselines: `--harness-update-baseline` stores every metric of each file's run (with the counts the
significance tests need) in `.harness-baseline.json` next to the YAML. Later runs also fail a gate when
its metric regressed against the baseline by more than the gate's tolerance AND significantly
(harness.gates.baseline). `--harness-ignore-baseline` checks the fixed limits only. When the baseline was scored
differently from this run (another method, compat, review labels, harness version: harness.score.settings)
the gate says so, in its failure message or, when it passes, as a warning in pytest's warnings summary.

This module is imported by every pytest session in an environment where harness is installed, so it
imports nothing heavy at module level.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

_RUNS = pytest.StashKey[dict[tuple[Any, ...], Any]]()
_BASELINED = pytest.StashKey[set[str]]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("harness", "harness bias gates")
    group.addoption("--harness-update-baseline", action="store_true", default=False,
                    help="store the metrics of each fairness_*.yaml run as its new baseline "
                         "(.harness-baseline.json next to the file); limits are still checked")
    group.addoption("--harness-ignore-baseline", action="store_true", default=False,
                    help="check only the fixed limits, not regressions against stored baselines")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[_RUNS] = {}
    config.stash[_BASELINED] = set()
    config.addinivalue_line("markers", "harness_gate: a bias gate collected from a fairness_*.yaml file")


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix in (".yaml", ".yml") and file_path.name.startswith("fairness_"):
        return FairnessFile.from_parent(parent, path=file_path)
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """One line per run this session used, with where its report is: the first place to look in CI."""
    runs = [r for r in config.stash.get(_RUNS, {}).values() if not isinstance(r, Exception)]
    if not runs:
        return
    terminalreporter.section("harness runs")
    for result in runs:
        answered = int(result.metrics.get("answered") or 0)
        terminalreporter.write_line(f"{result.run_id}: {answered} answered; report {result.run_dir / 'report.html'}")


class GateFailure(Exception):
    """A gate did not hold; the message is the whole report (no traceback is useful here)."""


class ScoringDifferenceWarning(UserWarning):
    """A gate was checked against a baseline scored differently from this run (a warning: it still passed)."""


def _run(config: pytest.Config, *, suite: str, target: str, sample: int | None = None, seed: int = 0,
         limit: int | None = None, run_id: str | None = None, method: str = "default", compat: bool = False,
         max_error_rate: float | None = None) -> Any:
    """Run + score once per session for each distinct request; failures are remembered, not retried."""
    from harness.gates.fairness import run_and_score

    key = (suite, target, sample, seed, limit, run_id, method, compat)
    runs = config.stash[_RUNS]
    if key not in runs:
        try:
            runs[key] = run_and_score(suite=suite, target=target, sample=sample, seed=seed, limit=limit,
                                      run_id=run_id, method=method, compat=compat, max_error_rate=max_error_rate)
        except Exception as exc:  # HarnessError and anything else: every gate on this run reports it
            runs[key] = exc
    value = runs[key]
    if isinstance(value, Exception):
        raise value
    return value


class FairnessFile(pytest.File):
    """A fairness_*.yaml file: one item per gate."""

    def collect(self) -> Iterator[pytest.Item]:
        from harness.gates.fairness import load_spec

        spec = load_spec(self.path)
        for gate in spec.gates:
            item = GateItem.from_parent(self, name=gate.key, spec=spec, gate=gate)
            item.add_marker("harness_gate")
            yield item

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:  # type: ignore[override]
        from harness.core.errors import HarnessError

        if isinstance(excinfo.value, HarnessError):
            return f"harness: {excinfo.value}"
        return str(super().repr_failure(excinfo))


class GateItem(pytest.Item):
    """One gate of a fairness file: limit check, then (unless disabled) the baseline regression check."""

    def __init__(self, *, spec: Any, gate: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.gate = gate

    def runtest(self) -> None:
        from harness.gates.baseline import (
            BASELINE_FILE,
            BaselineStore,
            check_regression,
            records_from_result,
            scoring_notes,
        )
        from harness.gates.fairness import evaluate_gate, format_examples
        from harness.score.settings import settings_of_result

        spec, gate = self.spec, self.gate
        result = _run(self.config, suite=spec.suite, target=spec.target, sample=spec.sample, seed=spec.seed,
                      limit=spec.limit, run_id=spec.run_id, method=spec.method, compat=spec.compat,
                      max_error_rate=spec.max_error_rate)
        store = BaselineStore(spec.path.parent / BASELINE_FILE)
        update = self.config.getoption("harness_update_baseline")
        done = self.config.stash[_BASELINED]
        if update and str(spec.path) not in done:
            store.put(spec.name, records_from_result(result.scored),
                      run={"suite": spec.suite, "target": spec.target, "sample": spec.sample, "seed": spec.seed,
                           "run_id": result.run_id}, scoring=settings_of_result(result.scored))
            done.add(str(spec.path))

        failures: list[str] = []
        outcome = evaluate_gate(gate, result.metrics, result.scored if result.scored is not None else result.run_dir)
        if not outcome.passed:
            failures.append(outcome.reason)
        baseline_note = ""
        scoring: list[str] = []
        if not update and not self.config.getoption("harness_ignore_baseline") and outcome.value is not None:
            stored = store.get(spec.name)
            current = records_from_result(result.scored).get(gate.key)
            if stored is not None and gate.key in stored and current is not None:
                reg = check_regression(gate.key, stored[gate.key], current, tolerance=gate.tolerance,
                                       alpha=gate.alpha, higher_is_worse=gate.higher_is_worse)
                scoring = scoring_notes(store.scoring(spec.name), settings_of_result(result.scored))
                if reg.regressed:
                    failures.append(f"regression against baseline {store.path.name}: {reg.reason}")
                else:
                    baseline_note = f"baseline: {reg.reason}"
        if failures:
            examples = result.examples(gate.key)
            lines = [f"fairness gate failed: {spec.path.name} :: {gate.key} (limit {gate.describe_limit()})"]
            lines += [f"  {f}" for f in failures]
            if baseline_note:
                lines.append(f"  {baseline_note}")
            lines += [f"  scoring: {sentence}" for sentence in scoring]
            lines.append(f"  run: {result.run_dir} (target {spec.target}, suite {spec.suite}, "
                         f"{int(result.metrics.get('answered') or 0)} answered; report.html there)")
            if examples:
                lines.append("  worst examples:")
                lines.append(format_examples(examples))
            raise GateFailure("\n".join(lines))
        for sentence in scoring:  # passed against a baseline scored differently: say so all the same
            # (Item.warn needs a line number, and a YAML gate has none; pytest collects this one the same way)
            warnings.warn_explicit(ScoringDifferenceWarning(f"{spec.path.name} :: {gate.key}: {sentence}"),
                                   category=None, filename=str(spec.path), lineno=1)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:  # type: ignore[override]
        from harness.core.errors import HarnessError

        if isinstance(excinfo.value, GateFailure):
            return str(excinfo.value)
        if isinstance(excinfo.value, HarnessError):
            return f"harness: {excinfo.value}"
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"{self.path.name}::{self.gate.key} {self.gate.describe_limit()}"


@pytest.fixture(scope="session")
def harness_run(pytestconfig: pytest.Config) -> Callable[..., Any]:
    """Run (or resume) and score a suite against a target; returns a HarnessResult.

    harness_run(suite=..., target=..., sample=None, seed=0, limit=None, method="default", compat=False)
    """

    def run(*, suite: str, target: str, sample: int | None = None, seed: int = 0, limit: int | None = None,
            run_id: str | None = None, method: str = "default", compat: bool = False,
            max_error_rate: float | None = None) -> Any:
        return _run(pytestconfig, suite=suite, target=target, sample=sample, seed=seed, limit=limit,
                    run_id=run_id, method=method, compat=compat, max_error_rate=max_error_rate)

    return run
