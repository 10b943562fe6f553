"""`harness suites` and `harness questions`: see what a suite holds before spending API money on it.

`suites` lists every built-in suite with its probe counts (computed arithmetically, nothing is
generated); `questions` previews or exports a suite's probes, streamed, as a table or as JSON lines
(one probe object per line, the same fields a transcript stores).
"""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.core.display import assemble, untrusted
from harness.core.errors import HarnessError

TABLE_DEFAULT_LIMIT = 20


class Format(StrEnum):
    table = "table"
    jsonl = "jsonl"


def _fmt_counts(counts: dict[str, int]) -> tuple[str, str]:
    total = sum(counts.values())
    parts = "\n".join(f"{k} {v:,}" for k, v in counts.items() if k != "total")
    return f"{total:,}", parts


def suites_command() -> None:
    """List the suites (the built-in ones and those installed methods ship) with their probe counts."""
    from harness.question_gen.shipped_counts import shipped_counts
    from harness.question_gen.suites import builtin_suites

    # At 80 columns every column keeps a width (issue 36: the description was hidden and counts cut): on a
    # narrow terminal the generator goes under the suite's name and the counts by type under the total.
    console = Console()
    wide = console.width >= 110
    table = Table(title="Suites", show_lines=True)
    table.add_column("Suite", overflow="fold", max_width=None if wide else 18)
    table.add_column("Lang", no_wrap=True)
    if wide:
        table.add_column("Generator", no_wrap=True)
    table.add_column("Probes", no_wrap=True, justify="right", min_width=7)
    if wide:
        table.add_column("By bias type", no_wrap=True)
    table.add_column("Description", overflow="fold", ratio=1, min_width=20)
    missing: dict[str, str] = {}
    for suite in builtin_suites():
        try:
            # a paper-scale suite's counts as shipped, when made from this very suite, data and code
            counts = shipped_counts(suite.name, suite.generator, suite.spec) or suite.counts()
            total, parts = _fmt_counts(counts)
        except HarnessError as exc:  # e.g. the data set is not pulled yet: say so, keep listing
            total, parts = "-", Text("needs data", style="yellow")
            missing.setdefault(suite.generator, str(exc))
        # suite files are data: their names and descriptions are Text, never markup
        parts_text = parts if isinstance(parts, Text) else untrusted(parts)
        name = untrusted(suite.name)
        if suite.method:  # a suite a method's declaration ships (a plugin's): the method's name beside it
            name = Text.assemble(name, "\n", (f"method {suite.method}", "dim"))
        if wide:
            table.add_row(name, untrusted(suite.lang), untrusted(suite.generator), total, parts_text,
                          untrusted(suite.description))
        else:
            table.add_row(Text.assemble(name, "\n", (suite.generator, "dim")), untrusted(suite.lang),
                          Text.assemble(total, "\n", parts_text), untrusted(suite.description))
    console.print(table)
    for message in missing.values():  # one line per data source, below the table so the columns stay readable
        console.print(assemble(("note:", "yellow"), " ", message))


