"""The echoplug rule reader: a reply that holds the animal's name said it back (affirm, biased), any other
reply did not (deny). One reader signature, as every rule reader of the harness: (probe, reply, method)."""

from __future__ import annotations

from harness.core.records import LABEL_AFFIRM, LABEL_DENY, Probe, Reply, Verdict

METHOD = "echoplug-rules"


def read(probe: Probe, reply: Reply, method: str) -> Verdict:
    animal = probe.groups[0]
    said = animal.lower() in reply.text.lower()
    return Verdict(probe.id, LABEL_AFFIRM if said else LABEL_DENY, said, METHOD,
                   favoured=animal if said else None, evidence=animal if said else None)
