"""Re-run the commands whose output README.md and docs/ show, and rewrite those blocks with what they print now.

A shown output is marked in the Markdown file:

    <!-- example: NAME -->
    ```text
    ...output...
    ```
    <!-- /example -->

and NAME is one of EXAMPLES below: the commands it runs (in a fresh folder, with a fresh response cache, so
every reply is really asked) and how its output is cut for the page. Everything between the two markers is
replaced: the output block and a line saying when and on what machine load it was made. A stale example
(README's `--sample 24 --seed 1` run shown with intervals it no longer prints, docs/ci_gates.md's gate value
0.75 where the run gives 0.375) is then one command away from fixed:

    python scripts/refresh_examples.py            # every example (a few minutes: real SmolLM2 runs)
    python scripts/refresh_examples.py --only ci-gate-failed
    python scripts/refresh_examples.py --check    # exit 1 when a marked block names no known example

Needs the data sets (HARNESS_DATA_DIR) and the `local` model (scripts/setup.sh). tests/test_docs_commands.py
checks, without running anything, that every documented `harness ...` command and option still exists.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKED = re.compile(r"(<!-- example: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /example -->)", re.S)
WIDTH = "100"  # terminal columns the outputs are drawn for (rich reads COLUMNS)


@dataclass(frozen=True)
class Example:
    """Commands run in a fresh working folder; `cut` turns their combined output into the shown text."""

    commands: list[list[str]]
    cut: Callable[[str], str] = lambda text: text
    files: tuple[Path, ...] = ()  # copied into the working folder first


def _between(start: str, end: str | None = None) -> Callable[[str], str]:
    """The output from the first line containing `start` up to (not including) the first later line containing `end`."""
    def cut(text: str) -> str:
        lines = text.splitlines()
        first = next(i for i, line in enumerate(lines) if start in line)
        last = next((i for i in range(first + 1, len(lines)) if end and end in lines[i]), len(lines))
        return "\n".join(line.rstrip() for line in lines[first:last]).strip("\n")
    return cut


EXAMPLES: dict[str, Example] = {
    # README "What a run looks like"
    "readme-run": Example([["harness", "run", "--suite", "builtin-en", "--target", "local", "--sample", "24",
                            "--seed", "1", "--no-progress"]], _between("run builtin-en__local__s24-seed1")),
    # docs/ci_gates.md: what a failed fairness gate prints (examples/fairness/fairness_strict.yaml fails on purpose)
    "ci-gate-failed": Example([["pytest", "fairness_strict.yaml", "-q", "-p", "no:cacheprovider"]],
                              _between("fairness_strict.yaml::unknown_rate", "====="),
                              files=(ROOT / "examples" / "fairness" / "fairness_strict.yaml",)),
}


def _tool(name: str) -> str:
    """The harness / pytest of this interpreter's environment (the venv), else the one on PATH."""
    local = Path(sys.executable).with_name(name)
    return str(local) if local.exists() else (shutil.which(name) or name)


def run_example(name: str) -> str:
    """The example's output, made now in a fresh folder with a fresh response cache."""
    example = EXAMPLES[name]
    with tempfile.TemporaryDirectory(prefix=f"harness-example-{name}-") as tmp:
        work = Path(tmp)
        for path in example.files:
            shutil.copy(path, work / path.name)
        env = {**os.environ, "COLUMNS": WIDTH, "HARNESS_CACHE_DIR": str(work / "cache"), "NO_COLOR": "1",
               "TERM": "dumb"}
        env.pop("HARNESS_TRANSCRIPTS_DIR", None)  # ./transcripts, as a user's first run
        out = []
        for command in example.commands:
            done = subprocess.run([_tool(command[0]), *command[1:]], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=3600)
            out.append(done.stdout + done.stderr)
        return example.cut("\n".join(out))


def _block(text: str, started: float) -> str:
    cores = os.cpu_count() or 0
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    when = time.strftime("%Y-%m-%d", time.gmtime(started))
    return (f"```text\n{text}\n```\n<sub>Output of a real run made by `python scripts/refresh_examples.py` on "
            f"{when} ({cores} cores, load average {load:.1f} at the "
            f"start{'; a busy machine' if load > cores else ''}).</sub>\n")


def refresh(only: set[str] | None, check: bool) -> int:
    unknown = []
    outputs: dict[str, str] = {}
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        for m in MARKED.finditer(text):
            if m["name"] not in EXAMPLES:
                unknown.append(f"{path.relative_to(ROOT)}: example '{m['name']}' is not in {Path(__file__).name}")
        if check:
            continue

        def fill(m: re.Match) -> str:
            name = m["name"]
            if name not in EXAMPLES or (only and name not in only):
                return m.group(0)
            if name not in outputs:
                started = time.time()
                print(f"running example {name} ...", file=sys.stderr, flush=True)
                outputs[name] = _block(run_example(name), started)
            return m.group(1) + outputs[name] + m.group(4)

        new = MARKED.sub(fill, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}", file=sys.stderr)
    for line in unknown:
        print(line, file=sys.stderr)
    return 1 if unknown else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME", help=f"Only this example: {', '.join(EXAMPLES)}.")
    parser.add_argument("--check", action="store_true", help="Only check that every marked block names an example.")
    args = parser.parse_args()
    return refresh(set(args.only) if args.only else None, args.check)


if __name__ == "__main__":
    sys.exit(main())
