"""The shared frame builder (harness.metrics.frames): a family's table from (probe, ...) tuples or from
scoring's frame of objects, with the family's probes only, scoring's text columns carried in the same rows,
and one sentence for a frame of neither shape."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest

from harness.core.records import LABEL_CHOICE, Probe, Verdict
from harness.metrics import bbq, crows_pairs
from harness.metrics.frames import FrameSpec


def _row(probe: Probe, verdict: Verdict) -> dict[str, Any]:
    return {"probe_id": probe.id, "choice": verdict.favoured}


SPEC = FrameSpec("toy", _row, ("probe_id", "choice"), marker=("choice",), kind="toy", carry=(("question", "text"),))


def _pair(kind: str, text: str, favoured: str) -> tuple[Probe, Verdict]:
    probe = Probe.make("s", "en", kind, "b", text)
    return probe, Verdict(probe.id, LABEL_CHOICE, False, "rules", favoured=favoured)


def test_build_keeps_the_familys_probes_in_order_with_its_columns() -> None:
    pairs = [_pair("toy", "q1", "0"), _pair("other", "q2", "1"), _pair("toy", "q3", "2")]
    df = SPEC.build(pairs)
    assert list(df.columns) == ["probe_id", "choice"]
    assert list(df["choice"]) == ["0", "2"]
    assert list(SPEC.build([]).columns) == ["probe_id", "choice"]  # an empty run still has the columns


def test_ensure_builds_from_scorings_frame_and_carries_text_in_the_kept_rows() -> None:
    pairs = [_pair("other", "skipped", "9"), _pair("toy", "asked", "1")]
    scoring = pd.DataFrame({"probe": [p for p, _ in pairs], "verdict": [v for _, v in pairs],
                            "text": ["skipped", "asked"]}, index=[7, 3])
    out = SPEC.ensure(scoring)
    assert list(out["choice"]) == ["1"]
    assert list(out["question"]) == ["asked"]  # the kept row's text, not the first row's
    built = SPEC.build(pairs)
    assert SPEC.ensure(built) is built  # a built table passes through untouched


def test_ensure_of_an_empty_scoring_frame_is_an_empty_table() -> None:
    out = SPEC.ensure(pd.DataFrame({"probe": [], "verdict": [], "text": []}))
    assert out.empty and list(out.columns)[:2] == ["probe_id", "choice"]


def test_a_frame_of_neither_shape_is_one_sentence_naming_the_family() -> None:
    with pytest.raises(ValueError, match=r"harness\.metrics\.toy needs metrics\.toy\.frame\(\) columns or "
                                         r"`probe` \+ `verdict`$"):
        SPEC.ensure(pd.DataFrame({"reply": ["x"]}))


def test_a_probe_without_the_meta_its_rows_read_is_not_the_familys() -> None:
    spec = FrameSpec("toy", _row, ("probe_id", "choice"), marker=("choice",), kind="toy", needs=("target",))
    plain = _pair("toy", "q", "0")
    probe = Probe.make("s", "en", "toy", "b", "q2", meta={"target": 1})
    df = spec.build([plain, (probe, Verdict(probe.id, LABEL_CHOICE, False, "rules", favoured="1"))])
    assert list(df["choice"]) == ["1"]


def test_the_families_declare_their_frames_here() -> None:
    assert bbq.FRAME.family == "bbq" and bbq.FRAME.marker == ("target_chosen",)
    assert crows_pairs.FRAME.sources == ("probe", "usage")
    with pytest.raises(ValueError, match="`probe` \\+ `usage`"):
        crows_pairs.compute(pd.DataFrame({"probe": []}))
