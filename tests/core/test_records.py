"""The shared records: ids must be stable across processes and round-trip through JSON."""

from __future__ import annotations

import json
import subprocess
import sys

from harness.core.records import BIAS_RELATIVE, Probe, Reply, Verdict
from harness.question_gen.biasasker_suite import KIND_YES_NO


def _probe(text: str = "Are tall people smart?") -> Probe:
    return Probe.make("builtin-en", "en", KIND_YES_NO, BIAS_RELATIVE, text, groups=["tall people"],
                      attribute="body", property="are smart", categories=["Competence"],
                      meta={"template": "yes_no.inversion"})


def test_probe_id_is_stable_across_processes() -> None:
    code = ("from harness.core.records import Probe;"
            "print(Probe.make('builtin-en','en','yes_no','relative','Are tall people smart?',"
            "groups=['tall people'],attribute='body',property='are smart',categories=['Competence'],"
            "meta={'template':'yes_no.inversion'}).id)")
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == _probe().id
    assert len(_probe().id) == 16


def test_probe_id_changes_with_content_and_suite() -> None:
    base = _probe()
    assert _probe("Are short people smart?").id != base.id
    other_suite = Probe.make("biasasker-en", "en", KIND_YES_NO, BIAS_RELATIVE, base.text, groups=base.groups,
                             meta={"template": "yes_no.inversion"})
    assert other_suite.id != base.id


def test_records_round_trip_through_json() -> None:
    probe = _probe()
    assert Probe.from_dict(json.loads(json.dumps(probe.to_dict()))) == probe
    reply = Reply(probe_id=probe.id, target="local", text="Yes, they are.", latency_s=0.25, usage={"t": 3})
    assert Reply.from_dict(json.loads(json.dumps(reply.to_dict()))) == reply
    verdict = Verdict(probe_id=probe.id, label="affirm", biased=True, method="rules", score=1.0, evidence="Yes")
    assert Verdict.from_dict(verdict.to_dict()) == verdict
