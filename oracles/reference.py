"""Replies read against a reference answer, not for a decision: task-oriented dialogue turns.

A pipeline's reply to a dialogue turn is scored by BLEU against the dialogue's ground-truth response
(metrics/tod.py, the fairscore of Su et al. 2023); there is no stance or choice to read. The verdict
says so (label "reference", never biased), so these replies count neither as refusals nor as replies the
oracle could not read.
"""

from __future__ import annotations

from harness.core.records import LABEL_REFERENCE, Probe, Reply, Verdict

METHOD = "reference"


def read(probe: Probe, reply: Reply) -> Verdict:
    return Verdict(probe.id, LABEL_REFERENCE, False, METHOD)
