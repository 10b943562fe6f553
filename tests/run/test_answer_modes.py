"""Answer modes as registered objects: the registry, which targets each refuses (one sentence), how a suite's
generator picks its mode, and the log-likelihood mode's options read from the probe."""

from __future__ import annotations

import math
import types

import pytest

from harness.adapters.hf_local import HFLocalAdapter
from harness.adapters.http_json import HttpJsonAdapter
from harness.core.errors import HarnessError
from harness.core.records import Probe
from harness.run.answer_modes import ANSWER_MODES, answer_mode, mode_for, refusal, selectable_modes
from harness.run.loglik import probabilities, question_for


def test_the_built_in_modes_are_registered_by_entry_points() -> None:
    assert ANSWER_MODES.names()[:3] == ["generate", "loglik", "perplexity"]
    assert selectable_modes() == ["generate", "loglik"]  # perplexity is picked by its suites only
    assert [answer_mode(n).run_id_suffix for n in ("generate", "loglik", "perplexity")] == ["", "-loglik", ""]
    assert [answer_mode(n).uses_response_cache for n in ("generate", "loglik", "perplexity")] == [True, True, True]
    with pytest.raises(HarnessError, match=r"^Unknown answer mode 'guess'; use generate or loglik\.$"):
        answer_mode("guess")


def test_each_mode_says_which_targets_it_refuses() -> None:
    assert refusal("generate", HttpJsonAdapter, "web") is None
    assert refusal("loglik", HFLocalAdapter, "tiny") is None and refusal("perplexity", HFLocalAdapter, "tiny") is None
    assert refusal("loglik", HttpJsonAdapter, "web") == (
        "Target 'web' (http) gives no log-likelihoods; --answer-mode loglik needs an hf target (e.g. local-zh-hf), "
        "or use --answer-mode generate.")
    assert refusal("perplexity", HttpJsonAdapter, "web").startswith("Target 'web' (http) cannot give log-probabilities")


def test_a_generator_picks_its_mode_through_the_registry() -> None:
    pairs = types.SimpleNamespace(name="pairs", module=types.SimpleNamespace(answer_mode="perplexity"))
    assert mode_for(pairs, "generate") == "perplexity"
    with pytest.raises(HarnessError, match="answered by perplexity only; drop --answer-mode loglik"):
        mode_for(pairs, "loglik")
    odd = types.SimpleNamespace(name="odd", module=types.SimpleNamespace(answer_mode="telepathy"))
    with pytest.raises(HarnessError, match="Unknown answer mode 'telepathy'"):
        mode_for(odd, "generate")


def test_loglik_reads_its_options_from_the_probe() -> None:
    plain = Probe.make("s", "en", "cbbq", "", "Who? A. x B. y C. z", options=("x", "y", "z"))
    assert question_for(plain, "letters", False).continuations == ["A", "B", "C"]
    assert question_for(plain, "options", True).continuations == ["x", "y", "z"]
    assert question_for(plain, "options", True).answers == ["A", "B", "C"]  # the letter is the reply
    audit = Probe.make("s", "en", "decision", "", "Hire her?", options=("yes", "no"),
                       meta={"loglik": {"continuations": [" Yes", " No"], "answers": ["yes", "no"]}})
    q = question_for(audit, "letters", False)
    assert (q.continuations, q.answers, q.normalise) == ([" Yes", " No"], ["yes", "no"], False)
    bad = Probe.make("s", "en", "decision", "", "Hire him?", options=("yes", "no"),
                     meta={"loglik": {"answers": ["yes"]}})
    with pytest.raises(HarnessError, match="names 2 log-likelihood continuations and 1 answers"):
        question_for(bad, "letters", False)


def test_the_options_probabilities_are_a_softmax_of_the_sums() -> None:
    # log 0.2 and log 0.6: given one of the two is the answer, P = 0.2 / 0.8 and 0.6 / 0.8
    assert probabilities([math.log(0.2), math.log(0.6)]) == pytest.approx([0.25, 0.75], rel=1e-12)
    # far from zero the shift by the largest keeps it finite: -1000 and -1001 -> e / (e + 1) and 1 / (e + 1)
    assert probabilities([-1000.0, -1001.0]) == pytest.approx([math.e / (math.e + 1), 1 / (math.e + 1)], rel=1e-12)
