"""Start-up stays small (issue 38): a listing imports no numeric library, `--version` no command group.

`harness suites` imports every method's declaration (it counts every suite); pandas, scipy.stats, statsmodels
and matplotlib were 3.5 CPU s of it before the families named them lazily (harness.core.lazy). Each command
runs through the real `harness.cli.main` in its own interpreter, which then reports what sys.modules holds:
a library imported by any module on the way is there, so a top-level import added back anywhere fails here.
Timing is benchmarks/startup.py's job, not a test's (the machine may be busy).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import typer

from harness import cli

NUMERIC = ("scipy", "pandas", "matplotlib", "statsmodels", "spacy", "torch")
PROBE = ("import json, sys\nfrom harness.cli import main\ncode = main(sys.argv[1:])\n"
         "print(json.dumps({'code': code, 'modules': sorted(sys.modules)}))\n")


def _modules(tmp_path: Path, *args: str) -> tuple[int, set[str], str]:
    """Run `harness ARGS` in a fresh interpreter; its exit code, the modules it imported, its output."""
    env = {**os.environ, "HARNESS_DATA_DIR": str(tmp_path / "no-data"), "HARNESS_CACHE_DIR": str(tmp_path / "cache"),
           "HARNESS_TRANSCRIPTS_DIR": str(tmp_path / "runs"), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    out = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    return report["code"], set(report["modules"]), out.stdout


def _imported(modules: set[str], top: str) -> bool:
    return any(name == top or name.startswith(top + ".") for name in modules)


def test_listing_the_suites_imports_no_numeric_library(tmp_path: Path) -> None:
    code, modules, output = _modules(tmp_path, "suites")
    assert code == 0 and "builtin-en" in output
    assert "harness.declarations.bbq" in modules and "harness.metrics.bbq" in modules  # every method was loaded
    assert [top for top in NUMERIC if _imported(modules, top)] == []
    # nor the run engine nor the report: only the group adding `suites` (the political method's judge reads
    # harness.run.manifest, so harness.run itself may be there)
    assert not [m for m in ("harness.run.engine", "harness.run.execute", "harness.report") if _imported(modules, m)]


def test_a_dry_run_imports_no_numeric_library(tmp_path: Path) -> None:
    code, modules, output = _modules(tmp_path, "run", "--dry-run", "-s", "builtin-en", "-t", "local", "--sample", "5")
    assert code == 0 and "to ask now: 5" in output
    assert [top for top in NUMERIC if _imported(modules, top)] == []
    # the registry is lazy: of the twelve methods only the suite's own (its generator's) was imported
    methods = {m for m in modules if m.startswith(("harness.declarations.", "harness.political.method"))}
    assert methods == {"harness.declarations.biasasker", "harness.declarations.examples"}


def test_the_version_imports_no_command_group(tmp_path: Path) -> None:
    code, modules, output = _modules(tmp_path, "--version")
    assert code == 0 and output.startswith("harness ")
    # harness.cli.fast_exit is the entry point's own 40-line helper (no imports of its own), not a group
    assert not [m for m in modules if m.startswith(("harness.cli.", "harness.run", "harness.metrics"))
                and m != "harness.cli.fast_exit"]


def test_the_start_up_table_names_what_each_group_adds() -> None:
    """cli.ADDS (which group `harness NAME` builds) is what each of the harness's own groups registers."""
    assert set(cli.ADDS) == {name for name in cli.COMMANDS.names() if cli.COMMANDS.origin(name) == "harness-bias"}
    for group, adds in cli.ADDS.items():
        app = typer.Typer()
        entry = cli.COMMANDS[group]
        (entry.register if isinstance(entry, ModuleType) else entry)(app)
        names = [info.name or info.callback.__name__ for info in app.registered_commands]
        names += [info.name for info in app.registered_groups]
        assert tuple(names) == adds, group
    assert cli.groups_for(["suites"]) == ["questions"] and cli.groups_for(["--version"]) == []
    assert len(cli.groups_for(["--help"])) == len(cli.COMMANDS.names())  # help, a typo: every group
    assert len(cli.groups_for(["sutes"])) == len(cli.COMMANDS.names())
    assert len(cli.groups_for(["--help", "run"])) == len(cli.COMMANDS.names())  # the root's help lists them all
    assert cli.groups_for(["run", "--help"]) == ["run"]
