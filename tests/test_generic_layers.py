"""The generic layers name no probe kind, no metric family and no family's metric.

Report, score, gates, judge, human, view (its scripts and pages included), cli and run read declarations
(harness.core.method.Method: its ProbeKinds, its FamilySpec's headline, leaderboard, view_metrics, ...;
docs/architecture.md, "A method: one declaration"), so a kind or a family is added by its own files
alone. This test reads
what is registered at test time, so it needs no update when a kind, a family or a metric is added:

- the names: every registered kind and family (harness.core.kinds, harness.metrics.families());
- the metric keys: every key a family declares (its headline numbers, its leaderboard rows, its view metrics,
  its kinds' default gates) and every key the stored transcripts' scoring gave per family
  (tests/data/golden/expected.json), less the run's own keys (those every family's run holds: answered,
  refusal_rate, ...), which scoring computes for any run.

What counts as naming one, in a generic layer:
- a Python string literal (ast: a str constant, an f-string's literal parts) equal to a name or key once
  stripped of the separators around it (".", "_", ":", "-", "/", blanks): "cbbq", "cbbq.",
  "absolute_bias_rate";
- a Python identifier (a name, an attribute, a def / class / argument / keyword / import name) equal,
  in any case, to a kind's or family's name that is no English word (below), a KIND_* constant (of the
  generator, family or reader modules) whose value is a kind, or an identifier one of whose "_"-parts is such a family
  name (`load_cbbq_answers`, `CbbqAnswer`);
- an imported module path one of whose parts is a family's name, or a family's module name (a generic layer
  importing harness.metrics.chbias, or a family's helper module harness.metrics.biasasker_plots), and a
  module of the layer whose file is named after a family;
- in view/static (JavaScript, HTML) and the report's templates: a quoted string equal to a name or a key.

Words that are English as well as a kind's name ("choice", "decision", "continuation") are matched only as
whole string literals: an identifier `choice` or `decision` is ordinary code. A name counts as such a word
when Python's standard library writes it (code_words(): "decision" is there, "cbbq" and "tod" are not).
A sentence is never read word by word (docstrings, help and messages are prose: "the decision a bot takes"
is no use of the kind): a string counts only when the whole of it is a name or a key.

`python tests/test_generic_layers.py` prints what is left.
"""

from __future__ import annotations

import ast
import json
import re
import sysconfig
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GENERIC = ("report", "score", "gates", "judge", "human", "view", "cli", "run")
GOLDEN = ROOT / "tests" / "data" / "golden" / "expected.json"
TEXT_SUFFIXES = (".js", ".html", ".j2")
_SEP = " ._:-/"
_WORD = re.compile(r"(?<![A-Za-z0-9_])[a-z]+(?![A-Za-z0-9_])")
_QUOTED = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1""")


# --- what is registered ------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def registry() -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
    """(kind names, family names, metric keys) as registered now."""
    from harness.core.kinds import registered_kinds
    from harness.metrics import families

    fams = families()  # imports every family module, so every kind it declares is registered
    kinds = registered_kinds()
    keys: set[str] = set()
    for fam in fams.values():
        keys |= {h.key for h in fam.headline}
        keys |= {m.key for m in fam.view_metrics}
        for table in fam.leaderboard:
            keys |= {table.when, table.tested_as, *table.covers}
            if not callable(table.rows):
                keys |= {key for _label, key in table.rows}
    for spec in kinds.values():
        keys |= {re.split(r"[<>]?=", gate, maxsplit=1)[0].strip() for gate in spec.gates}  # "m=v", "m>=v"
    keys |= stored_family_keys()
    keys.discard("")
    return frozenset(kinds), frozenset(fams), frozenset(keys)


def stored_family_keys() -> set[str]:
    """The metric keys the stored transcripts' scoring gave, less those every run holds (the run's own)."""
    runs = [set(doc.get("metrics") or {}) for doc in json.loads(GOLDEN.read_text("utf-8")).values()]
    if not runs:
        return set()
    common = set.intersection(*runs)
    return set().union(*runs) - common


@lru_cache(maxsize=1)
def code_words() -> frozenset[str]:
    """The lower-case words of Python's standard library (its code, docstrings and comments; its tests left
    out): English as programs write it. A kind named by one of them ("choice", "decision") is also a
    word any code may use."""
    lib = Path(sysconfig.get_paths()["stdlib"])
    words: set[str] = set()
    for path in lib.rglob("*.py"):
        if not {"site-packages", "test", "tests"} & set(path.relative_to(lib).parts):
            words.update(_WORD.findall(path.read_text("utf-8", errors="replace")))
    return frozenset(words)


def distinctive(name: str) -> bool:
    """A name that is no ordinary word of code: it holds "_" or a digit, or the standard library never
    writes it ("cbbq", "biasasker", "tod" are names; "choice", "decision" are words)."""
    return not name.isalpha() or name not in code_words()


# --- reading the layers ------------------------------------------------------------------------------
def generic_files() -> Iterator[Path]:
    for layer in GENERIC:
        for path in sorted((ROOT / "harness" / layer).rglob("*")):
            if path.is_file() and (path.suffix == ".py" or path.suffix in TEXT_SUFFIXES):
                yield path


def _stripped(text: str) -> str:
    return text.strip(_SEP)


def _literal_hits(text: str, names: frozenset[str]) -> Iterator[str]:
    if text in names:
        yield text
    elif (s := _stripped(text)) and s != text and s in names:
        yield s


def _identifiers(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name):
            yield line, node.id
        elif isinstance(node, ast.Attribute):
            yield line, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield line, node.name
        elif isinstance(node, ast.arg | ast.keyword) and node.arg:
            yield line, node.arg
        elif isinstance(node, ast.alias):
            yield line, (node.asname or node.name).split(".")[-1]


def _parts(ident: str) -> list[str]:
    """An identifier's words, lower case: `load_cbbq_answers`, `CbbqAnswer` -> [..., "cbbq", ...]."""
    return [p.lower() for p in re.split(r"_+|(?<=[a-z0-9])(?=[A-Z])", ident) if p]


