"""Many scored runs side by side: each metric family's declared tables across systems, with tests.

The BiasAsker paper's headline is ten chatbots in two tables and heatmaps; every family can set runs side by
side the same way. A family declares its tables (harness.core.kinds.LeaderboardTable, the LEADERBOARD of its
module, read through harness.metrics.Family.leaderboard) and `build_leaderboard` reads any number of runs'
metrics.json documents and returns
- each declared table a run holds numbers for, a row per metric key (fixed rows, or rows the family derives
  from the runs: a row per group attribute) and a column per run, each cell the value with its 95% interval;
  then one table of the headline numbers (the families' and the run's) that no declared table shows;
- every pair of runs tested on every row of the tables whose declaration says it is tested
  (harness.report.compare's tests: two-proportion or McNemar for rates, the bootstrap of the noise-corrected
  variance for variances; a row with nothing to test gets no test), Holm-adjusted over all the pairwise
  tests at once (k runs x m rows is many tests);
- the scoring differences (harness.score.settings) of every run against the first one, since a change
  of oracle can look like a change of bot.
Nothing here names a family or a metric. harness.report.leaderboard_page draws the families' declared
heatmaps and writes the HTML page.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pandas as pd

from harness.core.kinds import LeaderboardTable
from harness.metrics import families
from harness.metrics.stats import holm_adjust
from harness.report.compare import run_pair_test
from harness.score.settings import scoring_differences, settings_of_metrics

ALPHA = 0.05
OTHER_TITLE = "Other headline numbers"


@dataclass(frozen=True)
class RunDoc:
    """One run: a short label (R1, R2, ...), its id, its metrics.json document and verdicts (or None)."""

    label: str
    name: str
    doc: Mapping[str, Any]
    verdicts: pd.DataFrame | None = None

    @property
    def target(self) -> str:
        return str((self.doc.get("run") or {}).get("target") or "?")

    @property
    def suite(self) -> str:
        return str((self.doc.get("run") or {}).get("suite") or "?")


@dataclass(frozen=True)
class Row:
    """A table row: its label and the metric key holding its value in each run ("x100" keys shown as such)."""

    label: str
    key: str


@dataclass
class MetricTable:
    """One table across runs: rows x runs of values and intervals, and what its declaration says of its tests
    (harness.core.kinds.LeaderboardTable: `worse`, `tested`, `tested_as`)."""

    title: str
    caption: str
    rows: list[Row]
    values: pd.DataFrame  # index = row labels, columns = run labels
    intervals: dict[tuple[str, str], tuple[float, float]]  # (row label, run label) -> 95% interval
    worse: str = "higher"
    tested: bool = True
    tested_as: str = ""

    @property
    def can_mark(self) -> bool:
        """A run of this table may be bold: its rows have a worse end and tests (its own or another's)."""
        return self.worse in ("higher", "lower") and (self.tested or bool(self.tested_as))

    def text(self, row: Row, run: str) -> tuple[str, str]:
        """(value, interval) as the run's report prints them (percentages for rates, x100 as such)."""
        from harness.report.reporting import fmt_interval, fmt_value  # lazy: jinja2 and the scoring module

        v = self.values.loc[row.label, run]
        value = fmt_value(row.key, None if pd.isna(v) else float(v))
        return value, fmt_interval(row.key, self.intervals.get((row.label, run)))


@dataclass
class Leaderboard:
    runs: list[RunDoc]
    tables: list[MetricTable]
    pairwise: pd.DataFrame
    scoring: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _interval(doc: Mapping[str, Any], key: str) -> tuple[float, float] | None:
    base = key.replace("_x100", "", 1) if "_x100" in key else key
    ci = (doc.get("intervals") or {}).get(base)
    if not ci or ci[0] is None or ci[1] is None:
        return None
    scale = 100.0 if "_x100" in key else 1.0
    return scale * float(ci[0]), scale * float(ci[1])


def metric_table(runs: Sequence[RunDoc], title: str, caption: str, rows: list[Row], *, worse: str = "higher",
                 tested: bool = True, tested_as: str = "") -> MetricTable:
    labels = [r.label for r in runs]
    values = pd.DataFrame(index=[r.label for r in rows], columns=labels, dtype=float)
    intervals: dict[tuple[str, str], tuple[float, float]] = {}
    for row in rows:
        for run in runs:
            v = (run.doc.get("metrics") or {}).get(row.key)
            values.loc[row.label, run.label] = float("nan") if v is None else float(v)
            ci = _interval(run.doc, row.key)
            if ci is not None:
                intervals[(row.label, run.label)] = ci
    return MetricTable(title, caption, rows, values, intervals, worse, tested, tested_as)


def _rows(decl: LeaderboardTable, docs: Sequence[Mapping[str, Any]]) -> list[Row]:
    rows = decl.rows(docs) if callable(decl.rows) else decl.rows
    return [Row(str(label), str(key)) for label, key in rows]


def _tables(runs: Sequence[RunDoc]) -> list[MetricTable]:
    """Every family's declared tables that some run has numbers for, in the order of the families, then the
    headline numbers no declared table shows."""
    docs = [r.doc for r in runs]
    keys = set().union(*((r.doc.get("metrics") or {}).keys() for r in runs))
    out, shown = [], set()
    for family in families().values():
        for decl in family.leaderboard:
            rows = _rows(decl, docs)
            shown |= {row.key for row in rows} | {decl.when} | set(decl.covers)
            if (decl.when not in keys) if decl.when else not any(row.key in keys for row in rows):
                continue
            out.append(metric_table(runs, decl.title, decl.caption, rows, worse=decl.worse,
                                    tested=decl.tested, tested_as=decl.tested_as))
    from harness.report.reporting import headline_rows  # lazy: reporting pulls jinja2 and the scoring module

    other = [Row(label, key) for key, label in headline_rows() if key in keys and key not in shown]
    if other:
        out.append(metric_table(runs, OTHER_TITLE, "As in each run's report.", other))
    return out


def tested_rows(tables: Sequence[MetricTable]) -> list[tuple[MetricTable, Row]]:
    """The rows tested, each metric key once (the first table that shows it): the test family."""
    seen: set[str] = set()
    out = []
    for table in tables:
        if not table.tested:
            continue  # its declaration says so: it restates another table's numbers, or nothing tests them
        for row in table.rows:
            if row.key not in seen:
                seen.add(row.key)
                out.append((table, row))
    return out


def family_of_tests(docs: Sequence[Mapping[str, Any]]) -> list[str]:
    """The metric keys that are tested together and Holm-adjusted as one family, by `harness leaderboard` and
    `harness compare` alike (harness.report.compare's module docstring): every row of the families' declared
    leaderboard tables that are tested, then the headline numbers no declared table shows."""
    runs = [RunDoc(label=f"R{i}", name=f"R{i}", doc=d) for i, d in enumerate(docs, start=1)]
    return [row.key for _, row in tested_rows(_tables(runs))]


def _pairwise(runs: Sequence[RunDoc], tables: Sequence[MetricTable], *, seed: int = 0) -> pd.DataFrame:
    """Every pair of runs on every row of the test family (family_of_tests) with counts behind it; Holm-adjusted
    over all tests together."""
    records: list[dict[str, Any]] = []
    for table, row in tested_rows(tables):
        for a, b in combinations(runs, 2):
            va, vb = table.values.loc[row.label, a.label], table.values.loc[row.label, b.label]
            if pd.isna(va) or pd.isna(vb):
                continue
            p, test = run_pair_test(row.key, a.doc, b.doc, (a.verdicts, b.verdicts), seed)
            if p is None:
                continue
            records.append({"metric": row.key, "row": row.label, "table": table.title, "run_a": a.label,
                            "run_b": b.label, "a": va, "b": vb, "change": vb - va, "p_value": p, "test": test})
    df = pd.DataFrame(records, columns=["metric", "row", "table", "run_a", "run_b", "a", "b", "change",
                                        "p_value", "test"])
    df["p_holm"] = holm_adjust(list(df["p_value"])) if len(df) else []
    df["significant"] = [p is not None and p < ALPHA for p in df["p_holm"]]
    return df


def _scoring(runs: Sequence[RunDoc]) -> tuple[list[str], list[str]]:
    """(scoring differences of each run against the first, notes on suites that differ)."""
    first = runs[0]
    base = settings_of_metrics(first.doc)
    sentences: list[str] = []
    for run in runs[1:]:
        other = settings_of_metrics(run.doc)
        for s in scoring_differences(base, other, name_a=first.label, name_b=run.label):
            if s not in sentences:
                sentences.append(s)
    notes = []
    suites = {r.suite for r in runs}
    if len(suites) > 1:
        notes.append("The runs asked different suites (" + ", ".join(f"{r.label}: {r.suite}" for r in runs)
                     + "); a difference may come from the questions, not from the bots.")
    return sentences, notes


def build_leaderboard(runs: Sequence[RunDoc], *, seed: int = 0) -> Leaderboard:
    """Tables, pairwise tests and scoring notes for two or more runs (see the module docstring)."""
    tables = _tables(runs)
    scoring, notes = _scoring(runs)
    return Leaderboard(runs=list(runs), tables=tables, pairwise=_pairwise(runs, tables, seed=seed),
                       scoring=scoring, notes=notes)


def most_biased(board: Leaderboard, table: MetricTable, row: Row) -> str | None:
    """The run the corrected tests say is the most biased on this row, or None.

    A run is marked only when its value is the row's worst (the declared `worse` end) and the Holm-adjusted
    pairwise test finds it significantly worse than every other run with a value on the row. The paper
    bolds each row's maximum; with a few questions per group the maximum is often chance (race 100% from
    one question), so a bold cell that no test supports would claim a difference the data do not show.
    Rows without pairwise tests (a permutation p-value, a score no test compares) mark nothing; a table
    declared `tested_as` another key stem is marked by that stem's tests of the same row.
    """
    vals = table.values.loc[row.label].dropna()
    if not table.can_mark or len(vals) < 2 or board.pairwise.empty:
        return None
    stem, _, rest = row.key.partition(".")
    key = (table.tested_as or stem) + (f".{rest}" if rest else "")
    worst_value = vals.max() if table.worse == "higher" else vals.min()
    worst = [run for run, v in vals.items() if v == worst_value]
    if len(worst) != 1:
        return None
    run = worst[0]
    tests = board.pairwise[(board.pairwise["metric"] == key) & board.pairwise["significant"]]
    beaten = set(tests.loc[tests["run_a"] == run, "run_b"]) | set(tests.loc[tests["run_b"] == run, "run_a"])
    return run if beaten >= set(vals.index) - {run} else None


def to_json(board: Leaderboard) -> dict[str, Any]:
    """The leaderboard as plain JSON (leaderboard.json beside the page)."""
    def clean(v: Any) -> Any:
        return None if isinstance(v, float) and v != v else v

    return {
        "runs": [{"label": r.label, "run_id": r.name, "suite": r.suite, "target": r.target}
                 for r in board.runs],
        "tables": [{"title": t.title, "caption": t.caption,
                    "rows": [{"row": row.label, "metric": row.key,
                              "values": {c: clean(float(t.values.loc[row.label, c]))
                                         for c in t.values.columns},
                              "intervals": {c: list(t.intervals[(row.label, c)]) for c in t.values.columns
                                            if (row.label, c) in t.intervals},
                              "most_biased": most_biased(board, t, row)}
                             for row in t.rows]} for t in board.tables],
        "pairwise": [{k: clean(v) for k, v in rec.items()}
                     for rec in board.pairwise.to_dict(orient="records")],
        "scoring_differences": board.scoring,
        "notes": board.notes,
    }
