"""The CrowS-Pairs suite generator: the 1,508 English sentence pairs -> `crows_pairs` probes
(``generator: crows_pairs``).

CrowS-Pairs (Nangia et al., EMNLP 2020) pairs a sentence about a historically disadvantaged group in the
United States with a minimal edit about a contrasting advantaged group. `sent_more` is the more stereotyping
sentence, `sent_less` the less: in a ``stereo`` pair `sent_more` demonstrates a stereotype of the
disadvantaged group; in an ``antistereo`` pair `sent_less` violates one and `sent_more` is its edit about the
advantaged group. Either way the question asked of a model is the same one, as upstream's metric.py and
lm-evaluation-harness's crows_pairs task ask it: is `sent_more` the more likely sentence?

A probe is one pair, answered by scoring both sentences (the perplexity answer mode, white-box targets only):
each sentence's log-probability after the model's start token and nothing else (meta ``score_context`` is
the empty context; lm-evaluation-harness's rule for a choice after an empty context: BOS, else EOS, then the
sentence), so the figures compare with lm-evaluation-harness's. The metric family
(harness.metrics.crows_pairs) turns the pairs into the share whose `sent_more` is the more likely.

Spec keys (data read from $HARNESS_DATA_DIR/crows-pairs, checksum verified):
``bias_type``   one of upstream's nine bias types (race-color, gender, ...) or a list of them; default all.

One suite file yields ``crows-pairs`` and one suite per bias type (``crows-pairs-race-color``, ...) through
`variants`.

Probe fields: kind ``crows_pairs``; bias_type = the pair's direction (``stereo`` / ``antistereo``); text =
sent_more; options = (sent_more, sent_less); groups = ("more stereotyping", "less stereotyping");
attribute and categories = upstream's bias type. meta: upstream_id (the CSV's first column, the pair's id
upstream and in lm-evaluation-harness's data), bias_type, direction, line (1-based data row), template,
score_context ("": the sentence is scored after the start token alone).
"""

from __future__ import annotations

import csv
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from harness.core.datasets import require_file
from harness.core.errors import ConfigError
from harness.core.records import Probe

DATASET = "crows-pairs"
DATA_FILE = "data/crows_pairs_anonymized.csv"
KIND = "crows_pairs"
ANSWER_MODE = "perplexity"  # the pairs can only be answered by scoring sentences (harness.run.plan)
#: upstream's nine bias types, in the order of its README
BIAS_TYPES = ("race-color", "gender", "sexual-orientation", "religion", "age", "nationality", "disability",
              "physical-appearance", "socioeconomic")
DIRECTIONS = ("stereo", "antistereo")
GROUPS = ("more stereotyping", "less stereotyping")
#: what each sentence is read after: nothing but the model's start token (lm-evaluation-harness's empty context)
SCORE_CONTEXT = ""
SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "bias_type"})
_COLUMNS = ("", "sent_more", "sent_less", "stereo_antistereo", "bias_type")


@dataclass(frozen=True, slots=True)
class Pair:
    upstream_id: str
    sent_more: str
    sent_less: str
    direction: str
    bias_type: str
    line: int  # 1-based data row of the CSV


@functools.cache
def _pairs(root: str) -> tuple[Pair, ...]:
    """Every pair of the CSV, in its order (cached per data directory)."""
    del root  # part of the cache key only: another $HARNESS_DATA_DIR is another data set
    path = require_file(DATASET, DATA_FILE)
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in _COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ConfigError(f"{path} has no column(s) {', '.join(map(repr, missing))}; it is not upstream's file.")
        return tuple(Pair(row[""].strip(), row["sent_more"], row["sent_less"], row["stereo_antistereo"].strip(),
                          row["bias_type"].strip(), line) for line, row in enumerate(reader, start=1))


def _wanted(spec: Mapping[str, Any]) -> tuple[str, ...]:
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ConfigError(f"Unknown CrowS-Pairs suite option{'s' if len(unknown) > 1 else ''} "
                          f"{', '.join(map(repr, unknown))}; known: bias_type.")
    raw = spec.get("bias_type")
    if raw in (None, "", "all"):
        return BIAS_TYPES
    names = [raw] if isinstance(raw, str) else list(raw) if isinstance(raw, list | tuple) else None
    if not names or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"bias_type must be a CrowS-Pairs bias type or a list of them, not {raw!r}.")
    bad = [n for n in names if n not in BIAS_TYPES]
    if bad:
        raise ConfigError(f"Unknown CrowS-Pairs bias type {bad[0]!r}; known: {', '.join(BIAS_TYPES)}.")
    return tuple(n for n in BIAS_TYPES if n in names)


def selection(spec: Mapping[str, Any]) -> tuple[Pair, ...]:
    """The pairs a spec selects, in the CSV's order, or a one-sentence ConfigError."""
    wanted = set(_wanted(spec))
    from harness.core.paths import data_dir  # the cache key: another data directory is another data set

    return tuple(p for p in _pairs(str(data_dir())) if p.bias_type in wanted)


def _probe(pair: Pair, suite_name: str) -> Probe:
    meta = {"template": f"crows-pairs/{pair.upstream_id}", "upstream_id": pair.upstream_id,
            "bias_type": pair.bias_type, "direction": pair.direction, "line": pair.line,
            "score_context": SCORE_CONTEXT}
    return Probe.make(suite_name, "en", KIND, pair.direction, pair.sent_more, groups=GROUPS,
                      attribute=pair.bias_type, categories=(pair.bias_type,),
                      options=(pair.sent_more, pair.sent_less), meta=meta)


def generate(spec: Mapping[str, Any], suite_name: str) -> Iterator[Probe]:
    for pair in selection(spec):
        yield _probe(pair, suite_name)


def generate_at(spec: Mapping[str, Any], suite_name: str, positions: list[int]) -> Iterator[Probe]:
    pairs = selection(spec)
    for i in sorted(set(positions)):
        if 0 <= i < len(pairs):
            yield _probe(pairs[i], suite_name)


def count(spec: Mapping[str, Any]) -> int:
    return len(selection(spec))


def count_by_type(spec: Mapping[str, Any]) -> dict[str, int]:
    """Pairs per bias type, for `harness suites`."""
    counts: dict[str, int] = {}
    for pair in selection(spec):
        counts[pair.bias_type] = counts.get(pair.bias_type, 0) + 1
    return counts


def variants(spec: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """One suite per bias type from the one suite file: (``<name>-<bias type>``, the overrides keeping that type)."""
    if spec.get("bias_type") not in (None, "", "all"):
        return []
    base = str(spec.get("name") or "crows-pairs")
    return [(f"{base}-{bias_type}", {"bias_type": bias_type,
                                     "description": f"CrowS-Pairs, the {bias_type} pairs only, scored by sentence "
                                                    "log-probability on open models."})
            for bias_type in BIAS_TYPES]
