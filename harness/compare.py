"""Compare two scored runs metric by metric: value A, value B, change, p-value, significant.

"Did my last change make it worse?" needs more than two numbers: a rate moving from 12% to 15% on 200
questions is noise. Each run's metrics.json keeps the counts behind its numbers, so the test needs no
re-scoring:
- rates (k of n): two-proportion z test, or Fisher's exact test for small counts (metrics.stats);
- relative bias rates (variances of preference rates): a seeded bootstrap of both runs' group counts;
- plain counts (total, answered, ...) have no test.
Runs are treated as independent samples. That is conservative when both runs asked the same probes
(the usual case): a paired test would be more sensitive, never less. p-values are also Holm-adjusted
over all tested metrics, because comparing hundreds of metrics finds "significant" noise otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd

from metrics.stats import holm_adjust, two_proportion_test, variance_difference_test

ALPHA = 0.05


def _variance_sets(doc: Mapping[str, Any], key: str) -> list[list[tuple[int, int]]] | None:
    sets = (doc.get("variance_inputs") or {}).get(key)
    if not sets:
        return None
    return [[(int(c[0]), int(c[1])) for c in group.values()] for group in sets]


def _p_value(key: str, a: Mapping[str, Any], b: Mapping[str, Any], seed: int) -> tuple[float | None, str]:
    va, vb = _variance_sets(a, key), _variance_sets(b, key)
    if va and vb:
        return variance_difference_test(va, vb, seed=seed), "bootstrap"
    ca, cb = (a.get("counts") or {}).get(key), (b.get("counts") or {}).get(key)
    if ca and cb:
        return two_proportion_test(int(ca[0]), int(ca[1]), int(cb[0]), int(cb[1])), "two-proportion"
    return None, ""


def compare_metrics(a: Mapping[str, Any], b: Mapping[str, Any], *, prefix: str | None = None,
                    alpha: float = ALPHA, seed: int = 0) -> pd.DataFrame:
    """One row per metric present in either run (metrics.json documents as loaded by load_metrics)."""
    ma, mb = a.get("metrics") or {}, b.get("metrics") or {}
    keys = sorted(set(ma) | set(mb), key=_order)
    if prefix:
        keys = [k for k in keys if k == prefix or k.startswith(prefix)]
    rows: list[dict[str, Any]] = []
    for key in keys:
        va, vb = ma.get(key), mb.get(key)
        if key.startswith("relative_bias_rate_x100"):
            p, test = _p_value(key.replace("relative_bias_rate_x100", "relative_bias_rate", 1), a, b, seed)
        else:
            p, test = _p_value(key, a, b, seed) if va is not None and vb is not None else (None, "")
        rows.append({"metric": key, "a": va, "b": vb,
                     "change": (vb - va) if va is not None and vb is not None else None,
                     "p_value": p, "test": test})
    df = pd.DataFrame(rows, columns=["metric", "a", "b", "change", "p_value", "test"])
    df["p_holm"] = holm_adjust([None if pd.isna(p) else float(p) for p in df["p_value"]]) if len(df) else []
    df["significant"] = [p is not None and not pd.isna(p) and p < alpha for p in df["p_value"]]
    return df


def _order(key: str) -> tuple[int, int, str]:
    """Run-level numbers first, then headline metrics, then finer-grained keys."""
    head = ("total", "answered", "errors", "error_rate", "refusal_rate", "unknown_rate")
    if key in head:
        return (0, head.index(key), key)
    return (1 + key.count("."), 0, key)
