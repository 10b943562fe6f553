"""CBBQ (Huang & Xiong 2024): the Chinese bias benchmark's ambiguous / disambiguated multiple choice."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import cbbq as family
from harness.oracles import cbbq as reader
from harness.question_gen import cbbq as generator

METHOD = Method(
    name="cbbq",
    generators={"cbbq": SuiteGenerator(generate=generator.generate, count=generator.count,
                                       generate_at=generator.generate_at, count_by_type=generator.count_by_type)},
    kinds=family.KINDS,
    rules={"*/cbbq": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, leaderboard=family.LEADERBOARD,
                      view_metrics=family.VIEW_METRICS, gate_silence=family.GATE_SILENCE,
                      chance_gates=family.CHANCE_GATES, estimate_gates=family.ESTIMATE_GATES, tables=family.tables,
                      plots=family.plots,
                      example=examples.cbbq),
    datasets=("cbbq",),
)
