"""The probe-kind registry: one declaration per kind, the built-in kinds as their families declare them,
and what the generic stages read from it."""

from __future__ import annotations

import pytest

from harness.core.kinds import (
    ProbeKind,
    RegistrationError,
    kind_spec,
    register_kind,
    register_reader,
    registered_kinds,
    unregister_kind,
    unregister_reader,
)
from harness.metrics import families, family_for_kind


def test_a_kind_is_declared_once() -> None:
    kind = ProbeKind("unit_kind", "unit_family")
    try:
        register_kind(kind)
        register_kind(ProbeKind("unit_kind", "unit_family"))  # the same declaration again: fine
        with pytest.raises(RegistrationError, match="registered twice, differently"):
            register_kind(ProbeKind("unit_kind", "another_family"))
        assert kind_spec("unit_kind") == kind
    finally:
        unregister_kind("unit_kind")
    assert kind_spec("unit_kind") is None


def test_a_reader_name_is_taken_once() -> None:
    def first(pairs, context):  # noqa: ANN001, ANN202
        return None

    def second(pairs, context):  # noqa: ANN001, ANN202
        return None

    try:
        register_reader("unit-reader", first)
        register_reader("unit-reader", first)
        with pytest.raises(RegistrationError, match="registered twice"):
            register_reader("unit-reader", second)
    finally:
        unregister_reader("unit-reader")


def test_the_built_in_kinds_as_their_families_declare_them() -> None:
    families()
    assert {k: family_for_kind(k) for k in ("yes_no", "choice", "wh", "cbbq", "chbias",
                                             "political", "tod")} == {
        "yes_no": "biasasker", "choice": "biasasker", "wh": "biasasker", "cbbq": "cbbq",
        "chbias": "chbias", "political": "political", "tod": "tod"}
    assert family_for_kind("prompts") is None  # a user's own prompts: listed, scored by no family
    assert kind_spec("political").reader == "political-judge"
    assert {k: getattr(kind_spec(k).judge, "question", None)
            for k in ("yes_no", "cbbq", "chbias")} == {
        "yes_no": "statement", "cbbq": "pick_option", "chbias": None}
    assert kind_spec("choice").review_labels[0] == "choice" and not kind_spec("cbbq").review_labels


def test_the_stages_read_the_declarations() -> None:
    from harness.judge.prompts import judged_kinds
    from harness.score.review import reviewable_kinds

    # the built-in kinds as declared (a kind registered by another method's entry points joins these sets)
    built_in = {"yes_no", "choice", "wh", "cbbq", "chbias", "political", "tod"}
    assert judged_kinds() & built_in == {"yes_no", "choice", "wh", "cbbq"}
    assert reviewable_kinds() & built_in == {"yes_no", "choice", "wh"}
    assert judged_kinds() == {k for k, spec in registered_kinds().items() if spec.judge is not None}
