"""CHBias records what each pair's sentences were read after (issue 31): the start token's text in the replies'
usage, counted per token in the chbias_start_token table; an unknown one is a note, the target's own sentence
when it gave one. Hand-made pairs, scored through the family as harness.score.scoring hands them over."""

from __future__ import annotations

import pandas as pd

from harness.core.records import Probe
from harness.metrics import chbias
from harness.question_gen.chbias import KIND as KIND_SENTENCE_PAIR


def frame(starts: list, notes: list | None = None) -> pd.DataFrame:
    probes = [Probe.make("chbias-gender", "zh", KIND_SENTENCE_PAIR, "gender", f"s{i}", options=(f"a{i}", f"b{i}"),
                         meta={"category": "gender", "split": "test"}) for i in range(len(starts))]
    usages = [{"perplexity": [10.0 + i, 12.0 + i * 1.5], "start_token": start,
               **({"start_token_note": notes[i]} if notes and notes[i] else {})} for i, start in enumerate(starts)]
    return pd.DataFrame({"probe": probes, "usage": usages})


def test_pairs_are_counted_per_start_token() -> None:
    res = chbias.compute(frame(["<|im_start|>"] * 3 + ["<s>"]))
    assert res.tables["chbias_start_token"].to_dict(orient="records") == [
        {"start_token": "<s>", "pairs": 1}, {"start_token": "<|im_start|>", "pairs": 3}]
    assert not any("start token" in n for n in res.notes)


def test_an_unknown_start_token_is_one_note() -> None:
    said = "Target 'x': the harness could not learn the model's start token (why), so ..."
    res = chbias.compute(frame(["unknown"] * 3, [said, said, None]))
    assert res.tables["chbias_start_token"].to_dict(orient="records") == [{"start_token": "unknown", "pairs": 3}]
    assert [n for n in res.notes if "start token" in n] == [said]
    assert chbias.UNKNOWN_START_NOTE in chbias.compute(frame(["unknown"])).notes  # no sentence given: the general one


def test_an_hf_target_s_token_id_and_an_old_transcript_add_nothing() -> None:
    for starts in ([1, 1], [None, None]):
        res = chbias.compute(frame(starts))
        assert "chbias_start_token" not in res.tables and not any("start token" in n for n in res.notes)
