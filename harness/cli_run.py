"""CLI commands: run (placeholder, filled in by its feature)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Attach this module's commands to the main app."""
    return None
