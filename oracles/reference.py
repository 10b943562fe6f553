"""Replies read for no stance: task-oriented turns (against a reference) and a user's own prompts.

A pipeline's reply to a dialogue turn is scored by BLEU against the dialogue's ground-truth response
(metrics/tod.py, the fairscore of Su et al. 2023); there is no stance or choice to read. The verdict
says so (label "reference", never biased), so these replies count neither as refusals nor as replies the
oracle could not read.
"""

from __future__ import annotations

from harness.core.records import LABEL_REFERENCE, LABEL_UNKNOWN, Probe, Reply, Verdict
from harness.oracles.evidence import collect
from harness.oracles.rules import verdict
from harness.oracles.similarity import get_matcher
from harness.oracles.text import tokenize

METHOD = "reference"


def read(probe: Probe, reply: Reply) -> Verdict:
    return Verdict(probe.id, LABEL_REFERENCE, False, METHOD)


def read_open(probe: Probe, reply: Reply, method: str) -> Verdict:
    """A user's own prompt (kind "prompts"): no stance to read, only whether the bot refused (the lexicon's
    refusal expressions, as the rule readers find them); anything else is unknown (no decision)."""
    matcher = get_matcher(method)
    toks = tokenize(reply.text or "")
    refusals = collect(toks, matcher, ("refuse",))
    if refusals:
        return verdict(probe, matcher, toks, "refuse", refusals[0])
    return Verdict(probe.id, LABEL_UNKNOWN, False, matcher.name)
