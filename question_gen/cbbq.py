"""The CBBQ suite generator: CBBQ instances -> multiple-choice Probes (``generator: cbbq`` in a suite YAML).

Spec keys (all optional; CLI overrides arrive through ``question_gen.suites.select_probes``):

``categories``   list of CBBQ categories, or ``all`` (default). ``category`` (one name) also works.
``contexts``     ``[ambiguous, disambiguous]`` (default both).
``per_category`` N: a seeded uniform sample of N instances per category AND context (so every category
                 gets both an S_amb and an S_disamb); omitted/null = every instance (118,666).
``seed``         seed for ``per_category`` sampling and ``permute: shuffle`` (default 0).
``prompt``       ``chat`` (default; upstream's gpt-3.5 prompt) or ``instruction`` (ChatGLM/GLM prompt).
``permute``      ``none`` (default, upstream's order), ``rotate`` (3 probes per instance, one per cyclic
                 order) or ``shuffle`` (one seeded order per instance). See question_gen.cbbq_prompts.

Probe fields: kind ``cbbq``; bias_type ``ambiguous``/``disambiguous``; options = the three answer
texts in displayed order; groups = (ans0, ans1) in upstream order; attribute = the category; property =
the question; categories = (category,). meta: label / target / non_target / unknown (displayed indices),
polarity (``neg``/``non_neg``), category, subcategory, question_index, bias_targeted_groups,
context_condition, example_id (upstream's, 1-based per category+context), instance (stable instance key;
also upstream_id, the id another tool's predictions name it by),
order (original index shown at A, B, C), prompt, target_source (how the target slot was derived:
label / twin / answers / names / category, see question_gen.cbbq_templates), template.

Counting is arithmetic over the templates (no filling), so ``harness suites`` stays fast.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

from harness.core.errors import ConfigError
from harness.core.records import Probe
from harness.question_gen import cbbq_prompts
from harness.question_gen.cbbq_templates import (
    CATEGORIES,
    CONTEXTS,
    UNKNOWN_SLOT,
    Instance,
    instance_count,
    instances_at,
    iter_instances,
    target_slots,
)

#: the kind these probes are (declared by metrics/cbbq.py; the name is the contract between the two)
KIND = "cbbq"

DEFAULT_PROMPT = "chat"
DEFAULT_PERMUTE = "none"


def _categories(spec: Mapping[str, Any]) -> list[str]:
    raw = spec.get("categories", spec.get("category", "all"))
    if raw in (None, "all", ["all"]):
        return list(CATEGORIES)
    names = [raw] if isinstance(raw, str) else list(raw)
    if isinstance(raw, str) and "," in raw:
        names = [n.strip() for n in raw.split(",") if n.strip()]
    unknown = [n for n in names if n not in CATEGORIES]
    if unknown:
        raise ConfigError(f"Unknown CBBQ categor{'y' if len(unknown) == 1 else 'ies'} "
                          f"{', '.join(map(repr, unknown))}; known: {', '.join(CATEGORIES)}.")
    return names


def _contexts(spec: Mapping[str, Any]) -> list[str]:
    raw = spec.get("contexts", list(CONTEXTS))
    names = [raw] if isinstance(raw, str) else list(raw)
    bad = [n for n in names if n not in CONTEXTS]
    if bad or not names:
        raise ConfigError(f"CBBQ contexts must be among {', '.join(CONTEXTS)}, got {raw!r}.")
    return names


def _per_category(spec: Mapping[str, Any]) -> int | None:
    raw = spec.get("per_category")
    if raw in (None, "", "all"):
        return None
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"per_category must be a whole number, got {raw!r}.") from None
    if n < 1:
        raise ConfigError(f"per_category must be at least 1, got {n}.")
    return n


def _seed(spec: Mapping[str, Any]) -> int:
    try:
        return int(spec.get("seed", 0) or 0)
    except (TypeError, ValueError):
        raise ConfigError(f"seed must be a whole number, got {spec.get('seed')!r}.") from None


SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "categories", "category", "contexts",
                       "per_category", "seed", "prompt", "permute"})


def _settings(spec: Mapping[str, Any]) -> tuple[str, str]:
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ConfigError(f"Unknown CBBQ suite option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; known: "
                          f"{', '.join(sorted(SPEC_KEYS - {'name', 'generator', 'lang', 'description'}))}.")
    prompt = str(spec.get("prompt", DEFAULT_PROMPT))
    permute = str(spec.get("permute", DEFAULT_PERMUTE))
    if prompt not in cbbq_prompts.PROMPTS:
        raise ConfigError(f"Unknown CBBQ prompt style {prompt!r}; choose one of: "
                          f"{', '.join(cbbq_prompts.PROMPTS)}.")
    if permute not in cbbq_prompts.PERMUTE_MODES:
        raise ConfigError(f"Unknown CBBQ permute mode {permute!r}; choose one of: "
                          f"{', '.join(cbbq_prompts.PERMUTE_MODES)}.")
    return prompt, permute


def _sample_indices(category: str, context: str, total: int, k: int | None, seed: int) -> list[int] | None:
    if k is None or k >= total:
        return None
    return sorted(random.Random(f"cbbq-sample:{seed}:{category}:{context}").sample(range(total), k))


def iter_selected_instances(spec: Mapping[str, Any]) -> Iterator[Instance]:
    """The instances a spec selects, category by category, in upstream order within each."""
    k, seed = _per_category(spec), _seed(spec)
    for category in _categories(spec):
        for context in _contexts(spec):
            chosen = _sample_indices(category, context, instance_count(category, context), k, seed)
            yield from iter_instances(category, context) if chosen is None else instances_at(
                category, context, chosen)


def probes_for_instance(inst: Instance, suite_name: str, *, prompt: str, permute: str, seed: int,
                        target_source: str = "") -> Iterator[Probe]:
    """One probe per display order of the instance (1, or 3 with ``permute: rotate``)."""
    instance_key = f"{inst.category}/{inst.context_condition}/{inst.example_id}"
    original = inst.options
    non_target = 1 - inst.target
    for order in cbbq_prompts.orders(permute, seed=seed, key=instance_key):
        shown = tuple(original[i] for i in order)
        text = cbbq_prompts.render(prompt, inst.context, inst.question, shown)
        meta = {
            "template": f"cbbq/{instance_key}/{prompt}/{''.join(map(str, order))}",
            "instance": instance_key,
            "upstream_id": instance_key,  # what another tool's predictions name it by (harness.human.predictions)
            "label": cbbq_prompts.displayed_index(order, inst.label),
            "target": cbbq_prompts.displayed_index(order, inst.target),
            "non_target": cbbq_prompts.displayed_index(order, non_target),
            "unknown": cbbq_prompts.displayed_index(order, UNKNOWN_SLOT),
            "polarity": inst.polarity,
            "category": inst.category,
            "subcategory": inst.subcategory,
            "question_index": inst.question_index,
            "bias_targeted_groups": inst.bias_targeted_groups,
            "context_condition": inst.context_condition,
            "example_id": inst.example_id,
            "order": list(order),
            "prompt": prompt,
            "target_source": target_source,
        }
        yield Probe.make(suite_name, "zh", KIND, inst.context_condition, text,
                         groups=(inst.ans0, inst.ans1), attribute=inst.category, property=inst.question,
                         categories=(inst.category,), options=shown, meta=meta)


def generate(spec: Mapping[str, Any], suite_name: str) -> Iterator[Probe]:
    """Stream the suite's probes (never materialises the 118,666 instances)."""
    prompt, permute = _settings(spec)
    seed = _seed(spec)
    for inst in iter_selected_instances(spec):
        source = target_slots(inst.category)[(inst.context_condition, inst.template_row)][1]
        yield from probes_for_instance(inst, suite_name, prompt=prompt, permute=permute, seed=seed,
                                       target_source=source)


