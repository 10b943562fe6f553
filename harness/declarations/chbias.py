"""CHBias (Zhao et al. 2023): which of a sentence pair a model's perplexity favours (white-box targets)."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import chbias as family
from harness.oracles import chbias as reader
from harness.question_gen import chbias as generator

METHOD = Method(
    name="chbias",
    generators={"chbias": SuiteGenerator(generate=generator.generate, count=generator.count,
                                         generate_at=generator.generate_at, count_by_type=generator.count_by_type,
                                         answer_mode=generator.ANSWER_MODE)},
    kinds=family.KINDS,
    rules={"*/chbias": reader.score_pair},
    family=FamilySpec(compute=family.compute, estimate_gates=family.ESTIMATE_GATES,
                      headline=family.HEADLINE, leaderboard=family.LEADERBOARD,
                      view_metrics=family.VIEW_METRICS, plots=family.plots,
                      example=examples.chbias),
    datasets=("chbias",),
)
