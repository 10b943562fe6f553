"""Compare two scored runs metric by metric: value A, value B, change, p-value, significant.

"Did my last change make it worse?" needs more than two numbers: a rate moving from 12% to 15% on 200
questions is noise. Each run's metrics.json keeps the counts behind its numbers, so the test needs no
re-scoring:
- rates (k of n): two-proportion z test, or Fisher's exact test for small counts (metrics.stats);
- relative bias rates (variances of preference rates): a seeded bootstrap of both runs' group counts,
  testing the noise-corrected rates (metrics.stats.variance_difference_test);
- plain counts (total, answered, ...) have no test.
- rates whose family declares the probes behind them (its paired_outcomes: BiasAsker's absolute bias
  rates) of two runs that asked exactly the same probes for that metric (the usual case: same suite,
  sample and seed) use the exact McNemar test on the per-probe verdicts (verdicts.csv),
  which only counts probes whose verdict changed and so is more sensitive than treating the runs as
  independent samples. Otherwise the runs are treated as independent (conservative).
- a score whose family declares its own test (the module's compare_test(key, doc_a, doc_b): BBQ's s_AMB
  and s_DIS) gets that test.
p-values are Holm-adjusted, because comparing hundreds of metrics finds "significant" noise otherwise, and a
metric is marked significant by its Holm p, never by the unadjusted one. The family of tests adjusted
together is one definition, shared with `harness leaderboard` (harness.report.leaderboard.family_of_tests):
the rows of the families' declared leaderboard tables that are tested, and the headline numbers no such
table shows. The same refusal difference of two runs so gets the same Holm p in `compare` and in
`leaderboard`. The finer keys `compare --all` / `--metric` show besides are adjusted as a second family
of their own, so asking to see more never changes the headline keys' p-values.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from harness.metrics import families
from harness.metrics.stats import holm_adjust, sign_test, two_proportion_test, variance_difference_test

ALPHA = 0.05


def _variance_sets(doc: Mapping[str, Any], key: str) -> list[list[tuple[int, int]]] | None:
    sets = (doc.get("variance_inputs") or {}).get(key)
    if not sets:
        return None
    return [[(int(c[0]), int(c[1])) for c in group.values()] for group in sets]


def load_verdicts(run_dir: Path) -> pd.DataFrame | None:
    """The per-probe verdicts a paired test needs (probe_id, bias_type, kind, attribute, categories, biased)."""
    path = Path(run_dir) / "verdicts.csv"
    if not path.exists():
        return None
    wanted = {"probe_id", "bias_type", "kind", "attribute", "categories", "biased", "label"}
    df = pd.read_csv(path, usecols=lambda c: c in wanted,
                     dtype={"probe_id": str, "attribute": str, "categories": str, "kind": str, "bias_type": str},
                     keep_default_na=False)
    if "label" in df.columns:  # a reply a judge could not read is in no rate (harness.score.judged), nor here
        df = df[df["label"] != "unscored"].drop(columns="label")
    df["biased"] = df["biased"].astype(str).str.lower().isin(("true", "1"))
    return df.set_index("probe_id")


def _paired_rows(df: pd.DataFrame, key: str) -> pd.Series | None:
    """Per probe id, whether it counts towards the rate `key`: from the family that declares the key's paired
    outcomes (harness.metrics.Family.paired_outcomes); None when no family does."""
    return next((found for fam in families().values() if (found := fam.paired_outcomes(key, df)) is not None),
                None)


def paired_p_value(key: str, verdicts_a: pd.DataFrame, verdicts_b: pd.DataFrame) -> float | None:
    """Exact McNemar p-value when both runs scored exactly the same probes for `key`, else None."""
    ra, rb = _paired_rows(verdicts_a, key), _paired_rows(verdicts_b, key)
    if ra is None or rb is None or len(ra) == 0 or set(ra.index) != set(rb.index):
        return None
    rb = rb.reindex(ra.index)
    only_a = int((ra & ~rb).sum())
    only_b = int((~ra & rb).sum())
    return 1.0 if only_a + only_b == 0 else sign_test(only_a, only_b)


def _declared_test(key: str, a: Mapping[str, Any], b: Mapping[str, Any]) -> tuple[float | None, str] | None:
    """The test a family declares for its own key (FamilySpec.compare_test), or None."""
    for fam in families().values():
        found = fam.compare_test(key, a, b)
        if found is not None:
            return found
    return None


def metric_p_value(key: str, a: Mapping[str, Any], b: Mapping[str, Any], seed: int) -> tuple[float | None, str]:
    """Two-sided p-value of the difference of metric `key` between two metrics.json documents, and the
    test's name ("bootstrap", "two-proportion" or the family's own); (None, "") when neither has what a
    test needs."""
    declared = _declared_test(key, a, b)
    if declared is not None and declared[0] is not None:
        return declared
    va, vb = _variance_sets(a, key), _variance_sets(b, key)
    if va and vb:
        return variance_difference_test(va, vb, seed=seed), "bootstrap"
    ca, cb = (a.get("counts") or {}).get(key), (b.get("counts") or {}).get(key)
    if ca and cb:
        return two_proportion_test(int(ca[0]), int(ca[1]), int(cb[0]), int(cb[1])), "two-proportion"
    return None, ""


def run_pair_test(key: str, a: Mapping[str, Any], b: Mapping[str, Any],
                  verdicts: tuple[pd.DataFrame | None, pd.DataFrame | None], seed: int = 0) -> tuple[float | None, str]:
    """The test of metric `key` between two runs, as compare and leaderboard both run it: a key "..._x100..."
    on its raw key's inputs; McNemar when both runs' verdicts pair the same probes, else metric_p_value."""
    key = key.replace("_x100", "", 1)
    p, test = metric_p_value(key, a, b, seed)
    if test and verdicts[0] is not None and verdicts[1] is not None:
        paired = paired_p_value(key, verdicts[0], verdicts[1])
        if paired is not None:
            return paired, "mcnemar"
    return p, test


def compare_metrics(a: Mapping[str, Any], b: Mapping[str, Any], *, prefix: str | None = None,
                    alpha: float = ALPHA, seed: int = 0,
                    verdicts: tuple[pd.DataFrame | None, pd.DataFrame | None] = (None, None),
                    family: Collection[str] | None = None) -> pd.DataFrame:
    """One row per metric present in either run (metrics.json documents as loaded by load_metrics).

    `verdicts` (from load_verdicts) enables the paired test for absolute bias rates. `family`: the keys
    Holm-adjusted together (harness.report.leaderboard.family_of_tests; the module docstring); the other tested
    keys are adjusted as a second family. None: every tested key is one family. `significant` follows the
    Holm p.
    """
    ma, mb = a.get("metrics") or {}, b.get("metrics") or {}
    keys = sorted(set(ma) | set(mb), key=_order)
    if prefix:
        keys = [k for k in keys if k == prefix or k.startswith(prefix)]
    rows: list[dict[str, Any]] = []
    for key in keys:
        va, vb = ma.get(key), mb.get(key)
        p, test = run_pair_test(key, a, b, verdicts, seed) if va is not None and vb is not None else (None, "")
        rows.append({"metric": key, "a": va, "b": vb,
                     "change": (vb - va) if va is not None and vb is not None else None,
                     "p_value": p, "test": test})
    df = pd.DataFrame(rows, columns=["metric", "a", "b", "change", "p_value", "test"])
    df["in_family"] = [True if family is None else k in family for k in df["metric"]]
    df["p_holm"] = _holm_by_family(df)
    df["significant"] = [p is not None and not pd.isna(p) and p < alpha for p in df["p_holm"]]
    return df


def _holm_by_family(df: pd.DataFrame) -> list[float | None]:
    """Holm-adjusted p per row, within its family (in_family True, or the rest)."""
    out: list[float | None] = [None] * len(df)
    for member in (True, False):
        rows = [i for i, m in enumerate(df["in_family"]) if bool(m) is member]
        ps = [None if pd.isna(df["p_value"].iloc[i]) else float(df["p_value"].iloc[i]) for i in rows]
        for i, p in zip(rows, holm_adjust(ps), strict=True):
            out[i] = p
    return out


def _order(key: str) -> tuple[int, int, str]:
    """Run-level numbers first, then headline metrics, then finer-grained keys."""
    head = ("total", "answered", "errors", "error_rate", "refusal_rate", "unknown_rate")
    if key in head:
        return (0, head.index(key), key)
    return (1 + key.count("."), 0, key)
