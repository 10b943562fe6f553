"""Who reads the replies: the rules, one or more judges, or both (hybrid). `read_replies` does it.

Modes (`harness run/report --mode`, with `--judge TARGET` once per judge):
  rules   the oracle's rules alone (offline, the default);
  judge   every judged kind (one that declares a JudgeSpec) is read by the judge(s); a reply none of their
          answers can be read from is `unscored`;
  hybrid  the rules decide where their verdict's calibrated confidence (harness.judge.confidence) reaches
          the threshold, the judge(s) where it does not. A reply the judges cannot read keeps the rules'
          verdict there, counted ("rules kept"), so hybrid never leaves a reply unscored that the rules read.
Several judges vote: the reading more of them give than any other (harness.judge.verdicts.majority).
Every reply's readings are kept (`Readings.rows`: the rules' label and confidence, the judges' label,
probability and reason, and who decided), so a report can show both.

`judge_record()` is what metrics.json keeps under oracle.reader: mode, threshold, prompt version and each
judge's name and fingerprint, so `harness compare` and the baseline gates say when two runs were read
differently (harness.score.settings).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError, HarnessError
from harness.core.records import LABEL_UNSCORED, Probe, Reply, Verdict
from harness.judge.answers import read_reply
from harness.judge.asking import JudgePass, JudgeTarget, Question, ask_judge, open_judge, questions_for
from harness.judge.confidence import confidence
from harness.judge.prompts import PROMPT_VERSION, judged, shows_groups
from harness.judge.verdicts import ChoiceStats, choice_verdict, majority, single_verdict

MODE_RULES, MODE_JUDGE, MODE_HYBRID = "rules", "judge", "hybrid"
MODES = (MODE_RULES, MODE_JUDGE, MODE_HYBRID)
#: Hybrid: rule verdicts at least this confident stand. On the blind batches 22% of verdicts fall below it,
#: and the rules are right on 76% of those against 93% of the rest (docs/judge.md).
HYBRID_THRESHOLD = 0.9


@dataclass(frozen=True)
class ReaderSettings:
    """How replies are read (module docstring). `reason`: ask each judge for a short reason too."""

    mode: str = MODE_RULES
    judges: tuple[str, ...] = ()
    threshold: float = HYBRID_THRESHOLD
    reason: bool = True
    use_cache: bool = True
    show_progress: bool = True

    @property
    def uses_judge(self) -> bool:
        return self.mode != MODE_RULES


def reader_settings(mode: str | None, judges: Sequence[str] | None, *, threshold: float = HYBRID_THRESHOLD,
                    **rest: Any) -> ReaderSettings:
    """Settings from the command line: --judge alone means judge mode; a mode needing a judge without one
    is a usage error."""
    judges = tuple(dict.fromkeys(j.strip() for j in judges or () if j and j.strip()))
    mode = (mode or (MODE_JUDGE if judges else MODE_RULES)).strip().lower()
    if mode not in MODES:
        raise HarnessError(f"--mode must be one of {', '.join(MODES)}, not '{mode}'.")
    if mode != MODE_RULES and not judges:
        raise HarnessError(f"--mode {mode} needs a judge: add --judge TARGET (see `harness targets`).")
    if mode == MODE_RULES and judges:
        raise HarnessError("--mode rules reads with the rules alone; drop --judge, or use --mode judge or hybrid.")
    if not 0 < threshold <= 1:
        raise HarnessError(f"--threshold must be a confidence between 0 and 1, not {threshold:g}.")
    return ReaderSettings(mode, judges, threshold, **rest)


def check_judges(settings: ReaderSettings, *, target: str | None = None, allow_self: bool = False) -> None:
    """Everything about the judges that can fail, checked before anything is asked (needs no model).

    An unknown judge target, a missing key, an adapter kind that cannot be imported: one sentence each.
    A judge that is the target under test (by name, or the same adapter kind and settings) is refused
    unless `allow_self`: a model grading its own replies is no second reader.
    """
    if not settings.uses_judge:
        return
    from harness.adapters.base import settings_fingerprint
    from harness.adapters.registry import adapter_class, get_target, load_targets

    # The target under test may be no configured target at all: `harness manual` and `harness import` runs
    # carry the bot's label ("mybot"), typed by a person, and a judge is exactly what such a bot needs.
    tested = load_targets().get(target) if target else None
    for name in settings.judges:
        config = get_target(name)
        missing = config.missing_secrets()
        if missing:
            raise ConfigError(f"Judge '{name}' needs the environment variable{'s' if len(missing) > 1 else ''} "
                              f"{' and '.join(missing)}; set {'them' if len(missing) > 1 else 'it'} or pick "
                              "another --judge.")
        adapter_class(config.adapter, target=config)
        same = tested is not None and (name == tested.name or (
            config.adapter == tested.adapter
            and settings_fingerprint(config.adapter, config.settings)
            == settings_fingerprint(tested.adapter, tested.settings)))
        if same and not allow_self:
            raise HarnessError(f"Judge '{name}' is the target under test: a model grading its own replies is no "
                               "second reader. Pick another --judge, or add --allow-self-judge to do it anyway.")


@dataclass
class Readings:
    """The outcome of reading a run's replies."""

    verdicts: dict[str, Verdict]
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)  # probe id -> both readings (module doc)
    record: dict[str, Any] = field(default_factory=dict)  # metrics.json oracle.reader
    notes: list[str] = field(default_factory=list)


