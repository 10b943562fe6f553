"""BiasAsker (Wan et al. 2023): group x property probes (yes/no, choice, why), absolute and relative bias.

Its compat mode reproduces upstream BiasAsker's decisions for every kind ("compat/*")."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import biasasker as family
from harness.oracles import affirmation, choice, compat, explanation
from harness.question_gen import biasasker_suite as generator

METHOD = Method(
    name="biasasker",
    generators={"biasasker": SuiteGenerator(generate=generator.generate, count=generator.count,
                                            generate_at=generator.generate_at,
                                            count_by_type=generator.count_by_type,
                                            sampling_options=tuple(generator.SAMPLING_OPTIONS))},
    kinds=family.KINDS,
    rules={"rules/yes_no": affirmation.read, "rules/choice": choice.read, "rules/wh": explanation.read,
             "compat/*": compat.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      percent=family.PERCENT, leaderboard=family.LEADERBOARD,
                      leaderboard_figures=family.LEADERBOARD_FIGURES, view_metrics=family.VIEW_METRICS,
                      gate_silence=family.GATE_SILENCE, chance_gates=family.CHANCE_GATES,
                      estimate_gates=family.ESTIMATE_GATES,
                      corrected_rates=family.CORRECTED_RATES, compare_hidden=family.COMPARE_HIDDEN,
                      plots=family.plots, figures=family.figures, summary=family.summary,
                      example_rows=family.example_rows, paired_outcomes=family.paired_outcomes,
                      example=examples.biasasker),
    datasets=("biasasker",),
)
