"""`harness run`'s options: one Annotated type per command-line option, and RunOptions, the frozen object the
command builds from them once and passes down its stages (plan, ask, score and report, gate).

Why a module of its own: the option declarations are a hundred lines of help text that made `run_command` 148
lines long with 30 parameters (issue 37); the stages then took a dozen keyword arguments each. Here the parsing
and the checks that need no suite, target or model (-p pairs, the gates, the answer mode's name, gates with
--no-report) happen once, and every stage reads the same typed fields. Light to import: `harness --help` imports
this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any

import typer

from harness.cli.options import parse_pairs
from harness.core.errors import HarnessError
from harness.run.answer_modes import GENERATE as ANSWER_GENERATE

#: harness.gates.checks.DEFAULT_MAX_ERROR_RATE (a test holds them equal); not imported: 40 ms at every start-up
DEFAULT_MAX_ERROR_RATE = 0.1

_ASK = "What to ask"
_PUSH = "How hard to push the target"
_FOLDER = "Run folder and resume"
_SCORE = "Scoring and gates"

SuiteOption = Annotated[str | None, typer.Option(
    "--suite", "-s", metavar="NAME", rich_help_panel=_ASK, help="Suite name (see `harness suites`) or YAML path.")]
TargetOption = Annotated[str | None, typer.Option(
    "--target", "-t", metavar="NAME", rich_help_panel=_ASK, help="Target name (see `harness targets`).")]
SampleOption = Annotated[int | None, typer.Option(
    metavar="N", rich_help_panel=_ASK, help="Ask a deterministic random sample of N probes.", min=1)]
SeedOption = Annotated[int, typer.Option(
    metavar="S", rich_help_panel=_ASK, help="Seed for --sample (same seed, same probes, every machine).")]
LimitOption = Annotated[int | None, typer.Option(
    metavar="N", rich_help_panel=_ASK, help="Ask at most the first N selected probes.", min=1)]
ParamOption = Annotated[list[str] | None, typer.Option(
    "--param", "-p", metavar="KEY=VALUE", rich_help_panel=_ASK,
    help="Suite option KEY=VALUE (repeatable), e.g. per_category=5.")]
PerCategoryOption = Annotated[int | None, typer.Option(
    "--per-category", metavar="N", rich_help_panel=_ASK,
    help="CBBQ: N questions per category and context, drawn with --seed (same as -p per_category=N -p seed=S).",
    min=1)]
ConcurrencyOption = Annotated[int | None, typer.Option(
    metavar="N", rich_help_panel=_PUSH, help="Requests in flight at once (default: the target's, else 8).", min=1)]
RpmOption = Annotated[float | None, typer.Option(
    metavar="N", rich_help_panel=_PUSH, help="At most this many requests per minute.", min=0.001)]
TimeoutOption = Annotated[float | None, typer.Option(
    metavar="SECONDS", rich_help_panel=_PUSH, help="Seconds to wait for one answer before retrying.", min=0.001)]
MaxAttemptsOption = Annotated[int | None, typer.Option(
    metavar="N", rich_help_panel=_PUSH, help="Attempts per probe before it is recorded as an error.", min=1)]
MaxReplyCharsOption = Annotated[int | None, typer.Option(
    metavar="N", rich_help_panel=_PUSH, help="Cut longer replies to N characters, marked as cut "
                                             "(default 65536; 0: no cap).", min=0)]
RunIdOption = Annotated[str | None, typer.Option(
    "--run-id", metavar="RUN", rich_help_panel=_FOLDER,
    help="Name of the run folder (default: from suite, target and selection).")]
NewOption = Annotated[bool, typer.Option(
    "--new", metavar="", rich_help_panel=_FOLDER, help="Start a fresh run even if this command ran before.")]
ResumeOption = Annotated[str | None, typer.Option(
    metavar="RUN", rich_help_panel=_FOLDER, help="Continue run RUN (id or folder) with its stored selection.")]
RetryErrorsOption = Annotated[bool, typer.Option(
    "--retry-errors", metavar="", rich_help_panel=_FOLDER, help="Ask again only the probes that ended in an error.")]
NoCacheOption = Annotated[bool, typer.Option(
    "--no-cache", metavar="", rich_help_panel=_PUSH, help="Ask the target even when the answer is cached.")]
DryRunOption = Annotated[bool, typer.Option(
    "--dry-run", metavar="", rich_help_panel=_ASK, help="Count probes, tokens and cost; ask nothing.")]
AnswerModeOption = Annotated[str, typer.Option(
    metavar="MODE", rich_help_panel=_ASK,
    help="generate (or text), or loglik (CBBQ on hf targets: pick the likeliest option). The chbias suites are "
         "always scored by perplexity (hf targets).")]
MethodOption = Annotated[str, typer.Option(
    metavar="METHOD", rich_help_panel=_SCORE,
    help="Oracle method: default, ngram, word_cosine, ngram_embedding, rome or sentence.")]
CompatOption = Annotated[bool, typer.Option(
    "--compat", metavar="", rich_help_panel=_SCORE, help="Score exactly as the upstream code does.")]
NoReportOption = Annotated[bool, typer.Option(
    "--no-report", metavar="", rich_help_panel=_SCORE, help="Skip scoring and the report folder.")]
FailAboveOption = Annotated[list[str] | None, typer.Option(
    "--fail-above", metavar="METRIC=VALUE", rich_help_panel=_SCORE,
    help="Gate METRIC=VALUE (repeatable): exit 1 if the metric is above VALUE.")]
FailBelowOption = Annotated[list[str] | None, typer.Option(
    "--fail-below", metavar="METRIC=VALUE", rich_help_panel=_SCORE,
    help="Gate METRIC=VALUE (repeatable): exit 1 if the metric is below VALUE (a metric where lower is worse, "
         "such as a ratio of selection rates).")]
MaxErrorRateOption = Annotated[float, typer.Option(
    metavar="RATE", rich_help_panel=_SCORE, help="Exit 3 if more than this share of probes ended in errors.",
    min=0.0, max=1.0)]
ProgressOption = Annotated[bool, typer.Option(
    "--progress/--no-progress", metavar="", rich_help_panel=_FOLDER, help="Show the live progress bar.")]
JudgeOption = Annotated[list[str] | None, typer.Option(
    "--judge", metavar="TARGET", rich_help_panel=_SCORE,
    help="A target that reads the replies too (repeatable: majority of judges); docs/judge.md. Political suites: "
         "the one judge of P(conservative), a target, hf:CLASSIFIER or py:MODULE:FUNCTION; docs/political.md.")]
ModeOption = Annotated[str | None, typer.Option(
    "--mode", metavar="MODE", rich_help_panel=_SCORE,
    help="Who reads the replies: rules (default), judge (default with --judge) or hybrid.")]
ThresholdOption = Annotated[float | None, typer.Option(
    "--threshold", metavar="C", rich_help_panel=_SCORE,
    help="Hybrid: rule verdicts at least this confident stand (default 0.9).")]
AllowSelfJudgeOption = Annotated[bool, typer.Option(
    "--allow-self-judge", metavar="", rich_help_panel=_SCORE, help="Let the target under test judge its own replies.")]
DefaultGatesOption = Annotated[bool, typer.Option(
    "--default-gates", metavar="", rich_help_panel=_SCORE,
    help="Also apply the default gates of the run's probe kinds (e.g. the decision kind's four-fifths gate); "
         "docs/ci_gates.md.")]


@dataclass(frozen=True)
class RunOptions:
    """Everything `harness run` was told, parsed and checked once (RunOptions.from_cli). Frozen: a stage that
    decides something (the answer mode a suite needs) makes a new one with dataclasses.replace."""

    # what to ask
    suite: str | None = None
    target: str | None = None
    sample: int | None = None
    seed: int = 0
    limit: int | None = None
    params: dict[str, Any] = field(default_factory=dict)  # the suite options (-p, --per-category); never mutated
    answer_mode: str = ANSWER_GENERATE
    dry_run: bool = False
    # how hard to push the target
    concurrency: int | None = None
    rpm: float | None = None
    timeout: float | None = None
    max_attempts: int | None = None
    max_reply_chars: int | None = None
    no_cache: bool = False
    # run folder and resume
    run_id: str | None = None
    new: bool = False
    resume: str | None = None
    retry_errors: bool = False
    progress: bool = True
    # scoring and gates
    method: str = "default"
    compat: bool = False
    no_report: bool = False
    gates: tuple[Any, ...] = ()  # harness.gates.checks.Gate: --fail-above's, then --fail-below's
    use_default_gates: bool = False
    max_error_rate: float = DEFAULT_MAX_ERROR_RATE
    judge: tuple[str, ...] = ()
    mode: str | None = None
    threshold: float | None = None
    allow_self_judge: bool = False

    @classmethod
    def from_cli(cls, *, param: list[str] | None = None, per_category: int | None = None,
                 fail_above: list[str] | None = None, fail_below: list[str] | None = None,
                 judge: list[str] | None = None, **fields: Any) -> RunOptions:
        """The options from typer's values: -p pairs read as YAML scalars, --per-category folded into them
        (seeded by --seed unless -p seed= says otherwise), the gates parsed, "text" read as generate; a
        misspelt answer mode or gates with --no-report is one sentence (exit 2) before anything is loaded."""
        from harness.run.answer_modes import selectable_modes

        asked = fields.pop("answer_mode", ANSWER_GENERATE)
        mode = ANSWER_GENERATE if asked == "text" else asked  # "text" reads naturally too
        if mode not in (selectable := selectable_modes()):  # the registered modes a user may pick
            raise HarnessError(f"--answer-mode must be {' or '.join(selectable)}, not '{asked}'.")
        params = parse_pairs(param, "--param")
        if per_category is not None:  # the CBBQ suites' own sampling
            params.setdefault("per_category", per_category)
            params.setdefault("seed", fields.get("seed", 0))
        opts = cls(params=params, gates=_gates(fail_above, fail_below), judge=tuple(judge or ()), answer_mode=mode,
                   **fields)
        if (opts.gates or opts.use_default_gates) and opts.no_report:
            raise HarnessError("--fail-above, --fail-below and --default-gates need the scores; drop --no-report.")
        return opts

    def replace(self, **changes: Any) -> RunOptions:
        """A copy with `changes` (dataclasses.replace, named here so callers need not import it)."""
        from dataclasses import replace

        return replace(self, **changes)

    @property
    def fresh(self) -> bool:
        """Whether the run starts in a fresh folder: --new, which a resumed run ignores (its folder is named)."""
        return self.new and not self.resume

    def engine_overrides(self) -> dict[str, Any]:
        """The engine settings the command line sets (None: the target's or the engine's default)."""
        return {"concurrency": self.concurrency, "rpm": self.rpm, "timeout_s": self.timeout,
                "max_attempts": self.max_attempts, "max_reply_chars": self.max_reply_chars}


def _gates(fail_above: list[str] | None, fail_below: list[str] | None) -> tuple[Any, ...]:
    """The --fail-above / --fail-below gates, parsed (harness.gates.checks imported only when there are some: a
    run without gates does not pay for it before its first request)."""
    if not fail_above and not fail_below:
        return ()
    from harness.gates.checks import parse_gates  # both directions

    return tuple(parse_gates(fail_above, fail_below))
