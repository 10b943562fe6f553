"""The import contract: layers point one way and no module takes part in an import cycle.

Read from the source (every `import` statement, those inside functions included), not from what happens to
be imported at run time, so a cycle held apart by an import inside a function still fails here. Folders
map to dotted names as setup.py installs them (adapters/ -> harness.adapters, ...).

The layers, lowest first; a module may import its own layer's package and anything below it, never above.
Siblings in one layer (adapters, question_gen, oracles, metrics) are independent of each other.

A module named by a string counts as imported for the layers: `importlib.import_module("harness.x.y")`, and
any other string that is exactly a project module's name or "module:attribute" (an entry-point-like
reference such as "harness.whitebox.calibration.adapter:CalibratedHFAdapter"), docstrings aside. A lower
layer reaching a higher one through a string is the same dependency, only hidden; a plugin registers
itself instead. (A registry's lazy "module:attr" entry naming its own package's module is a lazy import, not a
cycle: the cycle check reads import statements only.)
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
    # one declaration per method (harness.core.method.Method): it names its generator, reader and family,
    # three siblings of the layer below, and the run reads only the tables filled from it
    ("harness.declarations",),
    ("harness.run",),
    ("harness.judge",),
    ("harness.score",),
    ("harness.report",),
    ("harness.gates", "harness.human"),
    ("harness.view",),
    ("harness.cli",),
    # a method package (Liu et al.'s political bias): its judge, reader and `harness calibrate`, reached by
    # their entry points only, so it may import any layer (the command the CLI's shared options) and none
    # imports it
    ("harness.political",),
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


def imports_of(name: str, path: Path, known: set[str], *, strings: bool = False) -> set[str]:
    """Project modules `name` imports anywhere in its source (relative imports resolved); with `strings`,
    those it names in strings instead."""
    return imports_in_source(name, path.read_text("utf-8"), known, is_pkg=path.name == "__init__.py",
                             strings=strings)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (a module's, class's or function's first statement)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def imports_in_source(name: str, source: str, known: set[str], *, is_pkg: bool = False,
                      strings: bool = False) -> set[str]:
    """Project modules the source of module `name` imports with import statements anywhere, or (strings)
    names in strings (the module docstring)."""
    tree = ast.parse(source, name)
    docs = _docstrings(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        targets: list[str] = []
        if strings:
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                ref = node.value.partition(":")[0]
                if ref in known and (ref == node.value or node.value.partition(":")[2].isidentifier()):
                    targets = [ref]
        elif isinstance(node, ast.Import):
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


@pytest.fixture(scope="module")
def named() -> dict[str, set[str]]:
    """The modules each module names in strings (import_module("..."), "module:attribute")."""
    files = dict(module_files())
    known = set(files)
    return {name: imports_of(name, path, known, strings=True) for name, path in files.items()}


def layer_of(module: str) -> tuple[int, str] | None:
    for level, layer in enumerate(LAYERS):
        for package in layer:
            if module == package or module.startswith(package + "."):
                return level, package
    return None


def test_every_module_belongs_to_a_layer(graph: dict[str, set[str]]) -> None:
    homeless = sorted(m for m in graph if m not in ROOT_MODULES and layer_of(m) is None)
    assert not homeless, f"modules outside every layer (add their package to LAYERS): {homeless}"


def wrong_way(graph: dict[str, set[str]]) -> list[str]:
    """"importer -> imported" for every import that points up a layer or across independent siblings."""
    wrong = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        mine, theirs = layer_of(importer), layer_of(imported)
        if mine is None or theirs is None:
            continue
        if theirs[0] > mine[0] or (theirs[0] == mine[0] and theirs[1] != mine[1]):
            wrong.append(f"{importer} -> {imported}")
    return wrong


def test_layers_point_one_way(graph: dict[str, set[str]], named: dict[str, set[str]]) -> None:
    wrong = wrong_way({m: graph[m] | named.get(m, set()) for m in graph})
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
    assert (layer_of("harness.core.records")[0] < layer_of("harness.perturb.text")[0]
            < layer_of("harness.adapters.base")[0])


#: A made-up project: a core module that imports the CLI in a function, a metrics module that names the
#: white-box layer through import_module, an adapter registry that names it as an entry-point string, a
#: metrics module importing its sibling oracles, and a cycle between two score modules.
MADE_UP = {
    "harness.core.paths": "def f():\n    from harness.cli.run import main\n",
    "harness.metrics.fam": '"""Docstring naming harness.whitebox.perplexity is fine."""\nimport importlib\n'
                           'def g():\n    return importlib.import_module("harness.whitebox.perplexity")\n',
    "harness.adapters.registry": 'KINDS = {"x": "harness.whitebox.perplexity:Model"}\nMSG = "see harness.cli.run"\n',
    "harness.metrics.other": "from harness.oracles import text\n",
    "harness.score.a": "from harness.score import b\n",
    "harness.score.b": "import harness.score.a\n",
    "harness.cli.run": "from harness.core import paths\n",
    "harness.whitebox.perplexity": "import harness.core.paths\n",
    "harness.oracles.text": "",
}


def test_the_contract_fails_on_a_made_up_violating_graph() -> None:
    """The checks, run on the made-up sources above, name every planted violation and nothing else."""
    known = set(MADE_UP) | {"harness.core", "harness.score", "harness.oracles", "harness.cli", "harness.metrics"}
    graph = {name: imports_in_source(name, src, known) for name, src in MADE_UP.items()}
    named = {name: imports_in_source(name, src, known, strings=True) for name, src in MADE_UP.items()}
    assert wrong_way({m: graph[m] | named[m] for m in graph}) == [
        "harness.adapters.registry -> harness.whitebox.perplexity",  # an entry-point-like string
        "harness.core.paths -> harness.cli.run",  # an import inside a function
        "harness.metrics.fam -> harness.whitebox.perplexity",  # importlib.import_module("...")
        "harness.metrics.other -> harness.oracles",  # an independent sibling
        "harness.metrics.other -> harness.oracles.text",
    ]
    assert cycles(graph) == [["harness.cli.run", "harness.core.paths"], ["harness.score.a", "harness.score.b"]]
    # without the strings, the two hidden dependencies are invisible: that is what the string check adds
    assert wrong_way(graph) == ["harness.core.paths -> harness.cli.run", "harness.metrics.other -> harness.oracles",
                                "harness.metrics.other -> harness.oracles.text"]
    # a docstring or a sentence that mentions a module is not an import
    assert "harness.cli.run" not in named["harness.adapters.registry"]


def test_the_white_box_adapter_is_registered_like_a_plugin() -> None:
    """hf-calibrated (harness.whitebox, above the adapters) comes through the project's own entry point,
    declared in pyproject.toml like every built-in adapter, not through a string in adapters/registry.py."""
    import tomllib

    from harness.adapters.registry import ENTRY_POINT_GROUP, adapter_class

    declared = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["entry-points"]
    assert declared[ENTRY_POINT_GROUP]["hf-calibrated"] == "harness.whitebox.calibration.adapter:CalibratedHFAdapter"
    assert "harness.whitebox" not in (ROOT / "adapters" / "registry.py").read_text("utf-8")
    assert adapter_class("hf-calibrated").__module__ == "harness.whitebox.calibration.adapter"