def _strings(tree: ast.AST) -> Iterator[tuple[int, str]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield getattr(node, "lineno", 0), node.value


def _imports(tree: ast.AST) -> Iterator[tuple[int, list[str]]]:
    """Each import statement's line and the dotted paths it names (`from a.b import c`: a.b and a.b.c)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield node.lineno, [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, [node.module, *(f"{node.module}.{a.name}" for a in node.names)]


@lru_cache(maxsize=1)
def kind_constants() -> dict[str, str]:
    """The module-level KIND_* constants of the harness's own source (the generators, families and readers
    that emit or read a kind define them) whose value is a registered kind: name -> kind."""
    kinds = registry()[0]
    found: dict[str, str] = {}
    for top in sorted(p for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        if top.name == "tests":
            continue
        for path in sorted(top.rglob("*.py")):
            for node in ast.parse(path.read_text("utf-8")).body:
                if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                        and isinstance(node.value.value, str) and node.value.value in kinds):
                    found |= {t.id: node.value.value for t in node.targets
                              if isinstance(t, ast.Name) and t.id.startswith("KIND_")}
    return found


def _shown(path: Path) -> Path:
    """The path as a message names it: relative to the repository (a made-up file: its name)."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else Path(path.name)


def python_violations(path: Path) -> Iterator[str]:
    kinds, fams, keys = registry()
    names = kinds | fams
    everything = names | keys
    words = {n for n in names if distinctive(n)}
    family_words = {f for f in fams if distinctive(f)}
    rel = _shown(path)
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    if path.stem in fams:
        yield f"{rel}: the module is named after the family '{path.stem}'"
    for line, text in _strings(tree):
        for hit in _literal_hits(text, everything):
            what = "kind" if hit in kinds else "family" if hit in fams else "metric key"
            yield f"{rel}:{line}: string {text!r} names the {what} '{hit}'"
    for line, ident in _identifiers(tree):
        low = ident.lower()
        if ident in kind_constants():
            yield f"{rel}:{line}: identifier {ident} is the kind '{kind_constants()[ident]}'"
        elif low in words:
            yield f"{rel}:{line}: identifier {ident} names '{low}'"
        elif len(parts := _parts(ident)) > 1 and (hit := next((p for p in parts if p in family_words), None)):
            yield f"{rel}:{line}: identifier {ident} names the family '{hit}'"
    for line, paths in _imports(tree):
        hit = next(((path, part) for path in paths for part in path.split(".")
                    if part in fams or (path.startswith("harness.metrics.")
                                        and any(part.startswith(f + "_") for f in fams))), None)
        if hit:
            yield f"{rel}:{line}: imports {hit[0]}, a module of the family '{hit[1]}' or named after it"


