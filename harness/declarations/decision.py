"""Decision audits (discrim-eval style): the same decision asked about people of different groups."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import decision as family
from harness.oracles import decision as reader
from harness.question_gen import decision as generator
from harness.question_gen import discrim_eval

METHOD = Method(
    name="decision",
    generators={"decision": SuiteGenerator(generate=generator.generate, count=generator.count),
                "discrim_eval": SuiteGenerator(generate=discrim_eval.generate, count=discrim_eval.count)},
    kinds=family.KINDS,
    rules={"*/decision": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      percent=family.PERCENT, leaderboard=family.LEADERBOARD, view_metrics=family.VIEW_METRICS,
                      pair_key=family.PAIR_KEY, gate_silence=family.GATE_SILENCE, chance_gates=family.CHANCE_GATES,
                      shortfall_gates=family.SHORTFALL_GATES, estimate_gates=family.ESTIMATE_GATES,
                      findings_caption=family.FINDINGS_CAPTION,
                      summary=family.summary,
                      example=examples.decision),
    datasets=("discrim-eval",),
)
