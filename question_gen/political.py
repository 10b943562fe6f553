"""The political-bias suite generator (``generator: political`` in a suite YAML): one probe per generation.

Liu et al. (AAAI 2021) prompt a language model with writing prompts about a keyword of an option of an
attribute ("About voting, [Jake] has decided to") and read how far the continuations lean; every
(keyword, prompt, sample) is one probe here, so each generation is one transcript line: a run resumes
sample by sample, an error is kept apart and asked again, and the report reads them like any other run.

Spec keys:
``attribute``            gender | location | topic (required; the paper's three, appendix A)
``options``              the options to ask (default: all of the attribute's), e.g. [male, female]
``keywords_per_option``  the first N keywords of each option, in the paper's order (default: all)
``leanings``             prompt groups to ask: indirect, liberal, conservative (default: all three)
``samples``              generations per (keyword, prompt) (default 2; the paper: 10)
``max_new_tokens``       length of each generation (default 40; the paper: 100)
``temperature``, ``top_k``, ``top_p``  sampling (default 1.0, 50, none: transformers' GPT-2 defaults,
                         which the paper used)
``style``                auto (default): base models continue the text, chat models get a one-line
                         instruction to continue it; ``continue`` / ``instruct`` force one way
``instruction``          the one line a chat model gets before the text
``seed``                 varies every sample's seed (default 0)

Probe fields: kind ``continuation``; bias_type ``indirect`` or ``direct``; attribute; groups = (option,);
text = the filled writing prompt; meta: option, keyword, leaning (indirect / liberal / conservative),
prompt_number (the paper's 1-10), sample, prompt, generation (harness.core.generation), template.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from harness.core.errors import ConfigError
from harness.core.generation import DEFAULT_INSTRUCTION, META_KEY, STYLES, GenerationRequest
from harness.core.records import Probe, stable_id
from harness.question_gen.political_data import INDIRECT, KEYWORDS, PROMPTS, fill

#: the kind these probes are (declared by metrics/political.py; the name is the contract between the two)
KIND = "political"
LEANINGS = ("indirect", "liberal", "conservative")
DEFAULTS: dict[str, Any] = {"samples": 2, "max_new_tokens": 40, "temperature": 1.0, "top_k": 50, "top_p": None,
                            "style": "auto", "instruction": DEFAULT_INSTRUCTION, "seed": 0}
SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "attribute", "options", "keywords_per_option",
                       "leanings", *DEFAULTS})


def _names(raw: Any, known: tuple[str, ...] | list[str], what: str) -> list[str]:
    if raw in (None, "all", ["all"]):
        return list(known)
    names = [n.strip() for n in raw.split(",")] if isinstance(raw, str) else [str(n) for n in raw]
    bad = [n for n in names if n not in known]
    if bad or not names:
        raise ConfigError(f"Unknown {what} {', '.join(map(repr, bad)) or repr(raw)}; known: {', '.join(known)}.")
    return [n for n in known if n in names]


def _int(spec: Mapping[str, Any], key: str, *, minimum: int, default: Any) -> Any:
    raw = spec.get(key, default)
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < minimum:
        raise ConfigError(f"Political suite option {key} must be a whole number of at least {minimum}, not {raw!r}.")
    return raw


def _float(spec: Mapping[str, Any], key: str, *, low: float, high: float | None) -> float | None:
    raw = spec.get(key, DEFAULTS[key])
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float) or raw < low or (high is not None and raw > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ConfigError(f"Political suite option {key} must be a number {bound}, not {raw!r}.")
    return float(raw)


def settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The validated spec (unknown keys, attributes, options and values are one-sentence ConfigErrors)."""
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ConfigError(f"Unknown political suite option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; known: "
                          f"{', '.join(sorted(SPEC_KEYS - {'name', 'generator', 'lang', 'description'}))}.")
    attribute = spec.get("attribute")
    if attribute not in KEYWORDS:
        raise ConfigError(f"Unknown political attribute {attribute!r}; known: {', '.join(KEYWORDS)}.")
    style = str(spec.get("style", DEFAULTS["style"]))
    if style not in STYLES:
        raise ConfigError(f"Political suite option style must be one of {', '.join(STYLES)}, not {style!r}.")
    top_k = _int(spec, "top_k", minimum=1, default=DEFAULTS["top_k"])
    return {
        "attribute": attribute,
        "options": _names(spec.get("options"), tuple(KEYWORDS[attribute]), f"{attribute} option"),
        "keywords_per_option": _int(spec, "keywords_per_option", minimum=1, default=None),
        "leanings": _names(spec.get("leanings"), LEANINGS, "prompt leaning"),
        "samples": _int(spec, "samples", minimum=1, default=DEFAULTS["samples"]),
        "max_new_tokens": _int(spec, "max_new_tokens", minimum=1, default=DEFAULTS["max_new_tokens"]),
        "temperature": _float(spec, "temperature", low=0.0, high=None),
        "top_k": top_k,
        "top_p": _float(spec, "top_p", low=0.0, high=1.0),
        "style": style,
        "instruction": str(spec.get("instruction", DEFAULTS["instruction"])),
        "seed": _int(spec, "seed", minimum=0, default=0),
    }


def _keywords(s: Mapping[str, Any], option: str) -> tuple[str, ...]:
    words = KEYWORDS[s["attribute"]][option]
    return words[: s["keywords_per_option"]] if s["keywords_per_option"] else words


def _prompts(s: Mapping[str, Any]) -> list[Any]:
    return [p for p in PROMPTS[s["attribute"]] if p.leaning in s["leanings"]]


def generate(spec: Mapping[str, Any], suite_name: str) -> Iterator[Probe]:
    """Option by option, keyword by keyword, prompt by prompt, sample by sample (the paper's order)."""
    s = settings(spec)
    attribute = s["attribute"]
    for option in s["options"]:
        for keyword in _keywords(s, option):
            for prompt in _prompts(s):
                text = fill(prompt, keyword, option)
                for sample in range(s["samples"]):
                    seed = int(stable_id("political-sample", s["seed"], attribute, keyword, prompt.number,
                                         sample)[:8], 16)
                    request = GenerationRequest(text=text, max_new_tokens=s["max_new_tokens"],
                                                temperature=s["temperature"], top_k=s["top_k"], top_p=s["top_p"],
                                                seed=seed, style=s["style"], instruction=s["instruction"])
                    meta = {"option": option, "keyword": keyword, "leaning": prompt.leaning,
                            "prompt_number": prompt.number, "sample": sample, "prompt": text,
                            META_KEY: request.settings(),
                            "template": f"political/{attribute}/{option}/{keyword}/{prompt.number}/{sample}"}
                    yield Probe.make(suite_name, "en", KIND,
                                     "indirect" if prompt.leaning == INDIRECT else "direct", text,
                                     groups=(option,), attribute=attribute, categories=(option,), meta=meta)


def count(spec: Mapping[str, Any]) -> int:
    """Number of probes `generate` yields (arithmetic, nothing generated)."""
    s = settings(spec)
    keywords = sum(len(_keywords(s, o)) for o in s["options"])
    return keywords * len(_prompts(s)) * s["samples"]


def count_by_type(spec: Mapping[str, Any]) -> dict[str, int]:
    """Generations per prompt group, for `harness suites`."""
    return {leaning: count({**spec, "leanings": [leaning]}) for leaning in settings(spec)["leanings"]}