def text_violations(path: Path) -> Iterator[str]:
    kinds, fams, keys = registry()
    everything = kinds | fams | keys
    rel = _shown(path)
    for i, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        for match in _QUOTED.finditer(line):
            for hit in _literal_hits(match.group(2), everything):
                yield f"{rel}:{i}: string {match.group(0)} names '{hit}'"


def violations() -> list[str]:
    out: list[str] = []
    for path in generic_files():
        out += python_violations(path) if path.suffix == ".py" else text_violations(path)
    return list(dict.fromkeys(out))


# --- the contract ------------------------------------------------------------------------------------
def test_the_registries_are_read() -> None:
    kinds, fams, keys = registry()
    assert kinds and fams and keys
    assert all(isinstance(k, str) and k for k in kinds | fams | keys)


def test_generic_layers_name_no_kind_family_or_metric() -> None:
    found = violations()
    head = f"{len(found)} names of kinds, families or metrics in generic layers:\n"
    assert not found, head + "\n".join(found)


def test_the_check_catches_each_way_of_naming(tmp_path: Path) -> None:
    """The detector on a made-up module and script: each way of naming is caught, ordinary code is not."""
    kinds, fams, keys = registry()
    family = sorted(f for f in fams if distinctive(f))[0]
    kind = sorted(k for k in kinds if "_" in k)[0]
    word = next((k for k in sorted(kinds) if not distinctive(k)), None)
    key = sorted(k for k in keys if "." in k)[0]
    const = next(iter(sorted(kind_constants())), None)
    bad = tmp_path / "made_up_layer_module.py"
    src = "\n".join([
        f"from harness.metrics.{family} import compute",
        f"KIND = {kind!r}",
        f"PREFIX = '{family}.'",
        f"def total(m): return m[{key!r}]",
        f"def read({family}_judge=None): return f'{{x}}.{family}'",
        *([f"KINDS = ({const},)"] if const else []),
        *([f"MODE = {word!r}"] if word else []),
    ])
    good = "\n".join([
        "from harness.metrics import families",
        f"def f({word or 'choice'}, decision):",
        "    return [h.key for fam in families().values() for h in fam.headline]",
        "TEXT = 'a sentence that mentions no name on its own'",
        f"HELP = 'the {word or 'choice'} a person makes, said in a sentence of help'",
    ])
    bad.write_text(src, "utf-8")
    found = list(python_violations(bad))
    bad.write_text(good, "utf-8")
    clean = list(python_violations(bad))
    joined = "\n".join(found)
    assert f"harness.metrics.{family}" in joined  # an import of a family module
    assert f"string {kind!r}" in joined  # a kind as a literal
    assert f"string '{family}.'" in joined  # a family prefix
    assert f"string {key!r}" in joined  # a metric key
    assert f"{family}_judge" in joined  # an identifier holding the family's name
    assert f"string '.{family}'" in joined  # an f-string's literal part
    if const:
        assert f"identifier {const}" in joined  # a KIND_* constant
    if word:
        assert f"string {word!r} names the kind" in joined  # an English-word kind as a whole literal
    assert clean == []
    script = tmp_path / "x.js"
    script.write_text(f'const KEYS = ["{key}", "plain words"];\nconst x = "{kind}";\n', "utf-8")
    assert len(list(text_violations(script))) == 2


def test_a_kind_added_later_is_checked_without_editing_this_test(tmp_path: Path) -> None:
    """A kind and a family registered now (as a plugin's entry points would) are names the check knows."""
    from harness.core.kinds import Headline, ProbeKind, register_kind, unregister_kind
    from harness.core.method import FamilySpec
    from harness.metrics import Family, register_family, unregister_family

    spec = FamilySpec(compute=lambda df: {}, headline=(Headline("zqfam.score", "Score"),))
    register_kind(ProbeKind("zq_kind", "zqfam"))
    register_family(Family("zqfam", spec))
    registry.cache_clear()
    try:
        made_up = tmp_path / "layer_module.py"
        made_up.write_text("A = 'zq_kind'\nB = 'zqfam.score'\ndef zqfam_total(): return 'zqfam'\n", "utf-8")
        found = "\n".join(python_violations(made_up))
    finally:
        unregister_family("zqfam")
        unregister_kind("zq_kind")
        registry.cache_clear()
    assert "names the kind 'zq_kind'" in found and "names the metric key 'zqfam.score'" in found
    assert "string 'zqfam'" in found and "identifier zqfam_total" in found


if __name__ == "__main__":  # the list of what is left: python tests/test_generic_layers.py
    print("\n".join(violations()))
