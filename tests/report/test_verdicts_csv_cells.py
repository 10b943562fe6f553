"""verdicts.csv's cells a column at a time (harness.report.reporting._csv_column, issue 38): each is what the
per-cell rule (_csv_value) gives, a lone surrogate from a reply becomes U+FFFD in its column only, and the
missing values pandas puts in a column (None, NaN, pd.NA) are empty cells, never `nan`."""

from __future__ import annotations

import csv
import io
import math

import pandas as pd

from harness.report.reporting import _csv_column, _csv_value

COLUMN = ["plain", "x\ud800y", None, math.nan, pd.NA, 3, 2.5, True, ("a", "b"), ("c\udfff",)]


def test_a_column_gives_the_cells_the_per_cell_rule_gives() -> None:
    got = _csv_column(COLUMN)
    assert got == [_csv_value(v) for v in COLUMN]
    assert got == ["plain", "x\ufffdy", "", "", "", 3, 2.5, True, "a | b", "c\ufffd"]


def test_a_column_without_surrogates_keeps_its_strings_as_they_are() -> None:
    text = "a reply " * 3
    got = _csv_column([text, None, 0.0])
    assert got == [text, "", 0.0] and got[0] is text  # the same objects, no copy per cell


def test_the_cells_write_as_utf8_csv() -> None:
    out = io.StringIO()
    csv.writer(out).writerows(zip(_csv_column(COLUMN), strict=True))
    out.getvalue().encode("utf-8")  # would raise on a surrogate left in
    assert out.getvalue().splitlines()[2:5] == ['""', '""', '""']
