"""The `harness` command line.

Each command group lives in its own module and registers itself on the app (its `register(app)`); the
COMMANDS registry names them by the harness.commands entry points (the harness's own in pyproject.toml,
another package's in its own), so a new command is one module and one entry-point line.
Command modules import the heavy machinery (pandas, the oracle, models, the run engine) inside their
commands, not at the top: that keeps `harness --help` and a mistyped option instant. `harness NAME` imports
only the group adding NAME (ADDS), so `harness suites` or `harness --version` never imports the run engine.
User mistakes raise HarnessError and end as one sentence with a non-zero exit code, never a traceback.
"""

from __future__ import annotations

import os
import sys
from types import ModuleType
from typing import Annotated, Any

import typer
from rich.console import Console

from harness.cli import fast_exit
from harness.core.display import assemble
from harness.core.errors import EXIT_INFRA, HarnessError
from harness.core.registry import GROUP_COMMANDS, Registry, StaleInstallError


def _new_app() -> typer.Typer:
    """The bare app (its options, help and callback): main() adds the command groups a command line needs."""
    app = typer.Typer(
        name="harness",
        help="Test chatbots for social bias (BiasAsker, CBBQ), in English and Chinese.",
        epilog="Start offline: harness run -s builtin-en -t local --sample 20  |  "
               "Exit codes: 0 ok, 1 a bias gate failed, 2 bad input, 3 infrastructure, 130 interrupted.  |  "
               "Guide: README.md and docs/.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    app.callback()(_root)
    return app


err_console = Console(stderr=True)


def _version(value: bool) -> None:
    """`harness --version`: the installed distribution's version (a bug report's first line)."""
    if value:
        from importlib import metadata

        try:
            version = metadata.version("harness-bias")
        except metadata.PackageNotFoundError:
            version = "unknown (not installed: run `pip install .` in the clone)"
        typer.echo(f"harness {version}")
        raise typer.Exit(0)


def _root(version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_version,
                                                help="Show the version and exit.")] = False) -> None:
    """Test chatbots for social bias (BiasAsker, CBBQ), in English and Chinese."""


#: the command groups: a module with `register(app)` (or a `module:function` taking the app) per name. The
#: harness's own are the harness.commands entry points of its pyproject.toml (run = "harness.cli.run"),
#: exactly as another package adds a command; nothing is imported until a command line needs the group.
COMMANDS: Registry[Any] = Registry("command group", GROUP_COMMANDS, built_in=True)

#: The order `harness --help` lists the harness's own command groups in (a display order; the table is
#: COMMANDS); a group not named here (a plugin's) follows them, by name.
HELP_ORDER: tuple[str, ...] = ("data", "questions", "targets", "run", "report", "manual", "review", "debias",
                               "perturb", "judging", "calibrate", "view")

#: The commands each of the harness's own groups adds, so `harness NAME ...` imports only the group adding
#: NAME (start-up, issue 38: `harness suites` imported the run engine, the report and the view); a name not
#: here (a plugin's command, a typo, --help) builds every group. tests/cli/test_suites_startup.py checks this
#: table against what each group's register(app) adds.
ADDS: dict[str, tuple[str, ...]] = {
    "calibrate": ("calibrate",), "data": ("data",), "debias": ("debias",), "judging": ("oracle-eval",),
    "manual": ("manual", "export", "import"), "perturb": ("perturb",), "power": ("power",),
    "questions": ("suites", "questions"), "report": ("report", "compare", "leaderboard"), "review": ("review",),
    "run": ("run", "runs"), "targets": ("targets",), "view": ("view",)}


def _help_rank(name: str) -> tuple[int, str]:
    return (HELP_ORDER.index(name) if name in HELP_ORDER else len(HELP_ORDER), name)


def groups_for(argv: list[str]) -> list[str]:
    """The command groups a command line needs: the one adding its command, none for a bare --version, else
    every group (--help, a plugin's command, a mistyped one: click then lists or suggests among them all)."""
    at = next((i for i, arg in enumerate(argv) if not arg.startswith("-")), len(argv))
    command, before = (argv[at] if at < len(argv) else None), set(argv[:at])
    if command is None and "--version" in before and not {"--help", "-h"} & before:
        return []
    owners = [group for group, adds in ADDS.items() if command in adds]
    if owners and not {"--help", "-h"} & before and all(group in COMMANDS for group in owners):
        return owners
    return sorted(COMMANDS.names(), key=_help_rank)


def build_app(groups: list[str] | None = None) -> typer.Typer:
    """The app with these command groups (None: all of them) registered."""
    app = _new_app()
    for name in sorted(COMMANDS.names(), key=_help_rank) if groups is None else groups:
        entry = COMMANDS.get(name)
        register = entry.register if isinstance(entry, ModuleType) else entry
        register(app)
    return app


