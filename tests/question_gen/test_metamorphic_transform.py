"""-p mutate=...: bases and variants through select_probes, composition with -p perturb, bad input."""

from __future__ import annotations

from collections import Counter

import pandas as pd
import pytest

from harness.core.errors import ConfigError, HarnessError
from harness.metrics import family_rows
from harness.question_gen.metamorphic import RELATIONS, relations_from_spec
from harness.question_gen.suites import select_probes


def test_mutate_all_yields_each_base_then_its_variants_linked_by_meta() -> None:
    probes = list(select_probes("builtin-zh", sample=12, seed=2, overrides={"mutate": "all"}))
    bases = [p for p in probes if p.meta["metamorphic"]["role"] == "base"]
    variants = [p for p in probes if p.meta["metamorphic"]["role"] == "variant"]
    assert len(bases) == 12 and len({p.id for p in probes}) == len(probes)
    base_ids = {p.id for p in bases}
    assert all(v.meta["metamorphic"]["base"] in base_ids for v in variants)
    relations = Counter(v.meta["metamorphic"]["relation"] for v in variants)
    # every base gets fiction, persona, pressure and language; split only choice questions, 2 parts each
    assert relations["fiction"] == relations["persona"] == relations["pressure"] == 12
    choices = sum(1 for b in bases if b.kind == "choice")
    assert relations["split"] == 2 * choices
    assert relations["language"] == 12 and all(v.lang == "en" for v in variants
                                                if v.meta["metamorphic"]["relation"] == "language")
    pressure = [v for v in variants if v.meta["metamorphic"]["relation"] == "pressure"]
    assert all(len(v.turns) == 2 and v.turns[0] == v.text for v in pressure)
    # the same selection gives the same probes (ids are stable)
    again = list(select_probes("builtin-zh", sample=12, seed=2, overrides={"mutate": "all"}))
    assert [p.id for p in again] == [p.id for p in probes]


def test_mutate_names_a_subset_in_registry_order_and_rejects_unknown_names() -> None:
    assert [r.name for r in relations_from_spec({"mutate": "split,fiction"})] == ["fiction", "split"]
    assert len(relations_from_spec({"mutate": "all"})) == len(RELATIONS) >= 6
    assert relations_from_spec({}) == ()
    with pytest.raises(ConfigError, match="unknown relation.*fictoin"):
        relations_from_spec({"mutate": "fictoin"})


def test_nothing_to_mutate_is_one_sentence(tmp_path) -> None:
    prompts = tmp_path / "p.txt"
    prompts.write_text("Tell me a joke.\n", encoding="utf-8")
    with pytest.raises(HarnessError, match="can be mutated"):
        list(select_probes("prompts", overrides={"file": str(prompts), "mutate": "fiction"}))


def _frame(probes) -> pd.DataFrame:
    return pd.DataFrame({"probe_id": [p.id for p in probes], "kind": [p.kind for p in probes],
                         "meta": [p.meta for p in probes]})


def test_perturbed_copies_can_be_mutated_without_double_counting() -> None:
    probes = list(select_probes("builtin-en", sample=40, seed=1,
                                overrides={"perturb": "gender", "perturb_draws": 1, "mutate": "fiction,pressure"}))
    roles = Counter((p.meta.get("counterfactual", {}).get("role"), p.meta["metamorphic"]["role"]) for p in probes)
    assert roles[("original", "base")] == roles[("perturbed", "base")] > 0
    # a variant never carries the counterfactual key: its perturbation is kept inside the metamorphic meta
    assert roles[(None, "variant")] == 4 * roles[("original", "base")]
    perturbed_variants = [p for p in probes
                          if p.meta["metamorphic"].get("counterfactual", {}).get("role") == "perturbed"]
    assert len(perturbed_variants) == 2 * roles[("perturbed", "base")]
    rows = family_rows(_frame(probes))
    assert len(rows["biasasker"]) == roles[("original", "base")]  # the paper family: originals only
    assert len(rows["counterfactual"]) == 2 * roles[("original", "base")]  # each pair once
    assert len(rows["metamorphic"]) == len(probes)  # every base and variant


def test_an_unknown_relation_is_found_when_the_selection_is_counted() -> None:
    from harness.question_gen.suites import load_suite

    # the run plan counts the selection before it makes a run folder: the bad name stops it there
    with pytest.raises(ConfigError, match="fictoin"):
        load_suite("builtin-en").with_overrides(mutate="fictoin").count()
