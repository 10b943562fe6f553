"""CLI command `harness debias`: fine-tune an open causal LM with one of CHBias's five debiasing methods.

The work is in harness.whitebox.debias (imported inside the command: torch and transformers take seconds
to import, and `harness --help` must stay instant). Under `accelerate launch` the same command trains on
every GPU it is given; see docs/debias.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console(highlight=False)


def _floats(text: str | None, name: str) -> list[float]:
    from harness.core.errors import ConfigError

    if not text:
        return []
    try:
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--{name} takes numbers separated by commas, not '{text}'.") from None


class _RichProgress:
    """One rich bar per stage (scoring, training i/N, validating), each with its ETA."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task = None

    def stage(self, description: str, total: int):
        if self.task is not None:
            self.progress.update(self.task, visible=False)
        self.task = self.progress.add_task(escape(description), total=max(total, 1))
        task = self.task
        return lambda n: self.progress.advance(task, n)


#: harness.whitebox.debias.objective.METHODS and select.GRIDS, here so that a typo is refused without importing
#: torch (tests/cli/test_command_refusals.py checks they stay equal)
METHODS = ("lmd", "add", "hd", "cada", "ctda")
GRIDS = ("small", "paper", "upstream")


def _check_arguments(*, method: str, model: str, category: str, out: Path, grid: str, report_categories: list[str],
                     spec_file: Path | None, heldout: Path | None, replies: Path | None) -> None:
    """Everything about the arguments that can be wrong, checked with light modules only (ConfigError)."""
    from harness.core.errors import ConfigError
    from harness.whitebox.debias.models import locate
    from harness.whitebox.debias.spec import get_spec, load_spec

    if method.strip().lower() not in METHODS:
        raise ConfigError(f"Unknown debiasing method '{method}'; choose one of {', '.join(METHODS)}.")
    if grid not in GRIDS:
        raise ConfigError(f"Unknown grid '{grid}'; choose one of {', '.join(GRIDS)}.")
    get_spec(category)
    for name in report_categories:
        get_spec(name)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigError(f"The output directory {out} is not empty; choose a new one.")
    if spec_file is not None:
        load_spec(spec_file)
    for flag, path in (("--heldout", heldout), ("--replies", replies)):
        if path is not None and not path.is_file():
            raise ConfigError(f"The {flag} file {path} does not exist.")
    locate(model)


