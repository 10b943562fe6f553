"""What the BiasAsker family shows across runs: `harness leaderboard`'s tables and heatmaps, `harness view`'s
numbers, the probes behind its absolute bias rates (the paired test of `harness compare`).

The paper's headline is ten chatbots in two tables (absolute bias rate per attribute, Table 7; relative bias
rate per attribute, Table 8) and heatmaps (Figures 4-6). The family declares them here (re-exported by
harness.metrics.biasasker as LEADERBOARD, LEADERBOARD_FIGURES, VIEW_METRICS and paired_outcomes) and the
leaderboard and the viewer draw them without knowing the family:
- Table 7 and Table 8, a row per group attribute any run scored (plus the overall / average row); the
  noise-corrected relative bias rate and the permutation p-value of "every group is treated alike" get tables
  of their own, so a reader can tell bias from the noise of a small sample. The corrected rate is marked by
  the tests of the paper's rate (its bootstrap compares the corrected variances); the p-values have no
  pairwise test and no "worse" end.
- leaderboard_absolute.png (Table 7 as a heatmap, %), leaderboard_relative.png (Table 8, the paper's and the
  noise-corrected rate side by side) and leaderboard_preference_<attribute>.png (each group's overall
  preference rate per run: Figures 4 and 6 across systems).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from harness.core.kinds import Heatmap, LeaderboardFigure, LeaderboardTable, ViewMetric
from harness.core.lazy import lazy_module
from harness.metrics import slug

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

FAMILY = "biasasker"
OVERALL = "Overall"
ABSOLUTE = "absolute_bias_rate"
RELATIVE = "relative_bias_rate"
RELATIVE_X100 = "relative_bias_rate_x100"
CORRECTED_X100 = "relative_bias_rate_corrected_x100"
P_VALUE = "relative_bias_p_value"

TABLE_7 = "Absolute bias rate by group attribute (paper Table 7)"
TABLE_8 = "Relative bias rate x100 by group attribute (paper Table 8)"
TABLE_8_CORRECTED = "Relative bias rate x100, noise-corrected"


def _attributes(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """Every group attribute any run scored (from its BiasAsker tables), in name order."""
    names: set[str] = set()
    for doc in docs:
        tables = ((doc.get("tables") or {}).get(FAMILY) or {})
        for table in (ABSOLUTE, RELATIVE):
            names |= {str(r["attribute"]) for r in tables.get(table) or [] if r.get("category") == OVERALL}
    return sorted(names)


Rows = Callable[[Sequence[Mapping[str, Any]]], list[tuple[str, str]]]


def _by_attribute(stem: str, total: str) -> Rows:
    """The rows of a table by attribute: `stem.<attribute>` for every attribute, then the total row."""
    def rows(docs: Sequence[Mapping[str, Any]]) -> list[tuple[str, str]]:
        return [(a, f"{stem}.{slug(a)}") for a in _attributes(docs)] + [(total, stem)]
    return rows


LEADERBOARD: tuple[LeaderboardTable, ...] = (
    LeaderboardTable(
        TABLE_7, _by_attribute(ABSOLUTE, OVERALL), when=ABSOLUTE,
        caption="Share of two-group questions where the bot picked a group or affirmed a comparison; "
                "Wilson 95% intervals."),
    LeaderboardTable(
        TABLE_8, _by_attribute(RELATIVE_X100, "Average"), when=RELATIVE, covers=(RELATIVE,),
        caption="Variance of the groups' preference rates x100, as the paper prints it; it includes what "
                "chance adds with few questions per group, so compare runs of the same size."),
    LeaderboardTable(
        TABLE_8_CORRECTED, _by_attribute(CORRECTED_X100, "Average"), when=RELATIVE, tested=False,
        tested_as=RELATIVE_X100,
        caption="The paper's variance minus what binomial sampling alone adds at each run's group sizes: "
                "how unequally the bot really treats the groups (0 = no more than chance); comparable "
                "across sizes."),
    LeaderboardTable(
        "Every group treated alike? Permutation p-value", _by_attribute(P_VALUE, "All attributes"),
        when=RELATIVE, worse="", tested=False,
        caption="Chance of a spread of preference rates this large if the bot treated every group alike; "
                "below 0.05 the groups are treated differently, above it the run cannot tell the bot from "
                "an unbiased one."),
)


def _preference_matrices(docs: Mapping[str, Mapping[str, Any]]) -> dict[str, pd.DataFrame]:
    """attribute -> groups x runs of overall preference rates, from each run's preference_rate table."""
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for label, doc in docs.items():
        rows = ((doc.get("tables") or {}).get(FAMILY) or {}).get("preference_rate") or []
        for r in rows:
            if r.get("category") == OVERALL and r.get("rate") is not None:
                cells.setdefault(str(r["attribute"]), {})[(str(r["group"]), label)] = float(r["rate"])
    out = {}
    for attribute, values in sorted(cells.items()):
        groups = sorted({g for g, _ in values})
        out[attribute] = pd.DataFrame([[values.get((g, run), float("nan")) for run in docs] for g in groups],
                                      index=groups, columns=list(docs))
    return out