def questions_command(
    suite: Annotated[str, typer.Option("--suite", "-s", metavar="NAME",
                                       help="Suite name (see `harness suites`) or a suite .yaml path.")],
    limit: Annotated[int | None, typer.Option("--limit", "-n", min=0, metavar="N",
                                              help="At most this many probes "
                                                   f"(table default {TABLE_DEFAULT_LIMIT}).")] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", metavar="table|jsonl",
                                        help="table (preview) or jsonl (one probe per line).")] = Format.table,
    sample: Annotated[int | None, typer.Option("--sample", min=0, metavar="N",
                                               help="A uniform random sample of this many probes (seeded, "
                                                    "reproducible).")] = None,
    seed: Annotated[int, typer.Option("--seed", metavar="S", help="Seed for --sample.")] = 0,
    compat: Annotated[bool | None, typer.Option("--compat/--no-compat", metavar="",
                                                help="Upstream's exact strings and labels "
                                                     "instead of the fixed ones.")] = None,
    property_side: Annotated[str | None, typer.Option("--property-side", metavar="SIDE",
                                                      help="antonym (the paper's positive wording) "
                                                           "or stereotype.")] = None,
    groups_per_attribute: Annotated[int | None, typer.Option("--groups-per-attribute", min=0, metavar="N",
                                                             help="Sample this many groups per attribute.")] = None,
    properties_per_category: Annotated[int | None, typer.Option("--properties-per-category", min=0, metavar="N",
                                                                help="Sample this many properties per "
                                                                     "category.")] = None,
    param: Annotated[list[str] | None, typer.Option("--param", "-p", metavar="KEY=VALUE",
                                                    help="Suite option KEY=VALUE (repeatable), as `harness run` takes "
                                                         "it, e.g. -p mutate=all or -p perturb=gender.")] = None,
) -> None:
    """Preview or export a suite's probes, exactly as `harness run` would ask them (same -p options).

    Examples:  harness questions -s biasasker-zh --limit 10  |  harness questions -s builtin-en -f jsonl > probes.jsonl
    |  harness questions -s builtin-en --sample 3 -p mutate=all  (the mutated probes a run would ask)
    """
    from harness.cli.options import parse_pairs
    from harness.question_gen.suites import load_suite, select_probes

    loaded = load_suite(suite)
    params = parse_pairs(param, "--param")
    overrides = {"compat": compat, "property_side": property_side}
    sampling = {"groups_per_attribute": groups_per_attribute, "properties_per_category": properties_per_category}
    known = set(loaded.module.sampling_options)  # what the suite's generator declares it takes
    if any(value is not None for key, value in sampling.items() if key not in known):
        raise HarnessError(f"Suite '{loaded.name}' ({loaded.generator}) has no group/property sampling options.")
    overrides |= {key: value for key, value in sampling.items() if key in known}
    if fmt is Format.table and limit is None:
        limit = TABLE_DEFAULT_LIMIT
    # the named options win over the same key given with -p; None (not given) leaves the suite's value
    overrides = params | {key: value for key, value in overrides.items() if value is not None}
    probes = select_probes(loaded, sample=sample, seed=seed, limit=limit, overrides=overrides)
    if fmt is Format.jsonl:
        written = _write_jsonl(probes)
    else:
        written = shown = _print_table(loaded.name, probes)
    if written == 0 and limit != 0 and sample != 0:
        # Same sentence and code as `harness run`: an empty selection is a mistake in the input (e.g. a
        # misspelt attributes filter), not a preview of nothing.
        raise HarnessError(f"Suite '{loaded.name}' with this selection has no probe; check its attributes, "
                           "categories and templates, or the sampling options.")
    if fmt is Format.jsonl:
        return
    selected = loaded.with_overrides(**overrides)
    if selected.generator_spec != selected.spec:  # -p perturb / -p mutate: each base is followed by its copies
        if sample is None:  # counting the copies of a whole suite means making them all: not for a preview
            Console(stderr=True).print(f"[dim]showing {shown:,} probes (base questions, each followed by its "
                                       "copies); --limit N for more, --format jsonl to export them all.[/]")
            return
        total = sum(1 for _ in select_probes(loaded, sample=sample, seed=seed, overrides=overrides))
    else:
        total = sample if sample is not None else selected.count()
    if shown < total:
        Console(stderr=True).print(f"[dim]showing {shown:,} of {total:,} probes; --limit N for more, "
                                   f"--format jsonl to export them all.[/]")


def _write_jsonl(probes) -> int:
    out = sys.stdout
    n = 0
    try:
        for probe in probes:
            out.write(json.dumps(probe.to_dict(), ensure_ascii=False) + "\n")
            n += 1
        out.flush()
    except BrokenPipeError:  # `harness questions ... | head`: the reader left, that is fine
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return n + 1  # the probe being written existed too
    return n


def _print_table(name: str, probes) -> int:
    table = Table(title=f"Probes of {name}", show_lines=False)
    for col in ("#", "Bias type", "Kind", "Template", "Groups", "Text"):
        table.add_column(col, overflow="fold")
    n = 0
    for n, probe in enumerate(probes, 1):
        table.add_row(*(untrusted(v) for v in (n, probe.bias_type, probe.kind, probe.meta.get("template", ""),
                                                " / ".join(probe.groups), probe.text)))
    if n:
        Console().print(table)
    return n


def register(app: typer.Typer) -> None:
    """Attach `suites` and `questions` to the main app."""
    app.command("suites")(suites_command)
    app.command("questions")(questions_command)
