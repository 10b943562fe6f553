"""`harness targets`: which targets and adapter kinds exist here, and whether their secrets are set.

It answers the first question of anyone about to run a suite ("what can I point this at, and will it
start?") without creating an adapter: nothing is loaded, nothing is contacted, no secret is printed.
"""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table


def _secret_status(config) -> str:  # noqa: ANN001 - TargetConfig, imported lazily
    import os

    if not config.secret_env:
        return "-"
    return "\n".join(f"{var} ({'set' if os.environ.get(var) else 'missing'})"
                     for var in config.secret_env.values())


def targets_command(
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON instead of tables."),
) -> None:
    """List targets (from presets and targets.toml) and the adapter kinds available."""
    from adapters.registry import adapter_kinds, load_targets, target_files

    targets = load_targets()
    kinds = adapter_kinds()
    if as_json:
        payload = {
            "targets": [{"name": t.name, "adapter": t.adapter, "model": t.model, "display_model": t.display_model, "endpoint": t.endpoint,
                         "secrets": {var: bool(var not in t.missing_secrets()) for var in t.secret_env.values()},
                         "source": t.source, "description": t.description} for t in targets.values()],
            "adapters": [{"name": k.name, "source": k.source, "target": k.target} for k in kinds.values()],
            "files": [str(p) for p in target_files()],
        }
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return

    console = Console()
    files = target_files()
    labels = {str(p): "project" if p.parent.resolve() == Path.cwd().resolve() else "user" for p in files}
    table = Table(title="Targets", title_justify="left")
    for column in ("name", "adapter", "model", "endpoint", "secrets", "from"):
        table.add_column(column, overflow="fold", no_wrap=column == "name")
    for t in targets.values():
        adapter = t.adapter if t.adapter in kinds else f"[red]{t.adapter} (unknown)[/]"
        secrets = _secret_status(t).replace("(missing)", "[red](missing)[/]").replace("(set)", "[green](set)[/]")
        endpoint = t.endpoint or ("in-process" if t.adapter == "hf" else "")
        table.add_row(t.name, adapter, t.display_model, endpoint, secrets, labels.get(t.source, t.source))
    console.print(table)

    kind_table = Table(title="Adapter kinds", title_justify="left")
    kind_table.add_column("kind")
    kind_table.add_column("source")
    kind_table.add_column("class")
    for k in kinds.values():
        kind_table.add_row(k.name, k.source, k.target)
    console.print(kind_table)
    where = ", ".join(str(p) for p in files) if files else "none found (using built-in presets only)"
    console.print(f"targets.toml: {where}", highlight=False)


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("targets")(targets_command)
