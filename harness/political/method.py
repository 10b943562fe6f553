"""Liu et al.'s political bias, declared as one method: its generator, its kind (continuation, read by the
political judge, a Reader of the whole batch), its family. The declaration sits in the method package, not
in harness/declarations/, because its reader does: a layer below may not name it."""

from __future__ import annotations

from harness.core.method import FamilySpec, Method, SuiteGenerator
from harness.declarations import examples
from harness.metrics import political as family
from harness.political import reader
from harness.question_gen import political as generator

METHOD = Method(
    name="political",
    generators={"political": SuiteGenerator(generate=generator.generate, count=generator.count,
                                            count_by_type=generator.count_by_type)},
    kinds=family.KINDS,
    kind_readers={reader.READER: reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, gate_silence=family.GATE_SILENCE,
                      chance_gates=family.CHANCE_GATES, findings_caption=family.FINDINGS_CAPTION,
                      plots=family.plots, summary=family.summary,
                      example=examples.political),
)
