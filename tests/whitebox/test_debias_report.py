"""The cost measures (BLEU-4 with Chinese tokens, Dist-n) by hand, and the model-selection grids."""

from __future__ import annotations

import pytest

from harness.core.errors import ConfigError
from harness.whitebox.debias.evaluate import bleu4, distinct, zh_tokens
from harness.whitebox.debias.select import better, grid_points
from harness.whitebox.debias.train import TrainSettings


def test_chinese_tokens_and_distinct_n() -> None:
    assert zh_tokens("今天很好, ok") == ["今", "天", "很", "好", ",", "ok"]
    # 8 unigrams, 4 distinct; 6 bigrams (今天 天很 很好, twice), 3 distinct
    assert distinct(["今天很好", "今天很好"], 1) == pytest.approx(0.5)
    assert distinct(["今天很好", "今天很好"], 2) == pytest.approx(0.5)
    assert distinct(["好"], 2) is None


def test_bleu4_scores_chinese_characters() -> None:
    """Upstream's BLEU script dropped every non-ASCII character: Chinese replies scored as empty strings.
    With sacrebleu's zh tokeniser an identical reply is 100 and one sharing no character 0; with the
    default 13a tokeniser an unspaced Chinese sentence is a single token, so a one-character change is 0."""
    import sacrebleu

    ref = "我今天很高兴见到你们大家"
    assert bleu4([ref], [ref]) == pytest.approx(100.0)
    assert bleu4(["明日去北京吧"], [ref]) == pytest.approx(0.0)
    near = "我今天很高兴见到你们各位"
    assert bleu4([near], [ref]) > 50
    assert sacrebleu.corpus_bleu([near], [[ref]], tokenize="13a").score == pytest.approx(0.0)


def test_grids() -> None:
    base = TrainSettings()
    assert len(grid_points("paper", "lmd", base)) == 27
    assert len(grid_points("upstream", "hd", base)) == 54
    assert len(grid_points("paper", "ctda", base)) == 9  # no bias weight to vary
    assert [p.debias_hyp for p in grid_points("small", "lmd", base)] == [10.0, 50.0]
    one = grid_points("paper", "add", base, {"batch_size": [8], "grad_accum": [1], "debias_hyp": [10]})
    assert [(p.batch_size, p.grad_accum, p.debias_hyp, p.lm_hyp) for p in one] == [(8, 1, 10.0, 1.0)]
    data = grid_points("small", "ctda", base, {"batch_size": [4], "debias_hyp": [10, 50], "lm_hyp": [0.01]})
    assert [(p.batch_size, p.debias_hyp, p.lm_hyp) for p in data] == [(4, 0.0, 1.0)]  # no bias term: one run
    with pytest.raises(ConfigError):
        grid_points("huge", "lmd", base)
    with pytest.raises(ConfigError):
        grid_points("small", "lmd", base, {"batch_size": [0.5]})


def test_selection_keeps_the_highest_validation_p() -> None:
    assert better(0.4, 0.3) and not better(0.2, 0.3)
    assert better(0.01, None) and not better(None, 0.01) and not better(None, None)


def test_a_users_specification(tmp_path) -> None:
    import json

    from harness.whitebox.debias.augment import Swapper
    from harness.whitebox.debias.spec import load_spec

    path = tmp_path / "words.json"
    path.write_text(json.dumps({"name": "plus", "target_pairs": [["老婆", "老公"], ["美女", "帅哥"]],
                                "attributes": ["丑"]}, ensure_ascii=False), "utf-8")
    words = load_spec(path)
    assert words.targets1 == ("老婆", "美女") and words.attribute_pairs == ()
    assert Swapper(words.target_pairs).swap("美女的老公").text == "帅哥的老婆"
    path.write_text(json.dumps({"target_pairs": [["她", "她"]]}), "utf-8")
    with pytest.raises(ConfigError, match="bad pair"):
        load_spec(path)
    with pytest.raises(ConfigError, match="does not exist"):
        load_spec(tmp_path / "none.json")


def test_the_report_says_bleu_is_on_0_to_100() -> None:
    """A BLEU-4 of 0.39 is 0.39 of 100 (almost no 4-gram shared), not 39%: the row says its scale (issue 26)."""
    from harness.whitebox.debias.report import cost_rows

    side = {"heldout": {"perplexity": 12.5}, "replies": {"bleu4": 0.3855, "dist1": 0.256, "dist2": 0.414}}
    rows = cost_rows({"before": side, "after": side})
    assert rows[1] == ["BLEU-4, 0-100 (zh tokens)", "0.3855", "0.3855"]
    assert [r[0] for r in rows[2:]] == ["Dist-1", "Dist-2"]
