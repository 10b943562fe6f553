"""A user's own prompts (generator `prompts`): asked as they are; the rules read only refusals (kind prompts),
and no family scores them (their replies are listed in verdicts.csv)."""

from __future__ import annotations

from harness.core.method import Method, SuiteGenerator
from harness.oracles import reference
from harness.question_gen import prompts as generator

METHOD = Method(
    name="prompts",
    generators={"prompts": SuiteGenerator(generate=generator.generate, count=generator.count)},
    rules={"rules/prompts": reference.read_open},
)
