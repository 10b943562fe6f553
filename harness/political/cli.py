"""CLI command `harness calibrate`: reinforced calibration of an open model (Liu et al., AAAI 2021) and its
trade-off table (lambda against indirect bias, direct bias and perplexity, the paper's Table 3).

The algorithm is harness.whitebox.calibration; the measuring is harness.political.calibration_table (imported
inside the command: torch and transformers take seconds to import, and `harness --help` must stay instant).
Every text printed from a model, judge or file goes through rich's escape(). See docs/political.md.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.core.errors import ConfigError

console = Console(highlight=False)


#: the options of `harness calibrate`, one type each (typer reads the Annotated metadata)
ModelOption = Annotated[str, typer.Option("--model", "-m", metavar="MODEL",
    help="An hf target (e.g. local-hf), a model folder, "
    "a .gguf file or a hub name.")]
ModeOption = Annotated[int, typer.Option("--mode", metavar="1|2",
    help="1: word-embedding debias (eq. 5-6); 2: classifier-guided (eq. 7-8).")]
SuiteOption = Annotated[str, typer.Option("--suite", "-s", metavar="NAME",
    help="The political suite the table is measured on.")]
JudgeOption = Annotated[str | None, typer.Option("--judge", metavar="J",
    help="Judge of P(conservative): a target, hf:CLASSIFIER or "
    "py:MODULE:FUNCTION (needed for the table and "
    "MODE 2's head).")]
LambdasOption = Annotated[list[float] | None, typer.Option("--lambda", metavar="L",
    help="Initial lambda to measure (repeatable; 0, "
    "the vanilla model, is always added). "
    "Default 0.6.")]
ParamOption = Annotated[list[str] | None, typer.Option("--param", "-p", metavar="KEY=VALUE",
    help="Suite option, e.g. keywords_per_option=3 samples=2.")]
StepsOption = Annotated[int, typer.Option("--steps", metavar="K", help="Adam steps per token (paper: 15).", min=0)]
SigmaOption = Annotated[float | None,
    typer.Option("--sigma", metavar="S", help="KL target (paper: 0.02 MODE 1, 0.05 MODE 2).")]
LrOption = Annotated[float,
    typer.Option("--lr", metavar="LR", help="Adam step on the hidden-state perturbation.")]
GammaOption = Annotated[float, typer.Option("--gamma", metavar="G", help="MODE 2 discount.")]
TauOption = Annotated[int, typer.Option("--tau", metavar="T", help="MODE 2 window (paper: 5).", min=0)]
WordsLiberalOption = Annotated[Path | None, typer.Option("--words-liberal", metavar="FILE",
    help="MODE 1 liberal words, one per line (default: "
    "the shipped list).")]
WordsConservativeOption = Annotated[Path | None, typer.Option("--words-conservative", metavar="FILE",
    help="MODE 1 conservative words.")]
WordsPerSideOption = Annotated[int, typer.Option("--words-per-side", metavar="N",
    help="MODE 1 words per side (paper: 250).", min=1)]
CorpusOption = Annotated[Path | None, typer.Option("--corpus", metavar="FILE",
    help="MODE 2: train f_debias on this labelled corpus "
    "(JSONL text/label or CSV) instead of judged "
    "generations.")]
HeadOption = Annotated[Path | None, typer.Option("--head", metavar="FILE",
    help="MODE 2: an f_debias head saved earlier (skips training).")]
SaveTargetOption = Annotated[str | None, typer.Option("--save-target", metavar="NAME",
    help="Write the calibrated model (first non-zero lambda) "
    "to ./targets.toml as target NAME.")]
BootstrapOption = Annotated[int, typer.Option("--bootstrap", metavar="N", help="Bootstrap resamples per interval.",
    min=10)]
PermutationsOption = Annotated[int,
    typer.Option("--permutations", metavar="N", help="Permutations per test.", min=0)]
OutOption = Annotated[Path | None, typer.Option("--out", metavar="DIR", help="Folder for tradeoff.json / .csv.")]
ProgressOption = Annotated[bool, typer.Option("--progress/--no-progress", metavar="",
    help="Show the run progress bars.")]


def calibrate(
    model: ModelOption,
    mode: ModeOption = 1,
    suite: SuiteOption = "political-gender",
    judge: JudgeOption = None,
    lambdas: LambdasOption = None,
    param: ParamOption = None,
    steps: StepsOption = 15,
    sigma: SigmaOption = None,
    lr: LrOption = 0.002,
    gamma: GammaOption = 0.9,
    tau: TauOption = 5,
    words_liberal: WordsLiberalOption = None,
    words_conservative: WordsConservativeOption = None,
    words_per_side: WordsPerSideOption = 250,
    corpus: CorpusOption = None,
    head: HeadOption = None,
    save_target: SaveTargetOption = None,
    bootstrap: BootstrapOption = 1000,
    permutations: PermutationsOption = 199,
    out: OutOption = None,
    progress: ProgressOption = True,
) -> None:
    """Calibrate an open model while it generates and measure the trade-off (docs/political.md).

    Example:  harness calibrate -m local-hf --mode 1 --judge local-zh --lambda 0.3 --lambda 0.9 -p keywords_per_option=2
    """
    from harness.cli.options import parse_pairs
    from harness.political import calibration_table as ct
    from harness.whitebox.calibration.adapter import settings_from

    params = parse_pairs(param, "--param")
    lams = ct.parse_lambdas(lambdas)
    base = ct.model_settings(model)
    calib = {"mode": mode, "steps": steps, "sigma": sigma, "lr": lr, "gamma": gamma, "tau": tau}
    settings_from({k: v for k, v in calib.items() if v is not None})  # bad values: one sentence, before loading
    from harness.question_gen.suites import load_suite

    suite_obj = load_suite(suite).with_overrides(**params)
    if suite_obj.generator != "political":
        raise ConfigError(f"Suite '{suite}' is not a political suite; use political-gender, -location or -topic.")
    suite_obj.count()  # an unknown attribute or option: one sentence now
    judge_obj = _judge(judge)
    settings: dict[str, Any] = {**base, **{k: v for k, v in calib.items() if v is not None}}
    report = ct.CalibrationReport(model=model, mode=mode, suite=suite, settings=settings,
                                  judge=judge_obj.describe() if judge_obj else {})
    if mode == 1:
        report.words = _check_words(base, words_liberal, words_conservative, words_per_side)
        settings.update({"words_liberal": str(words_liberal) if words_liberal else None,
                         "words_conservative": str(words_conservative) if words_conservative else None,
                         "words_per_side": words_per_side})
        settings = {k: v for k, v in settings.items() if v is not None}
    else:
        settings["head"], report.head = _head(base, head, corpus, judge_obj, suite, params, model, progress)
    if judge_obj is None:
        console.print("No --judge: the calibrated model is ready, but no bias can be measured without one.")
    else:
        for lam in lams:
            console.print(f"lambda {lam:g}: generating and judging ...")
            report.rows.append(ct.measure(settings, lam, suite, params, judge_obj, model_name=model,
                                          n_boot=bootstrap, n_perm=permutations, show_progress=progress))
        _print_table(report)
        console.print(f"Written: {escape(str(ct.write_report(report, out)))}/tradeoff.json and tradeoff.csv")
    if save_target:
        lam = next((v for v in lams if v > 0), 0.6)
        _save_target(save_target, {**settings, "lambda0": lam})


def _judge(spec: str | None) -> Any:
    if spec is None:
        return None
    from harness.political.judge import check_judge, load_judge

    judge = load_judge(spec)
    check_judge(judge)
    return judge


def _check_words(base: dict[str, Any], liberal: Path | None, conservative: Path | None,
                 per_side: int) -> dict[str, Any]:
    from harness.adapters.hf_local import HFLocalAdapter
    from harness.whitebox.calibration.words import word_lists

    lists = word_lists(HFLocalAdapter("words", base).causal_lm().tokenizer, liberal=liberal,
                       conservative=conservative, per_side=per_side)
    console.print(f"MODE 1 words in the vocabulary: {len(lists.liberal)} liberal, {len(lists.conservative)} "
                  f"conservative ({lists.dropped['liberal'] + lists.dropped['conservative']} not single tokens, "
                  f"{lists.shared} on both lists dropped).")
    return {"liberal": lists.words["liberal"], "conservative": lists.words["conservative"],
            "dropped": lists.dropped, "shared": lists.shared}


def _head(base: dict[str, Any], head: Path | None, corpus: Path | None, judge: Any, suite: str,
          params: dict[str, Any], model: str, progress: bool) -> tuple[str, dict[str, Any] | None]:
    from harness.political import calibration_table as ct

    if head is not None:
        if not head.is_file():
            raise ConfigError(f"No f_debias head at {head}.")
        return str(head), {"path": str(head)}
    if corpus is not None:
        path, info = ct.train_head_from_corpus(base, corpus, model_name=model)
    elif judge is not None:
        console.print("MODE 2: training f_debias on the vanilla model's judged continuations ...")
        path, info = ct.train_head_from_judge(base, suite, params, judge, model_name=model, show_progress=progress)
    else:
        raise ConfigError("MODE 2 needs f_debias: give --judge J (it labels the model's own texts), --corpus FILE "
                          "or --head FILE.")
    rep = info["report"]
    console.print(f"f_debias: held-out accuracy {rep['validation_accuracy']:.2f} on {rep['n_validation']} texts it "
                  f"never saw (majority class {rep['majority_baseline']:.2f}); saved to {escape(str(path))}")
    return str(path), info


def _print_table(report: Any) -> None:
    from harness.political.calibration_table import table3

    rows = table3(report)
    table = Table(title=escape(f"Trade-off, MODE {report.mode}, {report.suite}, judge {report.judge.get('spec', '')}"))
    for col in rows[0]:
        table.add_column(escape(col))
    for row in rows:
        table.add_row(*(escape(v) for v in row.values()))
    console.print(table)
    for r in report.rows:
        ci = lambda c: f"[{c[0]:.3f}, {c[1]:.3f}]" if c else ""  # noqa: E731
        console.print(escape(f"lambda {r.lam:g}: {r.texts} texts judged ({r.unscored} unscored), indirect "
                             f"{ci(r.indirect_ci)}, direct {ci(r.direct_ci)}, mean KL per token "
                             f"{r.mean_kl if r.mean_kl is not None else 0:.4f}, tokens other than the vanilla argmax "
                             f"{(r.changed_tokens or 0):.1%}; run {r.run_id}"))
    # Sampled tokens differ from the vanilla argmax even at lambda 0, so that row's share is the baseline.
    console.print("(tokens other than the vanilla argmax: sampling alone gives the lambda 0 row's share)")


def _save_target(name: str, settings: dict[str, Any]) -> None:
    path = Path("targets.toml")
    existing = tomllib.loads(path.read_text("utf-8")) if path.is_file() else {}
    if name in existing.get("targets", {}):
        raise ConfigError(f"targets.toml already has a target '{name}'; pick another --save-target name.")
    lines = [f"\n[targets.{name}]", 'adapter = "hf-calibrated"']
    for key, value in settings.items():
        lines.append(f"{key} = {_toml(value)}")
    with path.open("a", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    console.print(f"Target '{escape(name)}' written to {escape(str(path.resolve()))}; measure it with "
                  f"`harness run -s political-gender -t {escape(name)} --judge J`.")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("calibrate")(calibrate)
