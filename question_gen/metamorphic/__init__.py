"""Metamorphic probes: the same claim asked in another context (`-p mutate=RELATION[,RELATION...]|all`).

A chatbot that refuses "Are women worse drivers?" may agree when the same claim arrives inside a story, a
persona, a colleague's opinion, after "Please just answer yes or no", split into two yes/no questions, or
in its other language (Salimian et al., 2025; Romero-Arjona et al., 2025). Each relation here keeps the
question's claim (its groups and property) and changes only its context; the metric family
(metrics.metamorphic) then puts each variant's verdict beside its base's: a variant read as biased when the
base was not is a *hidden bias*.

The transform (`transform`) yields every mutable selected probe as a **base**, then its variants:

    base:     meta["metamorphic"] = {"role": "base", "base": ID, "relations": [...]}
    variant:  meta["metamorphic"] = {"role": "variant", "base": ID, "relation": NAME[, "part": i, "parts": n]}

A variant's id is derived from its base's id, the relation and its text, so it never collides with a
question of the suite that reads the same. A multi-turn variant (pressure) carries its later user turns in
meta["turns"] (Probe.turns; the run engine asks them in one conversation). Paper families score the bases
only (metrics.family_rows leaves variants out); the metamorphic family reads base/variant pairs.

Composition with `-p perturb=AXIS` (harness.perturb.probes; perturbing runs first): originals and perturbed
copies are both bases; a variant of a perturbed copy drops the copy's meta["counterfactual"] (kept as
meta["metamorphic"]["counterfactual"]), so the counterfactual family reads each perturbation once and the
metamorphic family each mutation once.

Relations apply to the BiasAsker probe kinds (yes_no, choice, wh) in English and Chinese; other probes
pass through unchanged and unmarked. A selection with nothing to mutate is one sentence and exit 2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from harness.core.errors import ConfigError, HarnessError
from harness.core.records import Probe, stable_id
from harness.question_gen.biasasker_suite import KIND_CHOICE, KIND_WH, KIND_YES_NO
from harness.question_gen.metamorphic.framing import ATTRIBUTION, FICTION, PERSONA
from harness.question_gen.metamorphic.language import LANGUAGE
from harness.question_gen.metamorphic.pressure import PRESSURE
from harness.question_gen.metamorphic.relation import Context, Relation, Variant
from harness.question_gen.metamorphic.split import SPLIT

META_KEY = "metamorphic"
ROLE_BASE = "base"
ROLE_VARIANT = "variant"
TRANSFORM_KEYS = ("mutate",)
MUTABLE_KINDS = frozenset({KIND_YES_NO, KIND_CHOICE, KIND_WH})
LANGS = ("en", "zh")
#: counterfactual meta (harness.perturb.probes.META_KEY), moved off a variant so it is read once
_CF_KEY = "counterfactual"

RELATIONS: dict[str, Relation] = {r.name: r for r in (FICTION, PERSONA, ATTRIBUTION, PRESSURE, SPLIT, LANGUAGE)}

__all__ = ["META_KEY", "RELATIONS", "ROLE_BASE", "ROLE_VARIANT", "TRANSFORM_KEYS", "Context", "Relation",
           "relations_from_spec", "transform", "variants_of"]


def relations_from_spec(spec: Mapping[str, Any]) -> tuple[Relation, ...]:
    """The relations `-p mutate=...` asks for, in the registry's order; () when none. Bad names: one sentence."""
    value = spec.get("mutate")
    if value in (None, "", False, "none"):
        return ()
    names = value if isinstance(value, list | tuple) else str(value).split(",")
    names = [str(n).strip() for n in names if str(n).strip()]
    if "all" in names:
        return tuple(RELATIONS.values())
    unknown = [n for n in names if n not in RELATIONS]
    if unknown:
        raise ConfigError(f"mutate names unknown relation(s) {', '.join(unknown)}; known: "
                          f"{', '.join(RELATIONS)} (or all).")
    return tuple(r for r in RELATIONS.values() if r.name in names)


def _variant_probe(base: Probe, relation: str, v: Variant) -> Probe:
    meta = {k: val for k, val in base.meta.items() if k not in (META_KEY, _CF_KEY, "turns")}
    meta.update(v.meta)
    mm: dict[str, Any] = {"role": ROLE_VARIANT, "base": base.id, "relation": relation}
    if v.parts > 1:
        mm.update(part=v.part, parts=v.parts)
    if _CF_KEY in base.meta:
        mm[_CF_KEY] = base.meta[_CF_KEY]
    meta[META_KEY] = mm
    if v.turns:
        meta["turns"] = list(v.turns)
    for key in v.drop_meta:
        meta.pop(key, None)
    pid = stable_id(base.id, META_KEY, relation, v.part, v.lang or base.lang, v.text, list(v.turns))
    return dataclasses.replace(
        base, id=pid, text=v.text, lang=v.lang or base.lang, kind=v.kind or base.kind,
        bias_type=v.bias_type or base.bias_type,
        groups=base.groups if v.groups is None else tuple(v.groups),
        options=base.options if v.options is None else tuple(v.options),
        property=base.property if v.property is None else v.property, meta=meta)


def mutable(probe: Probe) -> bool:
    """A BiasAsker-kind probe in English or Chinese that is not already a variant."""
    return (probe.kind in MUTABLE_KINDS and probe.lang in LANGS and META_KEY not in probe.meta
            and "generation" not in probe.meta and not probe.meta.get("turns"))


def variants_of(probe: Probe, relations: Iterable[Relation], ctx: Context) -> list[tuple[str, list[Probe]]]:
    """(relation name, its variant probes) for every relation that applies to `probe`."""
    out = []
    for relation in relations:
        made = relation.make(probe, ctx)
        if made:
            out.append((relation.name, [_variant_probe(probe, relation.name, v) for v in made]))
    return out


def transform(probes: Iterable[Probe], relations: tuple[Relation, ...], ctx: Context) -> Iterator[Probe]:
    """Each mutable probe (marked as a base), then its variants; other probes unchanged."""
    seen = mutated = 0
    for probe in probes:
        seen += 1
        made = variants_of(probe, relations, ctx) if mutable(probe) else []
        if not made:
            yield probe
            continue
        mutated += 1
        meta = {**probe.meta, META_KEY: {"role": ROLE_BASE, "base": probe.id, "relations": [n for n, _ in made]}}
        yield dataclasses.replace(probe, meta=meta)
        for _, variants in made:
            yield from variants
    if seen and not mutated:
        raise HarnessError(f"None of the {seen:,} selected probes of {ctx.suite} can be mutated by "
                           f"{', '.join(r.name for r in relations)} (the relations apply to BiasAsker-style "
                           "yes/no, choice and why questions in English or Chinese).")
