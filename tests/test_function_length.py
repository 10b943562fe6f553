"""Every function of the source is under 80 lines, counted from its `def` to its last line (issue 37: `harness
run`'s command was 148 lines with 30 parameters). A longer one fails here, named with its file, line and length;
split it into functions with one job each. Decorators are not counted; nested functions are counted on their own
(and inside the function that holds them)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ("harness", "adapters", "metrics", "oracles", "question_gen", "whitebox")
LIMIT = 80


def long_functions(source: str, name: str, limit: int = LIMIT) -> list[str]:
    """'FILE:LINE NAME is N lines' for each function of `source` longer than `limit` lines."""
    found = []
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append(f"{name}:{node.lineno} {node.name} is {length} lines")
    return found


def test_every_function_is_under_80_lines() -> None:
    files = [path for folder in SOURCE for path in sorted((ROOT / folder).rglob("*.py"))]
    assert len(files) > 100  # the folders were found
    found = [line for path in files
             for line in long_functions(path.read_text("utf-8"), str(path.relative_to(ROOT)))]
    assert not found, f"functions over {LIMIT} lines (split them): " + "; ".join(found)


def test_the_check_counts_from_def_and_finds_nested_and_async_functions() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    source = (f"@decorator\ndef fits():\n{body}\n\n"  # 80 lines from def: allowed
              f"def long():\n{body}\n    x = 1\n\n"  # 81
              f"class C:\n    async def method(self):\n{body.replace('    ', '        ')}\n        y = 2\n"
              f"        def inner():\n            pass\n")  # 83, holding a 2-line function
    assert long_functions(source, "m.py") == ["m.py:83 long is 81 lines", "m.py:166 method is 83 lines"]
