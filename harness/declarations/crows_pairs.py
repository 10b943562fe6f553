"""CrowS-Pairs (Nangia et al. 2020): which of a stereotyping / anti-stereotyping pair a model prefers."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import crows_pairs as family
from harness.oracles import crows_pairs as reader
from harness.question_gen import crows_pairs as generator

METHOD = Method(
    name="crows_pairs",
    generators={"crows_pairs": SuiteGenerator(generate=generator.generate, count=generator.count,
                                              generate_at=generator.generate_at,
                                              count_by_type=generator.count_by_type, variants=generator.variants,
                                              answer_mode=generator.ANSWER_MODE)},
    kinds=family.KINDS,
    rules={"*/crows_pairs": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      leaderboard=family.LEADERBOARD, view_metrics=family.VIEW_METRICS,
                      gate_silence=family.GATE_SILENCE, estimate_gates=family.ESTIMATE_GATES,
                      findings_caption=family.FINDINGS_CAPTION,
                      plots=family.plots,
                      example=examples.crows_pairs),
    datasets=("crows-pairs",),
)
