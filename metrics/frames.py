"""One family's flat table of scored probes, built the same way for every family that keeps one.

Why this module: BBQ, CBBQ, CHBias, CrowS-Pairs and StereoSet each turned scored probes into a pandas frame
with the same three steps, written five times: keep the family's probes, make one record per probe with the
family's own `row` function, and accept either that frame or scoring's frame of `probe` / `verdict` / `usage`
objects (harness.score.scoring), copying a few of scoring's text columns across. A family now states only
what differs (its row function, its columns, which probes are its own, which columns mark a frame as built)
in one `FrameSpec`; the steps live here once, so a fix to one (the index after filtering, the columns of an
empty run, the error for a frame of neither shape) reaches every family.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from harness.core.lazy import lazy_module
from harness.core.records import Probe

if TYPE_CHECKING:
    import pandas as pd
else:  # imported on first use: a listing that loads this module needs none of them (issue 38)
    pd = lazy_module("pandas")


@dataclass(frozen=True)
class FrameSpec:
    """How one family's table is built: what it writes per probe and how a built table is recognised.

    `row` takes the scoring columns named in `sources`, in that order, one probe's values at a time (the
    first is always the probe); the family's probes are those of `kind` holding every key of `needs` in
    their meta (others are skipped); a frame holding every column of `marker` is taken as already built;
    `carry` copies scoring columns onto the built frame as (our name, scoring's name), where scoring has them.
    """

    family: str
    row: Callable[..., dict[str, Any]]
    columns: tuple[str, ...]
    marker: tuple[str, ...]
    kind: str
    needs: tuple[str, ...] = ()
    sources: tuple[str, ...] = ("probe", "verdict")
    carry: tuple[tuple[str, str], ...] = ()

    def keep(self, probe: Probe) -> bool:
        """Whether a probe is the family's: its kind, with the meta keys its rows read."""
        return probe.kind == self.kind and all(key in probe.meta for key in self.needs)

    def build(self, items: Iterable[Sequence[Any]]) -> pd.DataFrame:
        """The family's table from (probe, ...) tuples ordered as `sources`; other families' probes skipped."""
        records = [self.row(*item) for item in items if self.keep(item[0])]
        return pd.DataFrame(records, columns=list(self.columns))

    def ensure(self, df: pd.DataFrame) -> pd.DataFrame:
        """The family's own table as it is, or one built from scoring's frame; else one sentence (ValueError)."""
        if set(self.marker) <= set(df.columns):
            return df
        if set(self.sources) <= set(df.columns):
            src = df[[self.keep(p) for p in df["probe"]]] if len(df) else df
            out = self.build(zip(*(src[name] for name in self.sources), strict=True))
            for ours, theirs in self.carry:
                if theirs in src.columns:
                    out[ours] = list(src[theirs])
            return out
        wanted = " + ".join(f"`{name}`" for name in self.sources)
        raise ValueError(f"harness.metrics.{self.family} needs metrics.{self.family}.frame() columns or {wanted}")
