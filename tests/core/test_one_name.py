"""One name per method (issue 37): a method's entry point, kinds, family, readers and generator all carry the
method's own name, so a user who knows `tod` never meets `sgd_tod` or `tod_turn`. Old names still load."""

from __future__ import annotations

from importlib.metadata import entry_points
from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.core.method import METHODS
from harness.question_gen.suites import GENERATOR_ALIASES, generator_module, load_suite

#: the names a method may carry besides its own, each with the reason it stays
EXCEPTIONS = {
    # BiasAsker's paper asks three kinds of question about one pair of groups; each kind has its own reader
    # and its own refusal wording, so the three kinds are the method's own vocabulary, not drifted names
    ("biasasker", "kind"): {"yes_no", "choice", "wh"},
    ("biasasker", "rule"): {"rules/yes_no", "rules/choice", "rules/wh", "compat/*"},
    # the decision method reads a second data set (Anthropic's discrim-eval) with a second generator, beside
    # the generator named like the method
    ("decision", "generator"): {"discrim_eval"},
    # the political reader is a judge model; its name is written into every verdict's `method` column
    # ("political-judge:KIND") and into the reader options a run stores, so renaming it would change stored runs
    ("political", "reader"): {"political-judge"},
}


def _allowed(method: str, what: str) -> set[str]:
    return EXCEPTIONS.get((method, what), set())


def _harness_entry_points() -> dict[str, str]:
    found = entry_points(group="harness.methods")
    return {ep.name: ep.value for ep in found if ep.value.startswith("harness.")}


def test_every_method_has_one_name_across_its_layers() -> None:
    methods = {m.name: m for m in METHODS.values()}
    builtin = _harness_entry_points()
    assert set(builtin) >= {"bbq", "biasasker", "cbbq", "chbias", "crows_pairs", "decision", "tod"}
    for ep_name in builtin:
        method = methods[ep_name]  # the entry point's name is the declaration's name
        name = method.name
        assert name == ep_name
        for gen in method.generators:
            assert gen == name or gen in _allowed(name, "generator"), (name, gen)
        if method.generators:
            assert name in method.generators, f"{name}'s generators {list(method.generators)} lack its name"
        for kind in method.kinds:
            assert kind.name == name or kind.name in _allowed(name, "kind"), (name, kind.name)
            assert kind.family == name, (name, kind.name, kind.family)
        for rule in method.rules:
            assert rule.split("/", 1)[1] == name or rule in _allowed(name, "rule"), (name, rule)
        for reader in method.kind_readers:
            assert reader == name or reader in _allowed(name, "reader"), (name, reader)


def test_tod_generator_is_named_tod_and_the_old_name_still_finds_it() -> None:
    assert GENERATOR_ALIASES == {"sgd_tod": "tod"}  # one alias, the one rename
    assert "sgd_tod" not in METHODS["tod"].generators
    assert generator_module("sgd_tod") is generator_module("tod") is METHODS["tod"].generators["tod"]
    assert load_suite("sgd-tod").generator == "tod"  # the shipped file names the new one


def test_an_old_suite_file_naming_sgd_tod_loads_as_tod(tmp_path: Path) -> None:
    old = tmp_path / "my-tod.yaml"
    old.write_text("name: my-tod\ngenerator: sgd_tod\nlang: en\ndialogues: 2\n", encoding="utf-8")
    suite = load_suite(str(old))
    assert suite.name == "my-tod"
    assert suite.generator == "tod"
    assert suite.spec["generator"] == "tod"
    assert suite.module is METHODS["tod"].generators["tod"]


def test_an_unknown_generator_is_still_one_sentence(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ngenerator: sgd_todd\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown generator 'sgd_todd'.*tod"):
        load_suite(str(bad))
