"""A method's one declaration (harness.core.method): each mistake is one sentence naming the method and the
field, a registered method fills every table the stages read, and the harness's own declarations say what
their modules define (a constant added to a family module and not to its declaration fails here)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from types import ModuleType

import pandas as pd
import pytest

from harness.core.kinds import Headline, ProbeKind, kind_spec
from harness.core.method import (
    METHODS,
    DeclarationError,
    FamilySpec,
    Method,
    SuiteGenerator,
    register_method,
    unregister_method,
)
from harness.core.records import Probe, Reply, Verdict
from harness.core.registry import RegistrationError


def _compute(df: pd.DataFrame) -> dict[str, float]:
    return {"zqm.rate": float(df["biased"].mean())}


def _example() -> pd.DataFrame:
    return pd.DataFrame({"biased": [True, False, False, True]})


def test_a_misspelt_field_is_one_sentence_naming_the_field_and_the_closest_one() -> None:
    with pytest.raises(DeclarationError) as caught:
        FamilySpec(compute=_compute, headlines=())  # type: ignore[call-arg]
    assert str(caught.value) == "FamilySpec has no field 'headlines' (did you mean 'headline'?)."
    with pytest.raises(DeclarationError) as caught:
        Method(name="zqm", kind=())  # type: ignore[call-arg]
    assert str(caught.value) == "Method 'zqm': Method has no field 'kind' (did you mean 'kinds'?)."
    with pytest.raises(DeclarationError, match="SuiteGenerator has no field 'zzz'; its fields: generate, count"):
        SuiteGenerator(generate=iter, count=len, zzz=1)  # type: ignore[call-arg]


def test_a_missing_function_is_one_sentence_naming_the_method_and_the_field() -> None:
    with pytest.raises(DeclarationError) as caught:
        Method(name="zqm", family=FamilySpec(compute=None))  # type: ignore[arg-type]
    assert str(caught.value) == "Method 'zqm': family.compute is None, not a function."
    gen = SuiteGenerator(generate=iter, count=len, variants="not callable")  # type: ignore[arg-type]
    with pytest.raises(DeclarationError) as caught:
        Method(name="zqm", generators={"zq": gen})
    assert str(caught.value) == "Method 'zqm': generators['zq'].variants is 'not callable', not a function."
    with pytest.raises(DeclarationError, match=r"^Method 'zqm': kinds holds 'zq_kind', not a ProbeKind\.$"):
        Method(name="zqm", kinds=("zq_kind",))  # type: ignore[arg-type]
    with pytest.raises(DeclarationError, match=r"^Method 'zqm': rules\['\*/zq'\] is 3, not a function\.$"):
        Method(name="zqm", rules={"*/zq": 3})  # type: ignore[dict-item]


def test_a_headline_the_family_never_writes_is_caught_on_its_example_rows() -> None:
    wrong = Method(name="zqm", family=FamilySpec(compute=_compute, headline=(Headline("zqm.rat", "Rate"),),
                                                 example=_example))
    with pytest.raises(DeclarationError) as caught:
        register_method(wrong)
    assert str(caught.value) == ("Method 'zqm': family.headline names 'zqm.rat', a metric its family never writes "
                                 "on its example rows (it writes zqm.rate).")
    assert "zqm" not in METHODS


def _read(probe: Probe, reply: Reply, method: str) -> Verdict:
    return Verdict(probe.id, "affirm", True, "zq-rules")


@pytest.fixture
def zq_method() -> Iterator[Method]:
    method = Method(
        name="zqm",
        generators={"zqm": SuiteGenerator(generate=lambda spec, name: iter(()), count=lambda spec: 0)},
        kinds=(ProbeKind("zq_kind", "zqm"),),
        rules={"*/zq_kind": _read},
        family=FamilySpec(compute=_compute, headline=(Headline("zqm.rate", "Rate", percent=True),),
                          example=_example))
    yield register_method(method)
    unregister_method("zqm")
    from harness.core.kinds import unregister_kind
    from harness.metrics import unregister_family
    from harness.oracles import unregister_rule
    from harness.question_gen.suites import unregister_generator

    unregister_kind("zq_kind")
    unregister_family("zqm")
    unregister_rule("zq_kind", mode=None)
    unregister_generator("zqm")


def test_a_registered_method_fills_every_table_the_stages_read(zq_method: Method) -> None:
    from harness.metrics import FAMILIES, family_for_kind
    from harness.oracles import rule_for
    from harness.question_gen.suites import generator_module

    assert kind_spec("zq_kind") == zq_method.kinds[0]
    assert family_for_kind("zq_kind") == "zqm"
    assert FAMILIES["zqm"].headline == zq_method.family.headline  # type: ignore[union-attr]
    assert FAMILIES["zqm"].percent == ("zqm.rate",)
    assert rule_for("zq_kind", "rules") is _read and rule_for("zq_kind", "compat") is _read
    assert generator_module("zqm") is zq_method.generators["zqm"]
    with pytest.raises(RegistrationError, match="Method .zqm. is registered twice, differently: a Method and a Method"):
        register_method(Method(name="zqm"))


def test_an_entry_point_must_name_a_method_of_its_own_name() -> None:
    from harness.core.method import _method_entry

    with pytest.raises(DeclarationError, match=r"^The entry point for method 'zq' names 3, not a Method\.$"):
        _method_entry("zq", 3)
    with pytest.raises(DeclarationError, match=r"^The entry point for method 'zq' names the method 'zqm'\.$"):
        _method_entry("zq", Method(name="zqm"))


#: FamilySpec field -> the family module's constant it declares (the functions keep their names)
_CONSTANTS = {"headline": "HEADLINE", "sections": "SECTIONS", "percent": "PERCENT", "leaderboard": "LEADERBOARD",
              "leaderboard_figures": "LEADERBOARD_FIGURES", "view_metrics": "VIEW_METRICS", "meta_key": "META_KEY",
              "pair_key": "PAIR_KEY", "gate_silence": "GATE_SILENCE", "chance_gates": "CHANCE_GATES",
              "shortfall_gates": "SHORTFALL_GATES", "estimate_gates": "ESTIMATE_GATES",
              "corrected_rates": "CORRECTED_RATES",
              "compare_hidden": "COMPARE_HIDDEN", "findings_caption": "FINDINGS_CAPTION", "tables": "tables",
              "plots": "plots", "summary": "summary", "example_rows": "example_rows",
              "paired_outcomes": "paired_outcomes"}
_GENERATOR = {"generate_at": "generate_at", "count_by_type": "count_by_type", "variants": "variants",
              "answer_mode": "ANSWER_MODE", "target_kind": "TARGET_KIND", "sampling_options": "SAMPLING_OPTIONS"}


def _module_of(function: object) -> ModuleType:
    return sys.modules[getattr(function, "__module__", "")] or importlib.import_module(function.__module__)


def _undeclared(declared: object, module: ModuleType, table: dict[str, str], where: str) -> list[str]:
    out = []
    for field_name, attr in table.items():
        if not hasattr(module, attr):
            continue
        have, want = getattr(declared, field_name), getattr(module, attr)
        if isinstance(want, list | tuple) and have is not None:
            want, have = tuple(want), tuple(have)
        if have != want:
            out.append(f"{where}: {module.__name__}.{attr} is not its declaration's {field_name}")
    return out


def test_the_harness_declarations_say_what_their_modules_define() -> None:
    """A constant or function a family or generator module defines (HEADLINE, CHANCE_GATES, plots, variants,
    ANSWER_MODE, ...) is its method's declared field: nothing a module defines is silently left out."""
    wrong: list[str] = []
    for name in METHODS.names():
        if METHODS.origin(name) != "harness-bias":
            continue
        method = METHODS[name]
        if method.family is not None:
            module = _module_of(method.family.compute)
            wrong += _undeclared(method.family, module, _CONSTANTS, f"method {name}")
            kinds = tuple(getattr(module, "KINDS", ()))
            if kinds and kinds != method.kinds:
                wrong.append(f"method {name}: {module.__name__}.KINDS are not its declared kinds")
        for gen_name, gen in method.generators.items():
            wrong += _undeclared(gen, _module_of(gen.generate), _GENERATOR, f"generator {gen_name}")
    assert not wrong, "\n".join(wrong)


def test_every_headline_of_a_family_with_stored_runs_is_written_by_them() -> None:
    """The built-in families' example output is the golden transcripts' scoring (tests/data/golden): each
    headline of a family those runs score names a metric they wrote (a misspelt HEADLINE key shows nothing)."""
    import json
    from pathlib import Path

    golden = Path(__file__).resolve().parent.parent / "data" / "golden" / "expected.json"
    written = set().union(*(set(doc["metrics"]) for doc in json.loads(golden.read_text("utf-8")).values()))
    checked, wrong = [], []
    for name in METHODS.names():
        family = METHODS[name].family
        if family is None or not any(key.startswith(f"{name}.") for key in written):
            continue
        checked.append(name)
        wrong += [f"{name}: {h.key}" for h in family.headline
                  if not any(key == h.key or key.startswith(h.key + ".") for key in written)]
    assert {"biasasker", "cbbq", "chbias", "political"} <= set(checked)
    assert not wrong, "headlines naming a metric the stored runs never wrote:\n" + "\n".join(wrong)
