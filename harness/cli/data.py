"""`harness data`: list, pull, verify and locate the upstream data sets (BiasAsker, CBBQ, CHBias, Schema-Guided
Dialogue)."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TransferSpeedColumn
from rich.table import Table

from harness.core import datasets
from harness.core.datasets import FileState
from harness.core.display import assemble, untrusted
from harness.core.errors import EXIT_INFRA, EXIT_USAGE
from harness.core.paths import data_dir

data_app = typer.Typer(
    help="Upstream data sets: list, pull (download + verify), verify, path.", no_args_is_help=True
)
console = Console()
err_console = Console(stderr=True)


_STATE_STYLE = {"ok": "[green]present[/]", "missing": "[yellow]missing[/]", "partial": "[yellow]partial[/]",
                "corrupt": "[red]corrupt[/]"}


def _names(name: str | None) -> list[str]:
    if name is None:
        return list(datasets.registry())
    datasets.get_dataset(name)  # one sentence if unknown
    return [name]


@data_app.command("list")
def list_cmd() -> None:
    """Show every data set, its license, file count and whether it is present, missing or corrupt."""
    table = Table(title=untrusted(f"Data sets in {data_dir()}"))
    for col in ("name", "license", "files", "size", "state", "source"):
        table.add_column(col)
    for name, ds in datasets.registry().items():
        states = datasets.check(name)
        ok = sum(s is FileState.OK for s in states.values())
        table.add_row(name, ds.license, f"{ok}/{len(ds.files)}", f"{ds.total_size / 1e6:.1f} MB",
                      _STATE_STYLE[datasets.summary_state(states)],
                      f"{ds.source.removeprefix('https://github.com/')}@{ds.commit[:7]}")
    console.print(table)


@data_app.command("path")
def path_cmd(name: Annotated[str | None, typer.Argument(help="data set; omit for the data directory")] = None
             ) -> None:
    """Print where a data set lives (or the data directory), for scripts: `cd $(harness data path)`."""
    target = datasets.dataset_dir(name) if name else data_dir()
    typer.echo(str(target))


@data_app.command("verify")
def verify_cmd(name: Annotated[str | None, typer.Argument(help="data set; omit for all")] = None) -> None:
    """Check every file's sha256; exit 2 (like any missing data set) if a file is missing or corrupt."""
    bad = 0
    for n in _names(name):
        states = datasets.check(n)
        for path, state in states.items():
            if state is not FileState.OK:
                bad += 1
                style = "red" if state is FileState.CORRUPT else "yellow"
                console.print(f"[{style}]{state.value:8}[/] {n}/{path}", highlight=False)
        ok = sum(s is FileState.OK for s in states.values())
        console.print(f"{n}: {ok}/{len(states)} files verified ({datasets.summary_state(states)})")
    if bad:
        err_console.print(f"{bad} file(s) missing or corrupt; run `harness data pull NAME` to fetch them.")
        raise typer.Exit(EXIT_USAGE)


def _pullable_names() -> str:
    """The data registry's names, "a, b or c" (the help lists what `pull` takes, never a fixed list)."""
    names = sorted(datasets.registry())
    return ", ".join(names[:-1]) + f" or {names[-1]}" if len(names) > 1 else "".join(names)


@data_app.command("pull")
def pull_cmd(
    name: Annotated[str, typer.Argument(help=f"data set to download: {_pullable_names()}")],
    mirror: Annotated[str | None, typer.Option(
        help="base URL serving the data-dir layout (NAME/PATH); default: upstream GitHub at the pinned commit",
        envvar=datasets.MIRROR_ENV, show_envvar=True)] = None,
) -> None:
    """Download a data set into the data directory, verifying every file's sha256."""
    ds = datasets.get_dataset(name)
    root = data_dir()
    datasets.ensure_writable(root)
    failures: list[tuple[str, str]] = []
    fetched = skipped = 0
    with Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                  console=err_console, transient=False) as progress:
        task = progress.add_task(f"pull {name}", total=ds.total_size)
        for f, outcome, reason in datasets.iter_pull(
            name, mirror=mirror, on_bytes=lambda n: progress.advance(task, n)
        ):
            if outcome == "fetched":
                fetched += 1
            elif outcome == "skipped":
                skipped += 1
            else:
                failures.append((f.path, reason or "failed"))
                progress.console.print(assemble(("failed", "red"), f" {name}/{f.path}: {reason}"))  # a server's words
        progress.update(task, completed=ds.total_size)
    console.print(assemble(f"{name}: {fetched} fetched, {skipped} already valid, {len(failures)} failed "
                           f"-> {datasets.dataset_dir(name)}"))
    if failures:
        err_console.print(f"{len(failures)} file(s) failed verification and were not kept; "
                          f"check the mirror or network and run `harness data pull {name}` again.")
        raise typer.Exit(EXIT_INFRA)


def register(app: typer.Typer) -> None:
    """Attach `harness data ...` to the main app."""
    app.add_typer(data_app, name="data")
