"""`harness perturb FILE --axis gender --out FILE2`: demographic counterfactuals of a dialogue file.

Reads Schema-Guided Dialogue JSON (a dialogues_NNN.json file or a split folder) or a plain JSONL of turns
and writes, in the same shape, every dialogue that holds a word of the axis once per draw, with the same
substitution applied to every turn, the dialogue state, the API calls and the database rows
(harness.perturb.dialogues). To ask a chatbot the perturbed prompts of a suite instead, use
`harness run ... -p perturb=gender`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from harness.perturb.algorithm import DEFAULT_DRAWS
from harness.perturb.lexicon import AXES


def perturb_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="SGD JSON (file or split folder) or JSONL of turns.")],
    axis: Annotated[str, typer.Option("--axis", "-a", metavar="AXIS", help=f"Demographic axis: {', '.join(AXES)}.")],
    out: Annotated[Path, typer.Option("--out", "-o", metavar="FILE2", help="Where to write the perturbed dialogues.")],
    draws: Annotated[int, typer.Option(metavar="N", help="Draws per dialogue (distinct word-target choices).",
                                       min=1)] = DEFAULT_DRAWS,
    seed: Annotated[int,
                    typer.Option(metavar="S", help="Seed of the draws (same seed, same draws, every machine).")] = 0,
    pairs: Annotated[str, typer.Option(metavar="S:T,...",
                                       help="Only these (source, target) attribute pairs, e.g. "
                                            "female:male,male:female.")] = "",
    words: Annotated[Path | None, typer.Option(metavar="YAML",
                                               help="Your own word list (the shape of "
                                                    "harness/perturb/words_en.yaml).")] = None,
    lang: Annotated[str | None, typer.Option(metavar="LANG", help="en or zh (default: read from the text).")] = None,
    entities: Annotated[bool, typer.Option("--protect-entities/--perturb-entities",
                                           help="Keep SGD entity values (names, titles, places, airlines) "
                                                "as they are.")] = True,
) -> None:
    """Write demographic counterfactuals of a dialogue file (Su et al. 2023, Algorithm 1).

    Example:  harness perturb $HARNESS_DATA_DIR/sgd/test --axis gender --out sgd-gender.json
    """
    from harness.core.errors import ConfigError
    from harness.perturb.dialogues import SHAPE_SGD, perturb_file, read_dialogues, write_dialogues
    from harness.perturb.lexicon import lexicon_axis

    if axis not in AXES:
        raise ConfigError(f"--axis must be one of {', '.join(AXES)}, not '{axis}'.")
    if lang is not None and lang not in ("en", "zh"):
        raise ConfigError(f"--lang must be en or zh, not '{lang}'.")
    _check_out(out, file)
    source = read_dialogues(file, lang)
    words_arg = str(words) if words else ""
    lexicon_axis(source.lang or source.dialogue_lang(source.dialogues[0]), axis, pairs=pairs or None,
                 words=words_arg or None)  # a bad pair or word list: one sentence before any work
    records, stats = perturb_file(source, axis, draws=draws, seed=seed, pairs=pairs, words=words_arg,
                                  protect_entities=entities)
    try:
        path = write_dialogues(records, source.shape, out)
    except OSError as exc:  # the disk filled up, the folder is read-only: say so, and leave no half-written file
        out.with_name(out.name + ".tmp").unlink(missing_ok=True)
        raise ConfigError(f"Cannot write {out}: {exc.strerror or exc}.") from None
    console = Console()
    shape = "SGD dialogues" if source.shape == SHAPE_SGD else "JSONL dialogues"
    article = "an" if axis[0] in "aeiou" else "a"
    console.print(f"{stats.perturbable:,} of {stats.dialogues:,} {shape} have {article} {axis} word; wrote "
                  f"{stats.written:,} perturbed dialogues ({draws} draw{'s' if draws > 1 else ''} each at most) "
                  f"to {escape(str(path))}", highlight=False, soft_wrap=True)
    shown = ", ".join(f"{escape(k)} {v:,}" for k, v in stats.pairs.most_common(8))
    console.print(f"substitutions by attribute pair: {shown}", highlight=False, soft_wrap=True)


def _check_out(out: Path, source: Path) -> None:
    """--out must name a file that can be written, never the input itself: one sentence before any work
    (a folder there made the final rename fail after the whole file was written, leaving OUT.tmp behind)."""
    from harness.core.errors import ConfigError

    out = out.expanduser()
    if out.is_dir():
        raise ConfigError(f"--out {out} is a folder; give a file name, e.g. --out {out / 'perturbed.json'}.")
    if out.exists() and source.exists() and out.resolve() == source.resolve():
        raise ConfigError(f"--out {out} is the input file; give another name so the input stays as it is.")


def register(app: typer.Typer) -> None:
    app.command("perturb")(perturb_command)