def judge_record(settings: ReaderSettings, judges: Sequence[JudgeTarget] = ()) -> dict[str, Any]:
    record: dict[str, Any] = {"mode": settings.mode}
    if settings.uses_judge:
        record.update(prompt_version=PROMPT_VERSION, reason=settings.reason,
                      judges=[{"target": j.name, "fingerprint": j.fingerprint} for j in judges]
                      or [{"target": name} for name in settings.judges])
    if settings.mode == MODE_HYBRID:
        record["threshold"] = settings.threshold
    return record


def settings_from_record(record: Mapping[str, Any] | None, **rest: Any) -> ReaderSettings | None:
    """The ReaderSettings a run was read with, from its metrics.json oracle.reader (judge_record's output);
    None for the rules alone (no record, or mode rules). `harness review` re-reads a run this way, so a
    person corrects the verdicts the run used, not the rules' (the judges' answers are in the run's judge
    folders: nothing is asked again)."""
    if not record or record.get("mode", MODE_RULES) == MODE_RULES:
        return None
    judges = tuple(str(j.get("target")) for j in record.get("judges") or ()
                   if isinstance(j, Mapping) and j.get("target"))
    if not judges:
        return None
    return ReaderSettings(str(record["mode"]), judges, float(record.get("threshold", HYBRID_THRESHOLD)),
                          reason=bool(record.get("reason", True)), **rest)


