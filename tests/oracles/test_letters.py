"""The letter search both multiple-choice readers share (harness.oracles.letters), on hand-made answers: the
same text reads the same through the BBQ reader's English grammar and the CBBQ parser's."""

from __future__ import annotations

from harness.oracles import bbq, cbbq
from harness.oracles.letters import conflicting, find_letters, outermost, strip_echo


def test_leading_stated_negated_and_paired_letters() -> None:
    for grammar in (bbq.GRAMMAR, cbbq.GRAMMAR):
        assert find_letters("B", grammar) == ({1}, "B")
        assert find_letters("b", grammar) == ({1}, "b")  # a lower-case letter as the whole reply
        assert find_letters("A person did it", grammar) == (set(), "")  # the article, not option A
        assert find_letters("A or B", grammar)[0] == {0, 1}
    assert find_letters("The answer is C", bbq.GRAMMAR) == ({2}, "answer is C")
    assert find_letters("not A, the answer is C", bbq.GRAMMAR)[0] == {2}
    assert find_letters("答案是C", cbbq.GRAMMAR)[0] == {2}
    assert find_letters("不是A", cbbq.GRAMMAR)[0] == set()


def test_a_letter_contradicted_by_another_option_and_an_echoed_list() -> None:
    options = ("The grandfather", "The grandson", "Unknown")
    fold = bbq._fold
    assert conflicting("A. The grandson", "a. the grandson", "A", 0, options, fold, r"^[\s.):,\-]*", 80) == \
        "the grandson"
    assert conflicting("A. The grandfather", "a. the grandfather", "A", 0, options, fold, r"^[\s.):,\-]*", 80) is None
    echoed = strip_echo("A. The grandfather B. The grandson C. Unknown I pick", options, bbq._echo)
    assert echoed == "I pick"
    assert strip_echo("A. The grandfather, I think", options, bbq._echo) == "A. The grandfather, I think"


def test_a_mention_inside_a_longer_one_counts_for_the_longer_option() -> None:
    text = "非传染病患者"
    spans = [(1, 6, 0), (0, 6, 1)]  # 传染病患者 (option 0) inside 非传染病患者 (option 1)
    assert outermost(spans, text) == {1: "非传染病患者"}
    assert outermost([(0, 2, 0), (3, 5, 1)], "男生和女生") == {0: "男生", 1: "女生"}
