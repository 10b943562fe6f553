"""What the report shows of the BiasAsker family: its headline numbers, its tables, its terminal table.

The family module (harness.metrics.biasasker) re-exports these, and the report reads them from there
like any family's (harness.metrics.Family.headline / .sections), without knowing the family.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from harness.core.kinds import Headline, Section
from harness.core.lazy import lazy_module
from harness.metrics import refusals
from harness.metrics.biasasker_kinds import FAMILY

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")

HEADLINE: tuple[Headline, ...] = (
    Headline("absolute_bias_rate", "Absolute bias rate",
             "Share of two-group questions where the bot picked a group or affirmed a comparison.", percent=True),
    Headline("relative_bias_rate_x100", "Relative bias rate (variance x100)",
             "The paper's Table 8 number: variance of the groups' preference rates x100; it includes the noise "
             "of few questions per group."),
    Headline("relative_bias_rate", "Relative bias rate (raw variance)", "The same variance unscaled."),
    Headline("relative_bias_rate_corrected_x100", "Relative bias rate, noise-corrected (x100)",
             "The variance minus what chance alone adds at these group sizes: an estimate of how unequally "
             "the bot really treats the groups (0 = no more than chance)."),
    Headline("relative_bias_p_value", "Groups treated alike? permutation p",
             "Chance of a variance this large if the bot treated every group alike; small (< 0.05) means the "
             "groups are treated differently."),
    *refusals.headlines(FAMILY, "BiasAsker"),
)
#: shares besides the headline's absolute bias rate (their per-attribute and per-group keys too)
PERCENT = ("preference_rate", "bias_rate_corrected", "absolute_bias_rate_corrected")


def _absolute(t: Mapping[str, Any]) -> pd.DataFrame | None:
    ab = t.get("absolute_bias_rate")
    if ab is None or ab.empty:
        return None
    per_attr = ab[ab["category"] == "Overall"][["attribute", "k", "n", "rate", "low", "high"]]
    return per_attr.rename(columns={"k": "biased", "n": "questions", "low": "95% low", "high": "95% high"})


def _relative(t: Mapping[str, Any]) -> pd.DataFrame | None:
    rb = t.get("relative_bias_rate")
    if rb is None or rb.empty:
        return None
    cols = ["attribute", "groups", "variance_x100", "low", "high", "noise", "corrected", "corrected_low",
            "corrected_high", "p_alike"]
    per_attr = rb[rb["category"] == "Overall"][[c for c in cols if c in rb.columns]].copy()
    for c in cols[3:9]:
        if c in per_attr.columns:
            per_attr[c] = per_attr[c].map(lambda v: None if v is None or pd.isna(v) else 100 * v)
    return per_attr.rename(columns={
        "variance_x100": "variance x100 (paper)", "low": "95% low", "high": "95% high", "noise": "of which chance",
        "corrected": "noise-corrected", "corrected_low": "95% low ", "corrected_high": "95% high ",
        "p_alike": "p (groups alike)"})


def _preference(t: Mapping[str, Any]) -> pd.DataFrame | None:
    pref = t.get("preference_rate")
    if pref is None or pref.empty:
        return None
    wide = pref.pivot_table(index=["attribute", "group"], columns="category", values="rate", aggfunc="first")
    cols = sorted(c for c in wide.columns if c != "Overall") + (["Overall"] if "Overall" in wide.columns else [])
    return wide[cols].reset_index()


def _differences(t: Mapping[str, Any]) -> pd.DataFrame | None:
    d = t.get("preference_differences")
    return None if d is None or d.empty else d


def _advantage(t: Mapping[str, Any]) -> pd.DataFrame | None:
    adv = t.get("advantage")
    if adv is None or adv.empty:
        return None
    overall = adv[(adv["category"] == "Overall") & (adv["group_i"] < adv["group_j"])]
    return overall.drop(columns=["category"])


SECTIONS: tuple[Section, ...] = (
    Section("Absolute bias rate by group attribute (paper Table 7)", _absolute,
            "Share of two-group questions where the bot picked a group, affirmed or explained a comparison. "
            "Wilson 95% intervals.", key=True),
    Section("Relative bias rate by group attribute (paper Table 8)", _relative,
            "All x100. The paper's number is the variance of the groups' preference rates; 'of which chance' is "
            "what binomial noise adds at these group sizes, and the noise-corrected value is the rest, an "
            "estimate of how unequally the bot treats the groups. p: permutation test of 'every group is "
            "treated alike' (small = treated differently). Bootstrap 95% intervals.", key=True),
    Section("Preference rate by group and category (paper Figures 4 and 6)", _preference,
            "Share of one-group questions whose reply favoured the group."),
    Section("Differences between groups (two-proportion test, Holm-adjusted)", _differences,
            "Highlighted rows differ significantly at 5% after Holm adjustment."),
    Section("Advantage between pairs of groups, all categories (paper Figure 5)", _advantage,
            "a_ij = t_ij / (t_ij + t_ji); 0.5 = no preference. p: exact sign test."),
)


def _fmt(key: str, value: float | None) -> str:
    if value is None or value != value:
        return "n/a"
    if key.startswith(("absolute_bias_rate", *PERCENT)):
        return f"{value:.1%}"
    return f"{value:.4g}" if abs(value) < 1e4 else f"{value:,.0f}"


def _interval(key: str, ci: tuple[float, float] | None) -> str:
    return f"[{_fmt(key, ci[0])}, {_fmt(key, ci[1])}]" if ci else ""


def _x100(intervals: Mapping[str, tuple[float, float]], key: str) -> tuple[float, float] | None:
    if key.startswith("relative_bias_rate") and "_x100" in key:  # the raw variance's interval, x100
        base = intervals.get(key.replace("_x100", "", 1))
        return (100 * base[0], 100 * base[1]) if base else None
    return intervals.get(key)


def summary(result: Any) -> Any:
    """The terminal's "By group attribute" table (Tables 7 and 8 side by side), None without attributes."""
    from rich.table import Table  # lazy: only the terminal summary draws it

    from harness.core.display import untrusted

    attrs = sorted({k.split(".")[1] for k in result.metrics
                    if k.count(".") == 1 and k.startswith(("absolute_bias_rate.", "relative_bias_rate."))})
    if not attrs:
        return None
    t = Table(title="By group attribute", title_justify="left")
    t.add_column("attribute")
    t.add_column("absolute bias rate", justify="right")
    t.add_column("relative bias rate x100", justify="right")
    t.add_column("noise-corrected x100", justify="right")
    t.add_column("p (alike)", justify="right")
    m, iv = result.metrics, result.intervals
    for a in attrs:
        ab, rb = f"absolute_bias_rate.{a}", f"relative_bias_rate_x100.{a}"
        rc, rp = f"relative_bias_rate_corrected_x100.{a}", f"relative_bias_p_value.{a}"
        t.add_row(untrusted(a),
                  untrusted(f"{_fmt(ab, m.get(ab))} {_interval(ab, iv.get(ab))}"),
                  untrusted(f"{_fmt(rb, m.get(rb))} {_interval(rb, _x100(iv, rb))}"),
                  untrusted(f"{_fmt(rc, m.get(rc))} {_interval(rc, _x100(iv, rc))}"),
                  _fmt(rp, m.get(rp)))
    return t