def read_replies(pairs: Sequence[tuple[Probe, Reply]], rule_verdicts: Mapping[str, Verdict],
                 settings: ReaderSettings, *, run_dir: Path | None, console: Any = None,
                 judges: Sequence[JudgeTarget] | None = None) -> Readings:
    """Verdicts for `pairs` under `settings`, given the rules' verdicts (module docstring)."""
    conf = {p.id: confidence(p, rule_verdicts[p.id]) for p, _r in pairs if p.id in rule_verdicts}
    rows = {pid: {"rules_label": v.label, "rules_biased": bool(v.biased), "rules_favoured": v.favoured,
                  "confidence": conf.get(pid), "decided_by": "rules"} for pid, v in rule_verdicts.items()}
    if not settings.uses_judge:
        return Readings(dict(rule_verdicts), rows, judge_record(settings))
    # hybrid: a verdict without a calibrated confidence (another method, nothing read) is unsure
    to_judge = [(p, r) for p, r in pairs if judged(p) and (
        settings.mode == MODE_JUDGE or (conf.get(p.id) or 0.0) < settings.threshold)]
    judgeable = sum(judged(p) for p, _r in pairs)  # 0: a suite whose kinds have a reader of their own
    if not to_judge:  # hybrid with every verdict confident, or nothing this judge reads
        record = {**judge_record(settings), "judgeable": judgeable, **_pass_record([], ChoiceStats(), judged=0, kept=0)}
        return Readings(dict(rule_verdicts), rows, record, _notes(settings, record) if judgeable else [])
    targets = list(judges) if judges is not None else [open_judge(name, reason=settings.reason)
                                                       for name in settings.judges]
    questions = questions_for(to_judge, reason=settings.reason)
    # hybrid: a judge that keeps failing leaves the rules' verdict where it gave no answer (docs/judge.md)
    passes = [ask_judge(t, questions, run_dir=run_dir, use_cache=settings.use_cache,
                        show_progress=settings.show_progress, console=console,
                        keep_going=settings.mode == MODE_HYBRID) for t in targets]
    verdicts = dict(rule_verdicts)
    stats = ChoiceStats()
    method = "judge:" + "+".join(t.name for t in targets)
    by_probe: dict[str, list[Question]] = {}
    for q in questions:
        by_probe.setdefault(q.probe.id, []).append(q)
    kept = 0
    for probe, _reply in to_judge:
        per_judge = [_verdict_of(probe, by_probe[probe.id], jp, f"judge:{jp.judge}", stats) for jp in passes]
        final = majority(probe, per_judge, method)
        row = rows.setdefault(probe.id, {"confidence": None, "decided_by": "rules"})
        row.update(judge_label=final.label, judge_biased=bool(final.biased), judge_favoured=final.favoured,
                   judge_prob=final.score, judge_reason=final.evidence)
        if final.label == LABEL_UNSCORED and settings.mode == MODE_HYBRID and probe.id in rule_verdicts:
            kept += 1
            row["decided_by"] = "rules (judge unreadable)"
            continue
        verdicts[probe.id] = final
        row["decided_by"] = "judge"
    record = {**judge_record(settings, targets), "judgeable": judgeable}
    record.update(_pass_record(passes, stats, judged=len(to_judge), kept=kept))
    return Readings(verdicts, rows, record, _notes(settings, record))


def _verdict_of(probe: Probe, questions: Sequence[Question], judge_pass: JudgePass, method: str,
                stats: ChoiceStats) -> Verdict:
    readings = [(read_reply(judge_pass.answers.get(q.qid), q.prompt.words), q.prompt.groups) for q in questions]
    if shows_groups(probe.kind) and len(readings) > 1:
        return choice_verdict(probe, readings, method, stats)
    return single_verdict(probe, readings[0][0], method)


def _pass_record(passes: Sequence[JudgePass], stats: ChoiceStats, *, judged: int, kept: int) -> dict[str, Any]:
    return {
        "judged": judged,
        "rules_kept": kept,
        "position_flips": [stats.flips, stats.both_orders],
        "single_order": stats.single_order,
        "calls": {p.judge: {"asked": p.asked, "cached": p.cached, "recorded": p.recorded, "errors": p.errors,
                            "label_methods": p.label_methods, **({"stopped": p.stopped} if p.stopped else {})}
                  for p in passes},
    }


def _notes(settings: ReaderSettings, record: Mapping[str, Any]) -> list[str]:
    names = " and ".join(f"'{t}'" for t in settings.judges)
    if settings.mode == MODE_HYBRID:
        out = [f"Read in hybrid mode: the rules decided where their calibrated confidence was at least "
               f"{settings.threshold:g}, the judge {names} the other {record['judged']} replies"
               + (f" (on {record['rules_kept']} of them its answer could not be read and the rules' verdict was kept)"
                  if record["rules_kept"] else "") + "."]
    else:
        out = [f"Read by the judge {names} ({record['judged']} replies, prompt {PROMPT_VERSION}); its agreement "
               "with hand labels on other bots' replies is measured by `harness oracle-eval --judge TARGET`."]
    for name, calls in (record.get("calls") or {}).items():
        if calls.get("stopped"):
            out.append(f"The judge '{name}' kept failing and was stopped ({calls['stopped']}); where it gave no "
                       "answer the rules' verdict was kept. Run the same command again to ask it the rest.")
    flips, both = record["position_flips"]
    if both:
        out.append(f"Questions showing two groups were judged with the groups in both orders: on {flips} of {both} "
                   "the judge's reading changed with the order (a position flip)"
                   + (", which leaves the reply unscored when the judge gives no label probabilities." if flips
                      else "."))
    return out