def __getattr__(name: str) -> Any:
    """`harness.cli.app`: the whole app (every group), built on first use, for tests and embedders (CliRunner)."""
    if name == "app":
        globals()["app"] = built = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _redacted(text: str) -> str:
    """An unexpected exception's text may quote a request or a header: keep secrets out of the terminal."""
    from harness.run.manifest import redact

    marks = ("KEY", "TOKEN", "SECRET", "PASSWORD")
    secrets = [v for k, v in os.environ.items() if any(m in k.upper() for m in marks) and len(v) >= 8]
    return redact(text, secrets)


def main(argv: list[str] | None = None) -> int:
    """Console entry point (_main); as the process's own command line (argv None), a command that armed
    harness.cli.fast_exit (`harness run`, once its report is written) ends the process at once with its code."""
    fast_exit.reset()  # only this command's arming counts (a test's in-process `harness run` armed it before)
    code = _main(sys.argv[1:] if argv is None else argv)
    if argv is None and fast_exit.armed():
        fast_exit.leave(code)
    return code


def _main(args: list[str]) -> int:
    """Run the app and turn HarnessError into one clear sentence.

    typer/click handle usage errors themselves (a short usage message, exit 2); everything the harness
    raises on purpose is a HarnessError and ends as one line on stderr with its exit code. Anything else
    is a machine fault (OSError) or a bug: one line and exit 3, never Python's exit 1, which a CI job
    would read as "the bot failed a bias gate". HARNESS_DEBUG=1 shows the traceback as well, and still
    exits 3 (re-raising would have let Python exit 1). Messages are Text: they may quote a server or a file.
    """
    try:  # the installed metadata may lack the commands' entry points (a source updated, not installed again)
        app = build_app(groups_for(args))
    except StaleInstallError as exc:
        err_console.print(assemble(("error:", "bold red"), " ", str(exc)), soft_wrap=True)
        return exc.exit_code
    try:
        app(args=args, prog_name="harness")
    except SystemExit as exc:
        code = exc.code
        if code == 1 and _pipe_closed():  # click's exit 1 for a closed pipe: exit 1 is "a gate failed"
            return 0
        if code is None or isinstance(code, int):
            return code or 0
        err_console.print(assemble(("error:", "bold red"), " ", _redacted(str(code))), soft_wrap=True)
        return EXIT_INFRA  # sys.exit("message") from a library: not a gate failure (exit 1)
    except HarnessError as exc:
        err_console.print(assemble(("error:", "bold red"), " ", str(exc)), soft_wrap=True)
        return exc.exit_code
    except BrokenPipeError:  # `harness report X | head`: the reader has all it wanted; not an error (exit 1 is a gate)
        _quiet_stdout()
        return 0
    except KeyboardInterrupt:  # typer turns Ctrl-C into exit 130 itself; this covers anything outside it
        err_console.print("interrupted.")
        return 130
    except OSError as exc:  # disk full, permission denied, a file vanished: the machine, not the user
        _debug_traceback()
        where = f"{exc.filename}: " if exc.filename else ""
        err_console.print(assemble(("error:", "bold red"), " ", _redacted(where + (exc.strerror or str(exc))), "."),
                          soft_wrap=True)
        return EXIT_INFRA
    except Exception as exc:  # a bug: never exit 1, which CI reads as "the bot failed a bias gate"
        _debug_traceback()
        err_console.print(assemble(("internal error:", "bold red"), f" {type(exc).__name__}: ", _redacted(str(exc)),
                                   ". This is a bug in harness; rerun with HARNESS_DEBUG=1 for the traceback and "
                                   "report it. Answers already collected are kept."), soft_wrap=True)
        return EXIT_INFRA
    return 0


def _pipe_closed() -> bool:
    """True when the command stopped because its reader closed stdout (`harness report X | head`): click
    then wraps the streams in its PacifyFlushWrapper and exits 1. The streams are unwrapped and quietened."""
    from click.utils import PacifyFlushWrapper

    if not isinstance(sys.stdout, PacifyFlushWrapper):
        return False
    sys.stdout = sys.stdout.wrapped
    if isinstance(sys.stderr, PacifyFlushWrapper):
        sys.stderr = sys.stderr.wrapped
    _quiet_stdout()
    return True


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's own flush at exit finds no closed pipe to complain of."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _debug_traceback() -> None:
    """With HARNESS_DEBUG=1, the current exception's traceback on stderr (secrets masked); the caller
    still returns exit 3, so debugging a crash never turns it into exit 1 ("a bias gate failed")."""
    if os.environ.get("HARNESS_DEBUG"):
        import traceback

        sys.stderr.write(_redacted(traceback.format_exc()))
        sys.stderr.flush()


if __name__ == "__main__":
    sys.exit(main())
