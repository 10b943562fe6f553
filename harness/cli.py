"""The `harness` command line.

Each command group lives in its own module (harness/cli_*.py) and registers itself on the app here, so
that the data, question, run, report and manual features can grow without touching one shared file.
User mistakes raise HarnessError and end as one sentence with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import sys

import typer
from rich.console import Console
from rich.markup import escape

from harness.errors import HarnessError

app = typer.Typer(
    name="harness",
    help="Test chatbots for social bias (BiasAsker, CBBQ), in English and Chinese.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
err_console = Console(stderr=True)


def _register() -> None:
    from harness import cli_data, cli_manual, cli_questions, cli_report, cli_run, cli_targets

    for module in (cli_data, cli_questions, cli_targets, cli_run, cli_report, cli_manual):
        module.register(app)


_register()


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app and turn HarnessError into one clear sentence.

    typer/click handle usage errors themselves (a short usage message, exit 2); everything the harness
    raises on purpose is a HarnessError and ends as one line on stderr with its exit code.
    """
    try:
        app(args=argv, prog_name="harness")
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except HarnessError as exc:
        err_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except KeyboardInterrupt:
        err_console.print("interrupted.")
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
