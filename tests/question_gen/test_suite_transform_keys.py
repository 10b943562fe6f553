"""question_gen.suites names the transforms' spec keys itself, so a suite without -p perturb / -p mutate never
imports harness.perturb or the metamorphic relations (start-up, issue 38): the names must stay theirs."""

from __future__ import annotations

from harness.perturb import probes as perturb_probes
from harness.question_gen import metamorphic, suites


def test_the_suites_transform_keys_are_the_transforms_own() -> None:
    assert suites.TRANSFORM_KEYS == perturb_probes.TRANSFORM_KEYS
    assert suites.MUTATE_KEYS == metamorphic.TRANSFORM_KEYS


def test_a_perturbed_suite_still_perturbs_and_a_plain_one_is_untouched() -> None:
    plain = suites.load_suite("builtin-en")
    perturbed = plain.with_overrides(perturb="gender")
    first = next(iter(perturbed.probes()))
    assert perturbed.generator_spec == plain.generator_spec  # the transform's keys never reach the generator
    assert "counterfactual" in first.meta  # the transform ran (its pairing meta)
    assert "counterfactual" not in next(iter(plain.probes())).meta
