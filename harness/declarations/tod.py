"""Task-oriented dialogue fairness (Su et al.): a pipeline's turns read against their reference (fairscore)."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.metrics import tod as family
from harness.oracles import reference as reader
from harness.question_gen import tod as generator

METHOD = Method(
    name="tod",
    generators={"tod": SuiteGenerator(generate=generator.generate, count=generator.count,
                                      generate_at=generator.generate_at, target_kind=generator.TARGET_KIND)},
    kinds=family.KINDS,
    rules={"*/tod": reader.read},
    family=FamilySpec(compute=family.compute, plots=family.plots, summary=family.summary,
                      sections=family.SECTIONS, estimate_gates=family.ESTIMATE_GATES),
    datasets=("sgd",),
)
