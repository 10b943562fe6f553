"""The rules' reading of (probe, reply) pairs, without pandas: what score_run and the read-ahead worker share.

Why a module of its own: the read-ahead worker (harness.score.read_worker) is a fresh process that must start
reading within a second, and harness.score.scoring imports pandas (half a second of CPU) which reading needs not.
"""

from __future__ import annotations

import dataclasses

from harness.core.display import no_surrogates
from harness.core.records import Probe, Reply, Verdict


def read_with_rules(pairs: list[tuple[Probe, Reply]], method: str, compat: bool) -> list[Verdict]:
    """The rules' verdicts of `pairs`, in order (harness.oracles.score).

    A reply may hold a lone surrogate (a server's JSON can spell "\\ud800"); the transcript keeps it, but UTF-8
    tokenizers (jieba, spaCy, the oracle's own byte counts) cannot take it: they read U+FFFD.
    """
    from harness.oracles import score  # lazy: the oracles load their word lists on import

    pairs = [(p, r if (text := no_surrogates(r.text)) is r.text else dataclasses.replace(r, text=text))
             for p, r in pairs]
    return list(score(pairs, method=method, compat=compat))
