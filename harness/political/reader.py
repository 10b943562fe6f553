"""Scoring's side of the political-bias suites: the judge reads every continuation.

The political kind names this module's reader, "political-judge" (metrics/political.py declares the
kind; `read` is registered under READER in harness.core.kinds), so harness.score.scoring hands it the
run's answered continuation probes without naming them; each gets a Verdict whose score
is the judge's P(conservative) (label conservative / liberal at 0.5, biased False: the political metrics
read the score, harness.metrics.political), or label `unscored` with the reason when the judge could not
score it. The judge is the one given (`harness run/report --judge J`: the reader declares that option,
harness.core.kinds.ReaderOption, so the command line hands it the values without knowing this reader;
they arrive loaded as ReadContext.options["political-judge"]), else the one recorded by the run's previous
scoring in metrics.json, so `harness report RUN` re-scores with the same judge (from its cache).

metrics.json gains, under "oracle": political_judge (the spec typed), political_judge.kind,
.fingerprint, .prompt_version, .limits, .texts_judged and .texts_from_cache; a note names the judge and its
limits, because every number of the family is only as good as the judge.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.core.kinds import ReadContext, ReaderOption, ReadOutcome
from harness.core.records import LABEL_UNSCORED, Probe, Reply, Verdict
from harness.run import manifest as mf

READER = "political-judge"
KEY = "political_judge"
NO_JUDGE = "no political judge was given: score the run with --judge J (docs/political.md)"


def recorded_judge(run_dir: Path) -> str | None:
    """The judge spec the run's previous scoring recorded in metrics.json, if any."""
    path = run_dir / mf.METRICS_FILE
    try:
        spec = json.loads(path.read_text("utf-8")).get("oracle", {}).get(KEY)
    except (OSError, ValueError, AttributeError):
        return None
    return spec if isinstance(spec, str) and spec else None


def take_judge(values: Sequence[str], check: bool) -> Any:
    """`--judge J` for a run read by this reader: the one judge of P(conservative) (a target, hf:CLASSIFIER
    or py:MODULE:FUNCTION), loaded and made to score one sentence before anything is generated, so a judge
    that cannot score is one sentence and exit 2, not a finished run without numbers. Without `check`
    (--dry-run) no model is loaded, but a py:MODULE:FUNCTION judge is imported and tried (it costs nothing)."""
    if len(values) > 1:
        raise ConfigError("A political suite is read by one judge; give --judge once.")
    from harness.political.judge import check_judge, load_judge

    loaded = load_judge(values[0])
    if check or loaded.kind == "callable":
        check_judge(loaded)
    return loaded


def read(pairs: Sequence[tuple[Probe, Reply]], context: ReadContext) -> ReadOutcome:
    """The registered reader: the judge is context.options[READER] (a spec or a loaded judge), else the one
    the run's last scoring recorded."""
    verdicts, oracle, notes = read_political(pairs, context.run_dir, context.options.get(READER),
                                             console=context.console)
    return ReadOutcome(verdicts, oracle, notes)


read.options = (ReaderOption("--judge", take_judge),)  # type: ignore[attr-defined]


def read_political(pairs: Sequence[tuple[Probe, Reply]], run_dir: Path, judge: Any = None, *,
                   console: Any = None) -> tuple[dict[str, Verdict], dict[str, str], list[str]]:
    """(verdicts of the continuation probes `pairs`, oracle entries for metrics.json, notes)."""
    if not pairs:
        return {}, {}, []
    from harness.political.judge import PoliticalJudge, judge_replies, load_judge

    judge = judge if judge is not None else recorded_judge(run_dir)
    if judge is None:
        verdicts = {p.id: Verdict(p.id, LABEL_UNSCORED, False, "political-judge:none", evidence=NO_JUDGE)
                    for p, _r in pairs}
        return verdicts, {}, [f"The {len(pairs)} generations were not scored: {NO_JUDGE}."]
    if not isinstance(judge, PoliticalJudge):
        judge = load_judge(str(judge))
    done = [0]

    def progress(n: int) -> None:
        done[0] += n
        if console is not None:
            console.print(f"political judge: {done[0]:,} new texts read", highlight=False)

    verdicts, info = judge_replies(pairs, judge, on_chunk=progress)
    oracle = {KEY: info["spec"], **{f"{KEY}.{k}": str(v) for k, v in info.items() if k != "spec"}}
    note = (f"Political texts were read by the judge {info['spec']} ({info['kind']}): every base rate is its "
            f"P(conservative). Its limits: {info['limits']}.")
    return verdicts, oracle, [note]
