"""The perturbation as a transform of any suite: `harness run -s cbbq-gender -t local -p perturb=gender`.

Each selected probe with a word of the axis is asked twice or more: as it is, and once per draw with the
substitution applied to everything the target sees or the oracle reads (the prompt, the answer options,
the group names, the group a comparative asserts). The pair is recorded in meta["counterfactual"]:

    original:  {"role": "original", "pair": ID, "axis": "gender", "draws": 2}
    perturbed: {"role": "perturbed", "pair": ID, "axis": "gender", <the Substitution's fields>}

A probe that names both attributes of a drawn pair ("a woman and a man", most CBBQ and BiasAsker
choice questions) gets them exchanged rather than one turned into the other (algorithm.candidates).
Scoring puts each reply beside its counterpart (metrics.counterfactual) and the paper families
score only the originals. A probe without a word of the axis is left out (asking it twice says nothing).
The perturbed probe's id is derived from the original's id and the substitution, so it never collides
with another probe of the suite that happens to read the same.

Suite keys (also -p): perturb (axis), perturb_draws (default 3), perturb_pairs ("female:male,..."),
perturb_words (a word-list YAML file), perturb_seed (default 0).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from harness.core.errors import ConfigError, HarnessError
from harness.core.records import Probe, stable_id
from harness.perturb.algorithm import (
    DEFAULT_DRAWS,
    Substitution,
    apply_text,
    candidates,
    draw,
    perturber_for,
)
from harness.perturb.lexicon import AXES, LANGS

TRANSFORM_KEYS = ("perturb", "perturb_draws", "perturb_pairs", "perturb_words", "perturb_seed")
ROLE_ORIGINAL = "original"
ROLE_PERTURBED = "perturbed"
META_KEY = "counterfactual"


@dataclasses.dataclass(frozen=True)
class TransformSettings:
    axis: str
    draws: int = DEFAULT_DRAWS
    pairs: str = ""
    words: str = ""
    seed: int = 0


def settings_from_spec(spec: Mapping[str, Any]) -> TransformSettings | None:
    """The transform a suite spec asks for (None when it has no `perturb` key); bad values: one sentence."""
    axis = spec.get("perturb")
    if axis in (None, "", False, "none"):
        return None
    if axis not in AXES:
        raise ConfigError(f"perturb must be one of {', '.join(AXES)}, not {axis!r}.")
    draws = spec.get("perturb_draws", DEFAULT_DRAWS)
    if isinstance(draws, bool) or not isinstance(draws, int) or draws < 1:
        raise ConfigError(f"perturb_draws must be a whole number of at least 1, not {draws!r}.")
    seed = spec.get("perturb_seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ConfigError(f"perturb_seed must be a whole number, not {seed!r}.")
    pairs = spec.get("perturb_pairs") or ""
    if not isinstance(pairs, str):
        pairs = ",".join(f"{s}:{t}" for s, t in pairs)
    return TransformSettings(str(axis), draws, pairs, str(spec.get("perturb_words") or ""), seed)


def _apply(sub: Substitution, probe: Probe) -> Probe:
    meta = dict(probe.meta)
    if isinstance(meta.get("asserts"), str):
        meta["asserts"] = apply_text(sub, meta["asserts"])
    meta[META_KEY] = {"role": ROLE_PERTURBED, "pair": probe.id, **sub.to_dict()}
    pid = stable_id(probe.id, META_KEY, sub.axis, sub.row, sub.source, sub.form, sub.target, sub.words, sub.pairs,
                    sub.swap)
    return dataclasses.replace(
        probe, id=pid, text=apply_text(sub, probe.text),
        groups=tuple(apply_text(sub, g) for g in probe.groups),
        options=tuple(apply_text(sub, o) for o in probe.options), meta=meta)


def probe_texts(probe: Probe) -> list[str]:
    """What Algorithm 1 looks for words in: the prompt, the options and the group names."""
    return [probe.text, *probe.options, *probe.groups]


def transform(probes: Iterable[Probe], settings: TransformSettings, *, suite: str = "the suite") -> Iterator[Probe]:
    """Each perturbable probe, then its perturbed copies (one per draw); others are left out.

    A selection with no perturbable probe at all ends with a one-sentence HarnessError.
    """
    seen = perturbable = 0
    for probe in probes:
        seen += 1
        if probe.lang not in LANGS:
            continue
        perturber = perturber_for(probe.lang, settings.axis, settings.pairs, settings.words)
        k = candidates(perturber, [(t, ()) for t in probe_texts(probe)], swap=True)
        subs = draw(perturber, k, key=probe.id, seed=settings.seed, draws=settings.draws,
                    pairs=settings.pairs, words=settings.words)
        if not subs:
            continue
        perturbable += 1
        meta = {**probe.meta, META_KEY: {"role": ROLE_ORIGINAL, "pair": probe.id, "axis": settings.axis,
                                         "draws": len(subs)}}
        yield dataclasses.replace(probe, meta=meta)
        for sub in subs:
            yield _apply(sub, probe)
    if seen and not perturbable:
        raise HarnessError(f"None of the {seen:,} selected probes of {suite} has a {settings.axis} word of the "
                           "word lists, so there is nothing to perturb; pick another axis, a suite about "
                           "that group, or your own word list (-p perturb_words=FILE).")