def _figures(tables: Mapping[str, pd.DataFrame],
             docs: Mapping[str, Mapping[str, Any]]) -> list[tuple[str, list[Heatmap]]]:
    """The heatmaps of Tables 7 and 8 across runs and the groups' preference rates per attribute."""
    figures: list[tuple[str, list[Heatmap]]] = []
    if TABLE_7 in tables:
        figures.append(("leaderboard_absolute.png",
                        [Heatmap("Absolute bias rate (%)", 100 * tables[TABLE_7], 100, "Reds")]))
    rel = [(title, tables[title]) for title in (TABLE_8, TABLE_8_CORRECTED) if title in tables]
    if rel:
        top = max(1.0, float(pd.concat([values for _, values in rel]).max().max()))
        figures.append(("leaderboard_relative.png",
                        [Heatmap(title.replace(" by group attribute", ""), values, top, "Blues")
                         for title, values in rel]))
    for attribute, matrix in _preference_matrices(docs).items():
        figures.append((f"leaderboard_preference_{slug(attribute)}.png",
                        [Heatmap(f"Preference rate: {attribute}", matrix, 1.0, "Blues")]))
    return figures


LEADERBOARD_FIGURES: tuple[LeaderboardFigure, ...] = (LeaderboardFigure(_figures),)


def paired_outcomes(key: str, verdicts: pd.DataFrame) -> pd.Series | None:
    """Per probe id, whether the probe counts as biased towards an absolute bias rate key (overall, per
    attribute, per question kind, per property category), from a run's verdicts.csv (probe_id index;
    bias_type, kind, attribute, categories, biased): two runs that asked the same probes are then compared
    probe by probe (McNemar, harness.report.compare). None for any other key."""
    ab = verdicts[verdicts["bias_type"] == "absolute"]
    parts = key.split(".")
    if parts[0] != ABSOLUTE:
        return None
    if len(parts) == 1:
        return ab["biased"]
    if len(parts) == 2:
        return ab.loc[ab["attribute"].map(slug) == parts[1], "biased"]
    if len(parts) == 3 and parts[1] == "kind":
        return ab.loc[ab["kind"].map(slug) == parts[2], "biased"]
    if len(parts) == 3 and parts[1] == "category":
        cats = ab["categories"].map(lambda c: {slug(x) for x in c.split(" | ")} if c else {"none"})
        return ab.loc[cats.map(lambda c: parts[2] in c), "biased"]
    return None

VIEW_METRICS: tuple[ViewMetric, ...] = (
    ViewMetric(ABSOLUTE, "absolute bias", column="Absolute bias"),
    ViewMetric(RELATIVE_X100, "relative bias x100", column="Relative bias x100"),
    ViewMetric(CORRECTED_X100, "relative bias x100, noise-corrected", card=False),
    ViewMetric(P_VALUE, "p (groups alike)", column="p (alike)"),
)
