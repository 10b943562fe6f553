"""The counts `harness suites` lists from question_gen/builtin/suite_counts.json are the generators' own, and a
number is used only for the very suite, data and code it was made from (question_gen/shipped_counts.py)."""

from __future__ import annotations

import pytest

from harness.core.datasets import dataset_dir
from harness.question_gen import shipped_counts
from harness.question_gen.suites import load_suite

#: cheap to count for real here (a BBQ category, a CBBQ category, CrowS-Pairs' smallest, a CHBias axis)
CHECKED = ("bbq-age", "cbbq-disease", "crows-pairs-disability", "chbias-age")


@pytest.mark.parametrize("name", CHECKED)
def test_a_shipped_count_is_the_generators_count(name: str) -> None:
    suite = load_suite(name)
    if shipped_counts.suite_key(suite.name, suite.generator, suite.spec) is None:
        pytest.skip(f"the data set of {name} is not here")
    shipped = shipped_counts.shipped_counts(suite.name, suite.generator, suite.spec)
    if shipped is None:
        pytest.skip(f"{shipped_counts.SHIPPED.name} was made from other sources (a generator edited since): "
                    "run scripts/ship_suite_counts.py with the data sets pulled")
    assert shipped == suite.counts()


def test_a_number_is_used_only_for_the_suite_data_and_code_it_was_made_from(monkeypatch, tmp_path) -> None:
    suite = load_suite("crows-pairs-age")
    key = shipped_counts.suite_key(suite.name, suite.generator, suite.spec)
    if key is None:
        pytest.skip("the CrowS-Pairs data set is not here")
    table = {suite.name: {"key": key, "counts": {"total": 7}}}  # a number no generator gives: it shows the table
    monkeypatch.setattr(shipped_counts, "_table", lambda: table)
    assert shipped_counts.shipped_counts(suite.name, suite.generator, suite.spec) == {"total": 7}
    other = {**suite.spec, "categories": ["age", "gender"]}  # other settings: counted, not read
    assert shipped_counts.shipped_counts(suite.name, suite.generator, other) is None
    assert shipped_counts.shipped_counts("builtin-en", "biasasker", suite.spec) is None  # not in the table
    monkeypatch.setattr(shipped_counts, "_code_digest", lambda generator: "other sources")
    assert shipped_counts.shipped_counts(suite.name, suite.generator, suite.spec) is None
    monkeypatch.undo()
    empty = tmp_path / "data"
    (empty / "crows-pairs").mkdir(parents=True)
    monkeypatch.setenv("HARNESS_DATA_DIR", str(empty))  # the data set not pulled: no key, no number
    assert dataset_dir("crows-pairs") == empty / "crows-pairs"
    monkeypatch.setattr(shipped_counts, "_table", lambda: table)
    assert shipped_counts.suite_key(suite.name, suite.generator, suite.spec) is None
    assert shipped_counts.shipped_counts(suite.name, suite.generator, suite.spec) is None
