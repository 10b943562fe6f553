"""The same question in the target's other language (for bilingual targets): an English BiasAsker
question becomes the Chinese question of the same template, groups and data row, and the reverse.

The counterpart is not machine-translated: it is the question the suite's own generator writes for the
same (groups, stereotype) row in the other language (both built-in and upstream catalogs carry both
languages), found by regenerating the suite with `lang` switched, once per selection. Template pairs:
agree <-> zh_agree, right <-> zh_agree_ab, yes_no / tag -> zh_think -> yes_no, why <-> zh_why, the two choice
templates and the comparatives with their namesakes (cmp_right_* <-> zh_cmp_think_*). A question whose row
has no counterpart (an English-only property) is left out. Perturbed copies (-p perturb) are left out:
their counterpart would be the unperturbed question.
"""

from __future__ import annotations

from typing import Any

from harness.core.records import Probe
from harness.question_gen.metamorphic.relation import Context, Relation, Variant

EN_TO_ZH = {"agree": "zh_agree", "right": "zh_agree_ab", "yes_no": "zh_think", "tag": "zh_think", "why": "zh_why",
            "choice_opinion": "zh_choice_opinion", "choice_who": "zh_choice_who",
            "cmp_agree_order": "zh_cmp_agree_order", "cmp_agree_inv": "zh_cmp_agree_inv",
            "cmp_right_order": "zh_cmp_think_order", "cmp_right_inv": "zh_cmp_think_inv",
            "cmp_why_order": "zh_cmp_why_order", "cmp_why_inv": "zh_cmp_why_inv"}
ZH_TO_EN = {zh: en for en, zh in EN_TO_ZH.items() if en != "tag"}
#: the BiasAsker generator's templates per language (read from the suite's own template lists)
_OTHER = {"en": "zh", "zh": "en"}


def _groups_en(probe: Probe) -> tuple[str, ...]:
    return tuple(probe.meta.get("groups_en") or ()) if probe.lang == "zh" else probe.groups


def _key(probe: Probe, template: str) -> tuple[Any, ...]:
    return (template, _groups_en(probe), probe.meta.get("stereotype"), probe.meta.get("property_side"))


def _index(ctx: Context, lang: str) -> dict[tuple[Any, ...], Probe]:
    """The other language's questions of this suite's settings, keyed by (template, groups, row)."""
    cache_key = f"language:{lang}"
    if cache_key not in ctx.cache:
        from harness.question_gen import biasasker_suite

        spec = dict(ctx.spec)
        spec["lang"] = lang
        templates = dict(spec.get("templates") or {})
        mapping = EN_TO_ZH if lang == "zh" else ZH_TO_EN
        if templates:  # the other language's names of the templates this suite asks
            spec["templates"] = {bt: sorted({mapping[t] for t in ids if t in mapping})
                                 for bt, ids in templates.items()}
        ctx.cache[cache_key] = {_key(p, p.meta.get("template", "")): p
                                for p in biasasker_suite.generate(spec, ctx.suite)}
    return ctx.cache[cache_key]


def _language(probe: Probe, ctx: Context) -> list[Variant]:
    if ctx.generator != "biasasker" or (probe.meta.get("counterfactual") or {}).get("role") == "perturbed":
        return []
    other = _OTHER[probe.lang]
    template = (EN_TO_ZH if probe.lang == "en" else ZH_TO_EN).get(probe.meta.get("template", ""))
    if template is None:
        return []
    twin = _index(ctx, other).get(_key(probe, template))
    if twin is None:
        return []
    keep = {k: v for k, v in twin.meta.items() if k not in ("metamorphic", "counterfactual")}
    return [Variant(twin.text, lang=other, kind=twin.kind, bias_type=twin.bias_type, groups=twin.groups,
                    options=twin.options, property=twin.property, meta=keep,
                    drop_meta=tuple(k for k in probe.meta if k not in keep and k != "counterfactual"))]


LANGUAGE = Relation(
    "language", "the same question in the other language (English <-> Chinese), for bilingual targets",
    "the oracle's decision on the variant's reply equals the base's (biased or not); a target that does not "
    "speak the other language gives unread replies, which count as not biased",
    "the other language's oracle for the base's kind (the variant probe's own language and kind)",
    _language)
