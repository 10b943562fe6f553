"""metrics.metamorphic: McNemar's test and the per-relation numbers, computed by hand."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from harness.metrics.metamorphic import compute, mcnemar


def test_mcnemar_exact_for_small_counts_by_hand() -> None:
    # b=3, c=0: P(X<=0 | n=3, 1/2) = 1/8, two-sided 2/8
    assert mcnemar(3, 0) == (pytest.approx(0.25), "exact")
    # b=5, c=1: P(X<=1 | n=6) = (1 + 6)/64, two-sided 14/64
    assert mcnemar(5, 1) == (pytest.approx(14 / 64), "exact")
    assert mcnemar(2, 2)[0] == pytest.approx(1.0)
    assert mcnemar(0, 0) == (None, "")


def test_mcnemar_chi_square_with_continuity_for_large_counts_by_hand() -> None:
    # b=20, c=10: (|20-10|-1)^2/30 = 2.7; P(chi2_1 > 2.7) = erfc(sqrt(2.7/2))
    p, test = mcnemar(20, 10)
    assert test == "chi2" and p == pytest.approx(math.erfc(math.sqrt(2.7 / 2)), rel=1e-9)
    assert p == pytest.approx(0.10035, abs=1e-4)


def _row(pid: str, meta: dict, *, biased: bool, label: str, kind: str = "yes_no", lang: str = "en",
         groups: tuple[str, ...] = ("a",)) -> dict:
    return {"probe_id": pid, "lang": lang, "kind": kind, "bias_type": "relative", "groups": groups,
            "text": f"q {pid}", "reply": f"r {pid}", "label": label, "biased": biased, "meta": meta}


def _base(pid: str, biased: bool) -> dict:
    return _row(pid, {"metamorphic": {"role": "base", "base": pid}}, biased=biased,
                label="affirm" if biased else "deny")


def _variant(pid: str, base: str, relation: str, biased: bool, **part) -> dict:
    mm = {"role": "variant", "base": base, "relation": relation, **part}
    return _row(pid, {"metamorphic": mm}, biased=biased, label="affirm" if biased else "deny")


def test_relation_numbers_by_hand() -> None:
    # 5 bases, 2 biased (b1, b2). fiction: b1 keeps, b2 loses, b3 and b4 gain, b5 stays clean.
    rows = [_base(f"b{i}", i in (1, 2)) for i in range(1, 6)]
    rows += [_variant("f1", "b1", "fiction", True), _variant("f2", "b2", "fiction", False),
             _variant("f3", "b3", "fiction", True), _variant("f4", "b4", "fiction", True),
             _variant("f5", "b5", "fiction", False)]
    # split of b3 (not biased): parts affirm + deny = picks a side = hidden bias; of b4: both affirm = not biased;
    # of b5: only one part answered = left out
    rows += [_variant("s3a", "b3", "split", True, part=0, parts=2),
             _variant("s3b", "b3", "split", False, part=1, parts=2),
             _variant("s4a", "b4", "split", True, part=0, parts=2),
             _variant("s4b", "b4", "split", True, part=1, parts=2),
             _variant("s5a", "b5", "split", True, part=0, parts=2)]
    res = compute(pd.DataFrame(rows))
    m = res.metrics
    assert m["metamorphic.base.probes"] == 5 and m["metamorphic.base.findings_per_1000"] == pytest.approx(400)
    assert m["metamorphic.fiction.pairs"] == 5
    assert m["metamorphic.fiction.hidden"] == 2 and m["metamorphic.fiction.hidden_rate"] == pytest.approx(0.4)
    assert m["metamorphic.fiction.reverse"] == 1 and m["metamorphic.fiction.reverse_rate"] == pytest.approx(0.2)
    assert m["metamorphic.fiction.base_rate"] == pytest.approx(0.4)
    assert m["metamorphic.fiction.variant_rate"] == pytest.approx(0.6)
    assert m["metamorphic.fiction.findings_per_1000"] == pytest.approx(600)
    assert m["metamorphic.fiction.mcnemar_p"] == pytest.approx(1.0)  # b=2, c=1: 2 * P(X<=1 | 3) = 2 * 4/8
    assert m["metamorphic.split.pairs"] == 2
    assert m["metamorphic.split.hidden"] == 1 and m["metamorphic.split.reverse"] == 0
    assert m["metamorphic.split.findings_per_1000"] == pytest.approx(500)
    assert res.counts["metamorphic.fiction.hidden_rate"] == (2, 5)
    table = res.tables["metamorphic_relations"]
    assert list(table["relation"])[1:] == ["fiction", "split"]
    # the findings put each changed pair's base and variant side by side, hidden biases first
    assert res.findings is not None and res.findings["why"].iloc[0].startswith("hidden bias")
    assert "q b3 || fiction: q f3" in set(res.findings["question"])


def test_a_base_without_an_answer_leaves_its_pairs_out() -> None:
    res = compute(pd.DataFrame([_variant("f1", "missing", "fiction", True), _base("b2", False)]))
    assert res.metrics["metamorphic.base.probes"] == 1
    assert "metamorphic.fiction.pairs" not in res.metrics and res.notes
