"""Every `harness ...` command the README and docs/ show still exists, with every option it uses.

The code blocks of README.md and docs/*.md are parsed; each line that runs `harness` (after a `$ ` prompt,
environment assignments or `python -m`) is split like a shell would, its subcommands looked up in the click
command tree of the real typer app (typer vendors click, so groups are found by their `commands`), and each
option it names (`--judge`, `-s`, `--no-progress`, the alternatives of `[--method sentence|--compat]`) looked
up among that command's parameters. Nothing runs: a renamed command or a dropped option fails here, in well
under a second, instead of in a user's terminal. The outputs shown are scripts/refresh_examples.py's to
regenerate.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from harness.cli import app

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^(\s*)```")
ENV = re.compile(r"^[A-Z_][A-Z0-9_]*=\S*$")


def _code_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, text) of the lines inside fenced code blocks, backslash continuations joined."""
    out, inside, pending, start = [], False, "", 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            inside, pending = not inside, ""
            continue
        if not inside:
            continue
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((start, pending + line))
        pending = ""
    return out


def _harness_words(line: str) -> list[str] | None:
    """The words after `harness` when the line runs it, else None."""
    text = line.strip()
    for prompt in ("$ ", "> "):
        text = text.removeprefix(prompt)
    text = re.split(r"\s#\s|\s#$", text, maxsplit=1)[0]  # a trailing comment
    try:
        words = shlex.split(text, comments=False)
    except ValueError:  # an unbalanced quote in pseudo-syntax: split on spaces
        words = text.split()
    while words and ENV.match(words[0]):
        words = words[1:]
    if words[:3] in (["python", "-m", "harness"], ["python3", "-m", "harness"]):
        words = ["harness", *words[3:]]
    if not words or words[0] != "harness":
        return None
    rest = words[1:]
    for stop in ("|", "&&", ";", ">", "2>&1"):  # a pipe or a second command ends this one
        if stop in rest:
            rest = rest[:rest.index(stop)]
    return rest


def _documented() -> list[tuple[str, list[str]]]:
    found = []
    for path in FILES:
        for number, line in _code_lines(path):
            words = _harness_words(line)
            if words is not None:
                found.append((f"{path.relative_to(ROOT)}:{number}: {line.strip()}", words))
    return found


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        names.update(getattr(param, "opts", ()))
        names.update(getattr(param, "secondary_opts", ()))
    return names


def _problems(words: list[str], root: Any) -> list[str]:
    """What a documented command line names that the app does not have."""
    command = root
    problems = []
    args = list(words)
    while hasattr(command, "commands") and args and not args[0].startswith("-"):
        name = args.pop(0).strip("[]")
        if name.isupper() or name.startswith("<"):  # a placeholder ("harness COMMAND --help")
            return []
        sub = command.commands.get(name)
        if sub is None:
            return [f"no command '{name}' (commands: {', '.join(sorted(command.commands))})"]
        command = sub
    known = _options(command)
    for word in args:
        for part in word.strip("[](){},").split("|"):
            part = part.strip("[](){}")
            if not part.startswith("-") or part in ("-", "--") or re.fullmatch(r"-\d[\d.]*", part):
                continue
            name = part.split("=", 1)[0]
            if name not in known:
                problems.append(f"'{command.name}' has no option {name}")
    return problems


DOCUMENTED = _documented()


def test_the_docs_show_harness_commands() -> None:
    # the parser finds the everyday commands of the README: a parser that finds nothing passes every check
    shown = {words[0] for _where, words in DOCUMENTED if words}
    assert {"run", "report", "compare", "review", "oracle-eval", "manual", "data"} <= shown, shown
    assert len(DOCUMENTED) > 50


def test_every_documented_command_and_option_exists() -> None:
    root = typer.main.get_command(app)
    bad = [f"{where}\n    {'; '.join(problems)}" for where, words in DOCUMENTED
           if (problems := _problems(words, root))]
    assert not bad, "documented commands the app no longer has:\n" + "\n".join(bad)


@pytest.mark.parametrize("words, expected", [
    (["run", "--suite", "x", "--no-such-option"], "has no option --no-such-option"),
    (["reprot", "RUN"], "no command 'reprot'"),
    (["report", "RUN", "[--method", "sentence|--compatt]"], "has no option --compatt"),
])
def test_a_changed_command_is_caught(words: list[str], expected: str) -> None:
    assert any(expected in p for p in _problems(words, typer.main.get_command(app)))


def test_every_marked_example_output_has_a_command_that_makes_it() -> None:
    # the blocks scripts/refresh_examples.py rewrites: each marked block names an example it knows how to run
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("refresh_examples", ROOT / "scripts" / "refresh_examples.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    marked = [m["name"] for path in module.FILES for m in module.MARKED.finditer(path.read_text(encoding="utf-8"))]
    assert {"readme-run", "ci-gate-failed"} <= set(marked)
    assert module.refresh(None, check=True) == 0
