"""Planning a run: everything decided before anything is asked.

Which suite and selection (or the ones stored in a run being resumed), which target and its defaults,
the engine settings by precedence, the run id and folder, and how many probes the selection holds.
A plan that cannot be made (an unknown suite, a misspelt filter, a resume that names another target) is a
one-sentence HarnessError, and leaves no run folder behind. harness.run.execute carries a plan out.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.adapters.base import Adapter
from harness.core.errors import HarnessError
from harness.core.records import Probe
from harness.run import manifest as mf
from harness.run.answer_modes import GENERATE, mode_for, required_mode
from harness.run.answer_modes import answer_mode as registered_mode
from harness.run.engine import EngineSettings
from harness.run.loglik import ANSWER_MODE as LOGLIK_MODE
from harness.run.perplexity import ANSWER_MODE as PERPLEXITY_MODE

if TYPE_CHECKING:  # imported where used: the registry reads TOML files, the suites their generators
    from harness.adapters.registry import TargetConfig
    from harness.question_gen.suites import Suite

# The built-in answer modes' names, for callers that name one (the modes themselves are registered objects,
# harness.run.answer_modes.ANSWER_MODES; nothing here dispatches on these names).
ANSWER_GENERATE = GENERATE
ANSWER_LOGLIK = LOGLIK_MODE
ANSWER_PERPLEXITY = PERPLEXITY_MODE  # sentence pairs scored by the model (chbias suites; harness.run.perplexity)


def _selected_estimate(suite: Suite, sample: int | None, limit: int | None, seed: int = 0) -> int | None:
    """How many probes the selection holds, for the progress bar: the generator's arithmetic count, or, when
    -p perturb / -p mutate add copies of the probes (how many depends on each probe's words), the selection
    itself counted, as --dry-run counts it (builtin-en, a 500-probe sample: 0.6 s perturbed, 0.3 s mutated)."""
    try:
        total = int(suite.count())
        if getattr(suite, "generator_spec", None) not in (None, getattr(suite, "spec", None)):
            return sum(1 for _ in select_any(suite, sample=sample, seed=seed, limit=limit, overrides={}))
    except HarnessError:
        raise  # a broken suite spec (unknown filter value, missing data): say so before anything is asked
    except Exception:  # noqa: BLE001 - a suite without a cheap count just gets an open-ended bar
        return None
    for cap in (sample, limit):
        if cap:
            total = min(total, cap)
    return total


def load_suite_any(suite: Suite | str | Path) -> Suite:
    """A Suite object, or one loaded by name/path through question_gen.suites."""
    if not isinstance(suite, str | Path):
        return suite
    from harness.question_gen.suites import load_suite  # lazy: the generators import their word lists

    return load_suite(str(suite))


def load_planned_suite(suite: Suite | str | Path, previous: dict[str, Any]) -> Suite:
    """The suite to ask; a resumed run of a suite given as a file is loaded from the file its manifest names
    (`suite_file`) when its name is no known suite (--resume of such a run said "Unknown suite"; `harness run
    --dry-run --resume` did until it planned through here too)."""
    try:
        return load_suite_any(suite)
    except HarnessError:
        path = previous.get("suite_file")
        if not (previous and suite == previous.get("suite") and isinstance(path, str) and Path(path).is_file()):
            raise
        return load_suite_any(path)


def select_any(suite: Suite | str, *, sample: int | None, seed: int, limit: int | None,
               overrides: dict[str, Any]) -> Iterator[Probe]:
    from harness.question_gen.suites import select_probes

    # typed here: the suites package lives outside harness/ (package_dir), so mypy reads its result as Any
    probes: Iterator[Probe] = select_probes(suite, sample=sample, seed=seed, limit=limit, overrides=overrides)
    return probes


@dataclass
class TargetInfo:
    """What the runner needs to know about a target besides the adapter: defaults and secret values."""

    name: str
    adapter: Adapter
    defaults: dict[str, Any] = field(default_factory=dict)  # concurrency, rpm, timeout_s from targets.toml
    secrets: tuple[str, ...] = ()


def _secret_env_names(config: TargetConfig) -> list[str]:
    """Names of the environment variables holding the target's secrets (TargetConfig.secret_env values)."""
    return [v for v in (getattr(config, "secret_env", None) or {}).values() if isinstance(v, str)]


def target_config(name: str) -> TargetConfig:
    """The TargetConfig for a target name (adapters.registry; an unknown name is a one-sentence error)."""
    from harness.adapters.registry import get_target

    return get_target(name)


def resolve_target(target: str | Adapter, overrides: dict[str, Any] | None = None, *,
                   config: TargetConfig | None = None) -> TargetInfo:
    """Create the adapter for a target name (or wrap a ready Adapter) and collect its run defaults.
    `config`: the target's TargetConfig when the caller already read it (read here otherwise)."""
    if isinstance(target, Adapter):
        return TargetInfo(name=target.name, adapter=target)
    from harness.adapters.registry import create_adapter

    config = config or target_config(target)
    adapter = create_adapter(config, **(overrides or {}))
    defaults = {}
    for key in ("concurrency", "rpm", "timeout_s"):
        value = getattr(config, key, None)
        if value is not None:
            defaults[key] = value
    batch = (getattr(config, "settings", None) or {}).get("batch_size")
    if batch:
        defaults["batch_size"] = batch
    secrets = tuple(os.environ[n] for n in _secret_env_names(config) if os.environ.get(n))
    return TargetInfo(name=target, adapter=adapter, defaults=defaults, secrets=secrets)


def required_answer_mode(suite: Suite | None) -> str | None:
    """The answer mode a suite's probes can only be answered in (its generator's ANSWER_MODE), if any:
    the chbias suites' sentence pairs are scored by perplexity, never by generated text."""
    return required_mode(suite)


def answer_mode_for(suite: Suite, asked: str) -> str:
    """The mode a run of `suite` uses when `asked` was requested (generate is also the default)."""
    return mode_for(suite, asked)


def check_capability(info: TargetInfo, answer_mode: str) -> None:
    """A target that cannot answer in this mode is refused before anything is asked or written: the mode
    says why (AnswerMode.accepts)."""
    reason = registered_mode(answer_mode).accepts(info.adapter, info.name)
    if reason:
        raise HarnessError(reason)


def check_target_kind(suite: Suite | None, target: str | Adapter, *, config: TargetConfig | None = None) -> None:
    """A suite whose generator asks one kind of target (TARGET_KIND: sgd-tod asks a task-oriented pipeline)
    refuses another in one sentence, before any model is loaded or anything asked: a chatbot would answer
    the pipeline's JSON requests as prompts, and the fairscore of that would look like a finding."""
    if suite is None or not suite.module.target_kind:  # its SuiteGenerator's (harness.core.method)
        return
    wanted = suite.module.target_kind
    if isinstance(target, Adapter):
        kind = target.kind
    else:
        from harness.adapters.registry import adapter_class

        config = config or target_config(target)
        kind = adapter_class(config.adapter, target=config).kind
    name = getattr(target, "name", target)
    if kind != wanted:
        raise HarnessError(f"Suite '{suite.name}' asks a {wanted} target, and '{name}' is a {kind} one; use "
                           f"--target tod-local, or define a {wanted} target whose steps use your chatbot "
                           f"(adapter = \"{wanted}\", chat_target = \"{name}\").")


def derived_run_id(suite_name: str, target_name: str, *, sample: int | None, seed: int, limit: int | None,
                   overrides: dict[str, Any], answer_mode: str = ANSWER_GENERATE) -> str:
    """The run id a command without --run-id gets: the same command always lands in the same folder
    (that is how rerunning resumes), and `harness run --dry-run` counts against that same folder."""
    run_id = mf.default_run_id(suite_name, target_name, sample=sample, seed=seed, limit=limit,
                               extra="-".join(f"{k}{v}" for k, v in sorted(overrides.items())))
    return run_id + registered_mode(answer_mode).run_id_suffix


def _fresh_suffix() -> str:
    return datetime.now(UTC).strftime("%Y%m%dT%H%M%S")


@dataclass
class RunPlan:
    """A run, decided: what to ask, of whom, how hard, and where it is recorded."""

    run_id: str
    run_dir: Path
    suite_name: str
    suite: Suite | None  # None when the probes come from the caller or the transcript
    target: TargetInfo
    owns_adapter: bool  # the plan created the adapter, so the run closes it
    settings: EngineSettings
    sample: int | None
    seed: int
    limit: int | None
    overrides: dict[str, Any]
    answer_mode: str
    estimate: int | None  # probes in the selection, for the progress bar (None: not cheaply known)
    previous: dict[str, Any] = field(default_factory=dict)  # manifest of the run being resumed
    resumed: bool = False
    retry_errors: bool = False
    probes_from_transcript: bool = False  # --retry-errors: the errored probes travel with their replies

    @property
    def adapter(self) -> Adapter:
        return self.target.adapter


def _same_suite(suite: str, previous: dict[str, Any]) -> bool:
    """Whether --suite names the suite of the run being resumed: its name, or the file it was read from (the
    manifest's `suite_file`; `--resume RUN --suite mine.yaml` was refused as "asked suite 'mine', not ...")."""
    if suite == previous.get("suite"):
        return True
    stored = previous.get("suite_file")
    return isinstance(stored, str) and Path(suite).is_file() and Path(suite).resolve() == Path(stored)


@dataclass(frozen=True)
class Selection:
    """What a run asks, of whom and how much: as the caller gives it, or as the manifest of the run being
    resumed stores it (the caller's suite options on top). plan_run and `harness run --dry-run` both read it,
    so a dry run counts exactly what the run would ask."""

    suite: Suite | str | Path | None
    target: str | Adapter | None
    sample: int | None
    seed: int
    limit: int | None
    overrides: dict[str, Any]
    answer_mode: str
    run_dir: Path | None = None  # the folder of the run being resumed
    previous: dict[str, Any] = field(default_factory=dict)  # its manifest

    def load_suite(self) -> Suite:
        """The suite, loaded (from the file a resumed run's manifest names when its name is no known suite)."""
        if self.suite is None:
            raise HarnessError("Say what to ask and whom: --suite NAME --target NAME (or --resume RUN).")
        return load_planned_suite(self.suite, self.previous)


def selection(suite: Suite | str | Path | None, target: str | Adapter | None, *, sample: int | None, seed: int,
              limit: int | None, overrides: dict[str, Any], answer_mode: str, resume: str | None) -> Selection:
    """The run's selection: the one given, or with `resume` the stored one (a suite or target named beside
    --resume that is not the stored one is a one-sentence error)."""
    if not resume:
        return Selection(suite, target, sample, seed, limit, dict(overrides), answer_mode)
    run_dir, previous, suite, target = _resumed_selection(resume, suite, target)
    sel = previous.get("selection", {})
    return Selection(suite, target, sel.get("sample"), sel.get("seed", 0), sel.get("limit"),
                     {**(sel.get("overrides") or {}), **overrides}, previous.get("answer_mode", answer_mode),
                     run_dir, previous)


def _resumed_selection(resume: str, suite: Suite | str | Path | None, target: str | Adapter | None,
                       ) -> tuple[Path, dict[str, Any], Suite | str | Path | None, str | Adapter | None]:
    """The run folder and manifest of a run being resumed, with its suite and target (a different one named
    on the command line is a one-sentence error)."""
    run_dir = mf.resolve_run(resume)
    previous = mf.read_manifest(run_dir)
    suite = suite or previous.get("suite")
    target = target or previous.get("target")
    if previous.get("suite") and isinstance(suite, str) and not _same_suite(suite, previous):
        raise HarnessError(f"Run {run_dir.name} asked suite '{previous['suite']}', not '{suite}'; "
                           "drop --suite or start a new run.")
    if previous.get("target") and isinstance(target, str) and target != previous["target"]:
        raise HarnessError(f"Run {run_dir.name} asked target '{previous['target']}', not '{target}'; "
                           "drop --target or start a new run.")
    return run_dir, previous, suite, target


def engine_settings(info: TargetInfo, engine: EngineSettings | None,
                    engine_overrides: dict[str, Any] | None) -> EngineSettings:
    """Precedence: explicit overrides (CLI flags) > an explicit EngineSettings > the target's defaults
    (targets.toml: concurrency, rpm, timeout_s, batch_size) > EngineSettings' own defaults."""
    settings = engine or EngineSettings()
    merged = {**({} if engine else info.defaults),
              **{k: v for k, v in (engine_overrides or {}).items() if v is not None}}
    if merged:
        known = set(EngineSettings.__dataclass_fields__)
        settings = EngineSettings(**{**asdict(settings), **{k: v for k, v in merged.items() if k in known}})
    return settings


def plan_run(suite: Suite | str | Path | None = None, target: str | Adapter | None = None, *, has_probes: bool = False,
             sample: int | None = None, seed: int = 0, limit: int | None = None,
             overrides: dict[str, Any] | None = None, run_id: str | None = None, new: bool = False,
             resume: str | None = None, retry_errors: bool = False, engine: EngineSettings | None = None,
             engine_overrides: dict[str, Any] | None = None, target_overrides: dict[str, Any] | None = None,
             answer_mode: str = ANSWER_GENERATE) -> RunPlan:
    """Decide a run (see harness.run.execute.run_suite for the arguments); nothing is asked or written.

    `has_probes`: the caller passes the probes itself, so the suite is only a name for the manifest.
    """
    registered_mode(answer_mode)  # an unknown mode: one sentence naming those --answer-mode takes
    chosen = selection(suite, target, sample=sample, seed=seed, limit=limit, overrides=overrides or {},
                       answer_mode=answer_mode, resume=resume)
    suite, target, sample, seed, limit = chosen.suite, chosen.target, chosen.sample, chosen.seed, chosen.limit
    overrides, answer_mode, previous, run_dir = chosen.overrides, chosen.answer_mode, chosen.previous, chosen.run_dir
    if run_dir is not None:
        run_id = run_dir.name
    if suite is None or target is None:
        raise HarnessError("Say what to ask and whom: --suite NAME --target NAME (or --resume RUN).")

    # --retry-errors takes the errored probes from the transcript (they travel with their replies), so a
    # resumed run need not load or regenerate its suite at all.
    from_transcript = retry_errors and not has_probes
    suite_obj = None if (has_probes or (from_transcript and resume)) else load_planned_suite(suite, previous)
    suite_name = getattr(suite_obj, "name", None) or (str(suite) if suite is not None else "custom")
    if suite_obj is not None:
        answer_mode = answer_mode_for(suite_obj, answer_mode)
    # the target's configuration, read once for the whole plan (its kind, its adapter, its defaults)
    config = target_config(target) if isinstance(target, str) else None
    check_target_kind(suite_obj, target, config=config)
    info = resolve_target(target, target_overrides, config=config)
    check_capability(info, answer_mode)
    settings = engine_settings(info, engine, engine_overrides)
    if not run_id:
        run_id = derived_run_id(suite_name, info.name, sample=sample, seed=seed, limit=limit,
                                overrides=overrides, answer_mode=answer_mode)
        if new:
            run_id += f"__{_fresh_suffix()}"
    # Counted before the run folder exists: a suite that cannot be generated (a misspelt attribute filter)
    # is a one-sentence error that leaves no empty run folder behind.
    estimate = None
    if suite_obj is not None:
        with_overrides = getattr(suite_obj, "with_overrides", None)
        counted = with_overrides(**overrides) if (overrides and with_overrides) else suite_obj
        estimate = _selected_estimate(counted, sample, limit, seed)
    return RunPlan(run_id=run_id, run_dir=run_dir or mf.run_dir_for(run_id), suite_name=suite_name,
                   suite=suite_obj, target=info, owns_adapter=not isinstance(target, Adapter),
                   settings=settings, sample=sample, seed=seed, limit=limit, overrides=overrides,
                   answer_mode=answer_mode, estimate=estimate, previous=previous, resumed=bool(resume),
                   retry_errors=retry_errors, probes_from_transcript=from_transcript)
