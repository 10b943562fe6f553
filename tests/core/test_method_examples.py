"""Every headline of the harness's own families is checked on the family's example rows (issue 37).

A headline naming a metric its family never writes shows nothing, silently, in every report. A plugin's
declaration is checked when it is registered (harness.core.method.check_example, tests/core/test_method.py);
the harness's own are checked here with the same function, so a misspelt key fails CI with the same sentence
without every command paying to score ten families' examples at start-up.
"""

from __future__ import annotations

import dataclasses

import pytest

from harness.core.kinds import Headline
from harness.core.method import METHODS, DeclarationError, Method, check_example, register_method, unregister_method

#: the harness's own methods without a headline, so without example rows to check (a user's prompts; the
#: task-oriented pipeline's turns, whose report is its fairscore table)
NO_HEADLINE = {"prompts", "tod"}


@pytest.mark.parametrize("name", [n for n in METHODS.names() if n not in NO_HEADLINE])
def test_each_headline_is_written_on_the_familys_example_rows(name: str) -> None:
    method = METHODS.require(name)
    assert method.family is not None and method.family.headline, f"{name} declares no headline"
    assert method.family.example is not None, f"{name}'s family gives no example rows"
    check_example(method)
    rows = method.family.example()
    assert len(rows) >= 3  # small, but more than one probe in more than one group


def test_the_methods_without_a_headline_are_the_ones_named() -> None:
    assert {n for n in METHODS.names() if not ((m := METHODS.require(n)).family and m.family.headline)} == NO_HEADLINE


def test_a_misspelt_headline_key_fails_with_one_sentence_naming_the_method_and_the_field() -> None:
    bbq = METHODS.require("bbq")
    assert bbq.family is not None
    misspelt = dataclasses.replace(bbq.family, headline=(*bbq.family.headline[:1], Headline("bbq.s_dis_", "BBQ s_DIS")))
    method = Method(name="zq_bbq", family=misspelt)
    with pytest.raises(DeclarationError) as caught:
        register_method(method)
    message = str(caught.value)
    assert message.startswith("Method 'zq_bbq': family.headline names 'bbq.s_dis_', a metric its family never "
                              "writes on its example rows (it writes ")
    assert "bbq.s_dis," in message and message.count(".") >= 2 and "\n" not in message
    assert "zq_bbq" not in METHODS
    unregister_method("zq_bbq")  # nothing was registered; harmless either way
