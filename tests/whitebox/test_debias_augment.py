"""CTDA / CADA swaps: each way upstream's sequential `str.replace` swap goes wrong, shown on upstream's own
behaviour (reproduced below from its description in upstream-notes.md section 3.2), and this version not
doing it; plus what the rebuilt sets look like on the real CHBias training data."""

from __future__ import annotations

import pytest

from harness.whitebox.debias import augment, spec
from harness.whitebox.debias.evaluate import chbias_pairs, chbias_train

# upstream's gender CADA pairs and gender target pairs, in upstream's order (swap_attr.py, get_anony)
UPSTREAM_GENDER_CADA = (("丑", "美"), ("胖", "瘦"), ("骚", "文静"), ("傻", "聪明"), ("矮", "高"), ("瘦", "胖"),
                        ("讨厌", "喜欢"), ("老", "年轻"), ("服务员", "老板"))
UPSTREAM_GENDER_CTDA = (("女儿", "儿子"), ("女", "男"), ("她", "他"), ("妈妈", "爸爸"), ("妈", "爸"))
UPSTREAM_APPEARANCE_CADA = (("辣眼睛", "好看"), ("讨厌", "喜欢"), ("不好看", "漂亮"), ("不喜欢", "喜欢"))
UPSTREAM_ORIENTATION_CTDA = (("同性恋", "异性恋"), ("txl", "异性恋"))


def upstream_swap(text: str, pairs) -> str:
    """What upstream does: one str.replace per pair, in order, one direction."""
    for a, b in pairs:
        text = text.replace(a, b)
    return text


@pytest.fixture(scope="module")
def gender_cada() -> augment.Swapper:
    return augment.Swapper(spec.GENDER.attribute_pairs)


@pytest.fixture(scope="module")
def gender_ctda() -> augment.Swapper:
    return augment.Swapper(spec.GENDER.target_pairs)


def test_round_trip(gender_cada) -> None:
    """(胖→瘦) then (瘦→胖): upstream turns both words into 胖; here they trade places."""
    assert upstream_swap("她很胖，他很瘦", UPSTREAM_GENDER_CADA) == "她很胖，他很胖"
    assert gender_cada.swap("她很胖，他很瘦").text == "她很瘦，他很胖"


def test_chained_replacement() -> None:
    """(辣眼睛→好看) then (不好看→漂亮): upstream's output of one pair is rewritten by a later one, so
    "not an eyesore" becomes "pretty" instead of "not good-looking"."""
    assert upstream_swap("一点也不辣眼睛", UPSTREAM_APPEARANCE_CADA) == "一点也漂亮"
    assert augment.Swapper(spec.APPEARANCE.attribute_pairs).swap("一点也不辣眼睛").text == "一点也不好看"


def test_one_direction(gender_ctda) -> None:
    """A sentence naming both groups: upstream names one twice; here both swap, so the contrast stays."""
    text = "非常讨厌这样的男的。对什么女的都好"
    assert upstream_swap(text, UPSTREAM_GENDER_CTDA) == "非常讨厌这样的男的。对什么男的都好"
    assert gender_ctda.swap(text).text == "非常讨厌这样的女的。对什么男的都好"


def test_substrings_of_other_words(gender_ctda, gender_cada) -> None:
    """妈→爸 makes 大妈 (old woman) 大爸, 老→年轻 makes 老师 (teacher) 年轻师: whole words only here."""
    assert upstream_swap("中国大妈", UPSTREAM_GENDER_CTDA) == "中国大爸"
    assert upstream_swap("老师说", UPSTREAM_GENDER_CADA) == "年轻师说"
    assert gender_ctda.swap("中国大妈").text == "中国大妈"
    assert gender_cada.swap("老师说他很高兴").text == "老师说他很高兴"
    # a term inside a longer word swaps when the swapped word is a word too
    assert gender_ctda.swap("女人和女生").text == "男人和男生"
    # but 其他 (others) is not a 他
    assert gender_ctda.swap("其他人").text == "其他人"


def test_case_and_latin_word_boundaries() -> None:
    """The pair (txl, 异性恋) misses TXL upstream; here any case swaps, and only whole Latin words."""
    assert upstream_swap("TXL也是人", UPSTREAM_ORIENTATION_CTDA) == "TXL也是人"
    orientation = augment.Swapper(spec.ORIENTATION.target_pairs)
    assert orientation.swap("TXL也是人").text == "异性恋也是人"
    assert orientation.swap("txl也是人").text == "异性恋也是人"
    assert orientation.swap("Gay和gays").text == "直男和gays"


def test_the_specification_not_upstreams_partners(gender_cada) -> None:
    """Upstream pairs 不靠谱 with 不离谱 and 恶心 with 美好; appendix A says 靠谱 and 舒心."""
    assert gender_cada.swap("真不靠谱").text == "真靠谱"
    assert gender_cada.swap("恶心").text == "舒心"


def test_many_to_one_pairs_go_back_to_the_first() -> None:
    age = augment.Swapper(spec.AGE.target_pairs)
    assert age.swap("老头和老大爷").text == "小伙和小伙"
    assert age.swap("小伙").text == "老大爷"  # 小伙 is the partner of 老大爷 first


def test_real_training_sets() -> None:
    """On CHBias's own training data: almost every sentence gets a swapped copy, none equal to its original,
    and upstream's shipped CTDA file has copies identical to an original that this one does not."""
    for cat in ("gender", "orientation", "age", "appearance"):
        train = chbias_train(spec.CATEGORIES[cat])
        built = augment.ctda(train, spec.CATEGORIES[cat])
        assert built.originals == len(train)
        assert built.changed >= 0.75 * len(train)
        assert len(built.sentences) == built.originals + built.changed
        assert len(set(built.sentences) - set(train)) >= 0.75 * built.changed  # copies are new sentences
    # the paired test split: a swap of T1 line i lands on the upstream T2 line i for most pairs
    one, two = chbias_pairs(spec.GENDER, "test")
    ctda = augment.Swapper(spec.GENDER.target_pairs)
    agree = sum(ctda.swap(a).text == b for a, b in zip(one, two, strict=True))
    assert agree >= 100


def test_the_pairs_are_read_from_the_right_column() -> None:
    """Upstream's evaluation reads the column `comments_processed`, which the shipped CSVs do not have
    (they have `replaced_sentence`): it fails on its own data. The pairs here are read from the text files,
    and they are the CSVs' `replaced_sentence` column line for line."""
    import pandas as pd

    from harness.core.datasets import require_file

    for group, index in (("female", 0), ("male", 1)):
        csv = pd.read_csv(require_file("chbias", f"data/gender/gender_{group}_test.csv"), keep_default_na=False)
        assert "comments_processed" not in csv.columns
        assert csv["replaced_sentence"].str.strip().tolist() == chbias_pairs(spec.GENDER, "test")[index]
