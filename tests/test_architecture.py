"""The import contract: layers point one way and no module takes part in an import cycle.

Read from the source (every `import` statement, those inside functions included), not from what happens to
be imported at run time, so a cycle held apart by an import inside a function still fails here. Folders
map to dotted names as setup.py installs them (adapters/ -> harness.adapters, ...).

The layers, lowest first; a module may import its own layer's package and anything below it, never above.
Siblings in one layer (adapters, question_gen, oracles, metrics) are independent of each other.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def package_dirs() -> dict[str, str]:
    """setup.py's PACKAGE_DIRS, the one source of the folder -> package mapping (read, not imported:
    importing setup.py would run setup())."""
    tree = ast.parse((ROOT / "setup.py").read_text("utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "PACKAGE_DIRS" for t in node.targets):
            return ast.literal_eval(node.value)
    raise AssertionError("setup.py defines no PACKAGE_DIRS")


PACKAGE_DIRS = package_dirs()

LAYERS: tuple[tuple[str, ...], ...] = (
    ("harness.core", "harness.suites"),
    ("harness.perturb",),
    ("harness.adapters", "harness.question_gen", "harness.oracles", "harness.metrics"),
    ("harness.whitebox",),
    ("harness.run",),
    ("harness.judge",),
    ("harness.score",),
    ("harness.report",),
    ("harness.gates", "harness.human"),
    ("harness.view",),
    ("harness.cli",),
)
#: The root package's own modules (the version, `python -m harness`) sit outside the layers.
ROOT_MODULES = frozenset({"harness", "harness.__main__"})


def module_files() -> Iterator[tuple[str, Path]]:
    """(dotted module name, file) for every installed module, as setup.py maps the folders."""
    for package, folder in PACKAGE_DIRS.items():
        base = ROOT / folder
        for path in sorted(base.rglob("*.py")):
            rel = path.relative_to(base).with_suffix("")
            parts = [p for p in rel.parts if p != "__init__"]
            if package == "harness" and parts and f"harness.{parts[0]}" in PACKAGE_DIRS:
                continue
            if "__pycache__" in rel.parts:
                continue
            yield ".".join([package, *parts]), path


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules `name` imports anywhere in its source (relative imports resolved)."""
    tree = ast.parse(path.read_text("utf-8"), str(path))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".") if is_pkg else name.split(".")[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        for target in targets:
            while target and target not in known:  # `from pkg import name` names a module or an attribute
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    files = dict(module_files())
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def layer_of(module: str) -> tuple[int, str] | None:
    for level, layer in enumerate(LAYERS):
        for package in layer:
            if module == package or module.startswith(package + "."):
                return level, package
    return None


def test_every_module_belongs_to_a_layer(graph: dict[str, set[str]]) -> None:
    homeless = sorted(m for m in graph if m not in ROOT_MODULES and layer_of(m) is None)
    assert not homeless, f"modules outside every layer (add their package to LAYERS): {homeless}"


def test_layers_point_one_way(graph: dict[str, set[str]]) -> None:
    wrong = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        mine, theirs = layer_of(importer), layer_of(imported)
        if mine is None or theirs is None:
            continue
        if theirs[0] > mine[0] or (theirs[0] == mine[0] and theirs[1] != mine[1]):
            wrong.append(f"{importer} -> {imported}")
    assert not wrong, "imports that point up a layer or across independent siblings:\n" + "\n".join(wrong)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in graph:
                    continue
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles(graph: dict[str, set[str]]) -> None:
    found = cycles(graph)
    assert not found, "modules that import each other (directly or through others): " + "; ".join(
        " <-> ".join(c) for c in found)


def test_the_contract_catches_what_it_forbids() -> None:
    """The checks above would fail on a violation: a core module importing the CLI, and a two-module cycle."""
    assert layer_of("harness.core.records")[0] < layer_of("harness.cli.run")[0]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert layer_of("harness.adapters.base")[1] != layer_of("harness.oracles.text")[1]
    assert layer_of("harness.core.records")[0] < layer_of("harness.perturb.text")[0] < layer_of("harness.adapters.base")[0]