def debias(
    method: Annotated[str, typer.Option("--method", metavar="lmd|add|hd|cada|ctda", help="Debiasing method.")],
    model: Annotated[str, typer.Option("--model", metavar="M",
                                       help="Model directory, .gguf file, hf target (local-hf) or hub name.")],
    category: Annotated[str, typer.Option("--category", metavar="C",
                                          help="CHBias category: gender, orientation, age or appearance.")],
    out: Annotated[Path, typer.Option("--out", metavar="DIR", help="New directory for the model and report.")],
    grid: Annotated[str, typer.Option("--grid", metavar="small|paper|upstream",
                                      help="Model-selection grid (see docs/debias.md).")] = "small",
    batch_size: Annotated[str | None,
                          typer.Option("--batch-size", metavar="N[,N..]", help="Set the grid's batch sizes.")] = None,
    grad_accum: Annotated[str | None,
                          typer.Option("--grad-accum", metavar="N[,N..]", help="Set its accumulation steps.")] = None,
    debias_hyp: Annotated[str | None,
                          typer.Option("--debias-hyp", metavar="X[,X..]", help="Set its bias-term weights.")] = None,
    lm_hyp: Annotated[str | None, typer.Option("--lm-hyp", metavar="X[,X..]", help="Set its LM-loss weights.")] = None,
    epochs: Annotated[float, typer.Option("--epochs", min=0.01, help="Training epochs (paper: 2).")] = 2.0,
    max_steps: Annotated[int | None,
                         typer.Option("--max-steps", min=1, help="Stop each run after N optimizer steps.")] = None,
    learning_rate: Annotated[float, typer.Option("--lr", help="AdamW learning rate (paper: 5e-5).")] = 5e-5,
    block_size: Annotated[int, typer.Option("--block-size", min=4, help="Tokens per training line (paper: 36).")] = 36,
    lora: Annotated[int, typer.Option("--lora", min=0, metavar="RANK",
                                      help="Train LoRA adapters of this rank instead of every weight (0: off).")] = 0,
    spec_file: Annotated[Path | None, typer.Option("--spec", metavar="FILE.json",
                                                   help="Your own word lists instead of appendix A's.")] = None,
    train_limit: Annotated[int | None,
                           typer.Option("--train-limit", min=1, help="Use the first N training sentences.")] = None,
    pairs_limit: Annotated[int | None,
                           typer.Option("--pairs-limit", min=2, help="Use the first N pairs of each split.")] = None,
    heldout: Annotated[Path | None,
                       typer.Option("--heldout", metavar="FILE", help="Held-out text, one sentence a line.")] = None,
    heldout_limit: Annotated[int, typer.Option("--heldout-limit", min=1, help="Held-out sentences scored.")] = 400,
    replies: Annotated[Path | None, typer.Option("--replies", metavar="FILE.jsonl",
                                                 help="Dialogues {context, reference} for BLEU and Dist.")] = None,
    replies_limit: Annotated[int, typer.Option("--replies-limit", min=0, help="Replies generated (0: skip).")] = 50,
    categories: Annotated[str, typer.Option("--report-categories", metavar="C[,C..]",
                                            help="Categories whose test t the report "
                                                 "shows.")] = "gender,orientation,age,appearance",
    seed: Annotated[int, typer.Option("--seed", help="Seed of the data order.")] = 42,
) -> None:
    """Debias an open causal LM for a CHBias category and report t-values and costs before and after."""
    report_categories = [c.strip() for c in categories.split(",") if c.strip()]
    # every refusal in the first second: torch, transformers and accelerate take 15-20 s to import
    overrides = {"batch_size": _floats(batch_size, "batch-size"), "grad_accum": _floats(grad_accum, "grad-accum"),
                 "debias_hyp": _floats(debias_hyp, "debias-hyp"), "lm_hyp": _floats(lm_hyp, "lm-hyp")}
    _check_arguments(method=method, model=model, category=category, out=out, grid=grid,
                     report_categories=report_categories, spec_file=spec_file, heldout=heldout, replies=replies)
    from harness.whitebox.debias.run import DebiasRequest, run
    from harness.whitebox.debias.train import TrainSettings

    settings = TrainSettings(epochs=epochs, max_steps=max_steps, learning_rate=learning_rate, block_size=block_size,
                             lora_rank=lora, seed=seed)
    req = DebiasRequest(method=method, model=model, category=category, out=out, grid=grid, overrides=overrides,
                        settings=settings, report_categories=report_categories,
                        heldout_file=heldout, heldout_limit=heldout_limit, replies_file=replies,
                        replies_limit=replies_limit, train_limit=train_limit, spec_file=spec_file,
                        pairs_limit=pairs_limit)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    from accelerate import PartialState

    if not PartialState().is_main_process:  # under `accelerate launch`, one bar: the main process's
        run(req, None)
        return
    with Progress(*columns, console=console, transient=False) as bar:
        result = run(req, _RichProgress(bar))
    from harness.whitebox.debias.report import bias_rows, cost_rows

    for row in bias_rows(result):
        console.print(escape(f"{row[0]}: t {row[1]} -> {row[3]} (p {row[2]} -> {row[4]})"))
    for row in cost_rows(result):
        console.print(escape(f"{row[0]}: {row[1]} -> {row[2]}"))
    console.print(escape(f"model: {result['output_model']}  report: {out / 'report.html'}"))


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("debias")(debias)