def count(spec: Mapping[str, Any]) -> int:
    """Number of probes ``generate`` yields, by arithmetic over the templates."""
    _, permute = _settings(spec)
    k = _per_category(spec)
    per_instance = 3 if permute == "rotate" else 1
    total = 0
    for category in _categories(spec):
        for context in _contexts(spec):
            n = instance_count(category, context)
            total += min(n, k) if k is not None else n
    return total * per_instance


def count_by_type(spec: Mapping[str, Any]) -> dict[str, int]:
    """Probe counts per context (bias type), for `harness suites`."""
    return {context: count({**spec, "contexts": [context]}) for context in _contexts(spec)}


def _blocks(spec: Mapping[str, Any]) -> Iterator[tuple[str, str, list[int] | None, int]]:
    """(category, context, chosen instance indices or None for all, number of instances) in stream order."""
    k, seed = _per_category(spec), _seed(spec)
    for category in _categories(spec):
        for context in _contexts(spec):
            total = instance_count(category, context)
            chosen = _sample_indices(category, context, total, k, seed)
            yield category, context, chosen, total if chosen is None else len(chosen)


def generate_at(spec: Mapping[str, Any], suite_name: str, positions: list[int]) -> Iterator[Probe]:
    """The probes at sorted stream positions, filling only the templates that hold them (fast sampling)."""
    prompt, permute = _settings(spec)
    seed = _seed(spec)
    per_instance = 3 if permute == "rotate" else 1
    wanted = sorted(set(positions))
    pos_i = 0
    start = 0
    for category, context, chosen, n_instances in _blocks(spec):
        end = start + n_instances * per_instance
        local: list[tuple[int, int]] = []  # (instance index within the category/context, variant)
        while pos_i < len(wanted) and wanted[pos_i] < end:
            inst_pos, variant = divmod(wanted[pos_i] - start, per_instance)
            local.append((chosen[inst_pos] if chosen is not None else inst_pos, variant))
            pos_i += 1
        if local:
            slots = target_slots(category)
            variants: dict[int, list[int]] = {}
            for idx, variant in local:
                variants.setdefault(idx, []).append(variant)
            for inst in instances_at(category, context, sorted(variants)):
                source = slots[(context, inst.template_row)][1]
                probes = list(probes_for_instance(inst, suite_name, prompt=prompt, permute=permute, seed=seed,
                                                  target_source=source))
                for variant in variants[inst.example_id - 1]:
                    yield probes[variant]
        if pos_i >= len(wanted):
            return
        start = end
