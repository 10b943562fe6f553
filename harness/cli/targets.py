"""`harness targets`: which targets and adapter kinds exist here, and whether they will start.

It answers the first question of anyone about to run a suite ("what can I point this at?") without
creating an adapter: listing loads nothing, contacts nothing and never prints a secret value.
`--check NAME` goes one step further and asks the target one short question, so a wrong key, endpoint
or model shows up in seconds rather than as 30,000 errors.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from harness.core.display import assemble, untrusted
from harness.core.errors import EXIT_INFRA

CHECK_PROMPT = "Reply with the single word OK."


def _secret_states(config: Any) -> list[tuple[str, str]]:
    """(variable, "set" or "missing") for each secret the target names; never the value."""
    return [(var, "set" if os.environ.get(var) else "missing") for var in config.secret_env.values()]


def _as_json(targets: dict[str, Any], kinds: dict[str, Any], files: list[Path]) -> str:
    payload = {
        "targets": [{"name": t.name, "group": _group(t), "adapter": t.adapter, "model": t.model,
                     "display_model": t.display_model, "needs": t.missing_settings(),
                     "endpoint": t.endpoint, "description": t.description, "source": t.source,
                     "secrets": {var: bool(os.environ.get(var)) for var in t.secret_env.values()},
                     "concurrency": t.concurrency, "rpm": t.rpm, "timeout_s": t.timeout_s, "price": t.price}
                    for t in targets.values()],
        "adapters": [{"name": k.name, "source": k.source, "target": k.target} for k in kinds.values()],
        "files": [str(p) for p in files],
    }
    return json.dumps(payload, indent=2, ensure_ascii=False)


#: What each group of `harness targets` holds, in the order they are listed.
GROUP_TITLES = {
    "local": "local: open models in this process, offline, no key",
    "self-hosted": "self-hosted: a server you run on your machine (start it first)",
    "China": "China: providers in mainland China",
    "international": "international: providers outside China",
    "pipeline": "pipeline: task-oriented dialogue systems built from other targets",
    "yours": "yours: targets.toml entries",
}


def _group(t: Any) -> str:
    if t.group:
        return t.group
    return "local" if t.adapter in ("llamacpp", "hf", "hf-calibrated") else "yours"


def _model_cell(t: Any) -> Text:
    missing = [key for key in t.missing_settings() if key != "endpoint"]
    if not missing:
        return untrusted(t.display_model)
    example = f" (e.g. {t.model_example})" if t.model_example else ""
    return untrusted(f"not set: {', '.join(missing)}{example}", "red")


def _print_tables(console: Console, targets: dict[str, Any], kinds: dict[str, Any], files: list[Path]) -> None:
    labels = {str(p): "project" if p.parent.resolve() == Path.cwd().resolve() else "user" for p in files}
    by_group: dict[str, list[Any]] = {}
    for t in targets.values():
        by_group.setdefault(_group(t), []).append(t)
    order = [g for g in GROUP_TITLES if g in by_group] + sorted(g for g in by_group if g not in GROUP_TITLES)
    for group in order:
        table = Table(title=untrusted(f"Targets, {GROUP_TITLES.get(group, group)}"), title_justify="left")
        for column in ("name", "adapter", "model", "endpoint", "secrets", "from"):
            table.add_column(column, overflow="fold", no_wrap=column == "name")
        # Every cell is Text: names, models and endpoints come from targets.toml files, never read as markup.
        for t in by_group[group]:
            adapter = untrusted(t.adapter) if t.adapter in kinds else untrusted(f"{t.adapter} (unknown)", "red")
            secrets = Text("\n").join(assemble(var, (f" ({state})", "green" if state == "set" else "red"))
                                      for var, state in _secret_states(t)) if t.secret_env else Text("-")
            endpoint = t.endpoint or ("in-process" if t.adapter in ("hf", "llamacpp") else "")
            if "endpoint" in t.missing_settings():
                endpoint = "not set: endpoint"
            table.add_row(untrusted(t.name), adapter, _model_cell(t), untrusted(endpoint), secrets,
                          untrusted(labels.get(t.source, t.source)))
        console.print(table)
    unready = sorted(t.name for t in targets.values() if t.missing_settings())
    if unready:
        console.print(untrusted(f"{', '.join(unready)}: set model = \"...\" under [targets.NAME] in targets.toml "
                                "before asking (an Azure target: endpoint and deployment too); "
                                "`harness targets --check NAME` says what is missing."), soft_wrap=True)

    kind_table = Table(title="Adapter kinds", title_justify="left")
    for column in ("kind", "source", "class"):
        kind_table.add_column(column)
    for k in kinds.values():
        kind_table.add_row(untrusted(k.name), untrusted(k.source), untrusted(k.target))
    console.print(kind_table)
    where = ", ".join(str(p) for p in files) if files else "none found (using built-in presets only)"
    console.print(assemble("targets.toml: ", where))
    console.print("Check one with: harness targets --check NAME", style="dim", highlight=False)


async def _ask_once(adapter: Any) -> Any:
    try:
        return await adapter.ask(CHECK_PROMPT)
    finally:
        await adapter.aclose()


def _check(console: Console, name: str) -> int:
    """Create the target's adapter and ask one question; 0 when it answers, EXIT_INFRA when it cannot."""
    from harness.adapters.base import AdapterError
    from harness.adapters.registry import create_adapter

    # An unknown target, a missing model (or endpoint) and a missing key are each one sentence (exit 2)
    # naming what to set, before anything is imported or asked.
    adapter = create_adapter(name)
    started = time.perf_counter()
    try:
        completion = asyncio.run(_ask_once(adapter))
    except AdapterError as exc:
        kind = "transient, worth retrying later" if type(exc).__name__ == "TransientError" else "permanent"
        console.print(assemble(("✗", "red"), f" {name}: ", exc.reason, f" ({kind})"), soft_wrap=True)
        return EXIT_INFRA
    elapsed = time.perf_counter() - started
    answer = " ".join(completion.text.split())
    answer = answer if len(answer) <= 80 else answer[:77] + "..."
    # The model's words quoted as a Python literal (control characters escaped), never read as markup.
    console.print(assemble(("✓", "green"), f" {name} answered in {elapsed:.1f}s: {answer!r}"), soft_wrap=True)
    return 0


def targets_command(
    as_json: bool = typer.Option(False, "--json", metavar="", help="Print machine-readable JSON instead of tables."),
    check: str = typer.Option(None, "--check", metavar="NAME",
                              help="Ask target NAME one short question to prove it is reachable."),
) -> None:
    """List targets (built-in presets and targets.toml) and the adapter kinds available.

    Examples:  harness targets  |  harness targets --check local  (asks one short question)
    """
    from harness.adapters.registry import adapter_kinds, load_targets, target_files

    console = Console()
    if check:
        code = _check(console, check)
        if code:
            raise typer.Exit(code)
        return
    targets, kinds, files = load_targets(), adapter_kinds(), target_files()
    if as_json:
        typer.echo(_as_json(targets, kinds, files))
    else:
        _print_tables(console, targets, kinds, files)
    # The listing shows every target, a broken one too; then the same sentence and exit code (2) as
    # `--check` and `run` give for a target whose adapter kind does not exist.
    from harness.adapters.registry import adapter_class

    for t in targets.values():
        if t.adapter not in kinds:
            adapter_class(t.adapter, target=t)  # ConfigError: one sentence naming the target and its file


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    app.command("targets")(targets_command)
