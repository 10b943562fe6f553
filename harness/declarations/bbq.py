"""BBQ (Parrish et al. 2022): English ambiguous / disambiguated multiple choice, its bias scores and accuracy."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import bbq as family
from harness.oracles import bbq as reader
from harness.question_gen import bbq as generator

METHOD = Method(
    name="bbq",
    generators={"bbq": SuiteGenerator(generate=generator.generate, count=generator.count,
                                      generate_at=generator.generate_at, count_by_type=generator.count_by_type,
                                      variants=generator.variants)},
    kinds=family.KINDS,
    rules={"*/bbq": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      leaderboard=family.LEADERBOARD, view_metrics=family.VIEW_METRICS,
                      gate_silence=family.GATE_SILENCE, chance_gates=family.CHANCE_GATES,
                      estimate_gates=family.ESTIMATE_GATES, plots=family.plots,
                      compare_test=family.compare_test,
                      example=examples.bbq),
    datasets=("bbq",),
)
