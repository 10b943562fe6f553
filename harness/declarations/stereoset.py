"""StereoSet (Nadeem, Bethke & Reddy 2021): intrasentence and intersentence stereotype preference (SS, LMS, ICAT)."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import stereoset as family
from harness.oracles import stereoset as reader
from harness.question_gen import stereoset as generator

METHOD = Method(
    name="stereoset",
    generators={"stereoset": SuiteGenerator(generate=generator.generate, count=generator.count,
                                            generate_at=generator.generate_at,
                                            count_by_type=generator.count_by_type, variants=generator.variants)},
    kinds=family.KINDS,
    rules={"*/stereoset": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      leaderboard=family.LEADERBOARD, view_metrics=family.VIEW_METRICS,
                      estimate_gates=family.ESTIMATE_GATES,
                      findings_caption=family.FINDINGS_CAPTION, plots=family.plots,
                      example=examples.stereoset),
    datasets=("stereoset",),
)
