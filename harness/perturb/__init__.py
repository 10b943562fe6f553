"""Counterfactual demographic perturbation (Su et al. 2023, Algorithm 1), shared by every layer above.

    from harness.perturb import perturber_for, candidates, draw, apply_text
    p = perturber_for("en", "gender")
    subs = draw(p, candidates(p, [(text, ())]), key="dialogue-1", seed=0)
    apply_text(subs[0], "I need a movie for my mom.")   # -> "... for my dad." (or another draw)

Why a layer of its own, between harness.core and the stages: the suite transform (question_gen), the
task-oriented pipeline target (adapters: it perturbs its own API call and database rows) and the
`harness perturb` command all apply the same substitution, and those layers may not import each other.

lexicon.py  word lists (words_en.yaml, words_zh.yaml) and (source, target) pairs
text.py     finding and substituting words in one text (whole words, case kept, one pass, context rules, a/an)
parse.py    what the lists cannot read: her/his by role (spaCy, lazy), a named person (spaCy NER, jieba nr)
algorithm.py  Algorithm 1: K (a person and their pronouns change together, or not), seeded draws, Substitution
dialogues.py  SGD dialogues and plain JSONL turns, perturbed consistently (turns, state, calls, rows)
probes.py   the same perturbation as a transform of any suite's probes (`-p perturb=gender`)
"""

from harness.perturb.algorithm import (
    DEFAULT_DRAWS,
    Substitution,
    apply,
    apply_text,
    apply_value,
    candidates,
    draw,
    mapping,
    perturber_for,
    perturber_of,
)
from harness.perturb.lexicon import AXES, LANGS, Axis, Lexicon, lexicon_axis, load_lexicon, parse_pairs
from harness.perturb.text import Perturber, is_chinese

__all__ = ["AXES", "LANGS", "DEFAULT_DRAWS", "Axis", "Lexicon", "Perturber", "Substitution", "apply",
           "apply_text", "apply_value", "candidates", "draw", "is_chinese", "lexicon_axis", "load_lexicon",
           "mapping", "parse_pairs", "perturber_for", "perturber_of"]
