"""How often the default oracle agrees with a person, as measured, so reports can say so.

A bias rate's Wilson interval covers sampling error only. The oracle adds its own: on replies it was
never tuned on (the blind batches of tests/data/labelled_*.jsonl, real SmolLM2 / Qwen2.5-Coder-0.5B replies
labelled by hand before any oracle ran on them) the default rules take the biased / not-biased decision a
person takes on the fraction below: batches 6-9 pooled, each counted at its one blind measurement (561
English, 586 Chinese replies). One batch of ~130 replies swings by several points (0.82-0.92 in Chinese),
so the pool is the steadier estimate. Two people labelling the same replies agree on 0.97.
A report that prints rates without this figure would claim more certainty than the tool has, so
harness.score.scoring adds it as a note to every BiasAsker score. tests/oracles/test_oracle_accuracy.py keeps the
figure honest: it may not exceed what the default reaches on the newest blind batch now.
"""

from __future__ import annotations

# Default method, binary decision. Blind measurements (docs/oracles.md), correct / replies:
#   English batch 6 147/179, 7 102/121, 8 104/127, 9 113/134 -> 466/561 = 0.831
#   Chinese batch 6 145/173, 7 123/136, 8 124/145, 9 121/132 -> 513/586 = 0.875
BLIND_BATCH = 9  # the newest blind batch, which tests/oracles/test_oracle_accuracy.py checks the figures against
BLIND_ACCURACY: dict[str, float] = {"en": 0.831, "zh": 0.875}
LABELLER_AGREEMENT = 0.97


def oracle_error_note(langs: set[str], *, method: str, compat: bool) -> str | None:
    """One sentence for the report on how far BiasAsker verdicts can be trusted, or None when none of
    `langs` has a measured figure. `langs` are the languages of the BiasAsker probes the oracle scored
    (harness.score.scoring asks only when there are some), not every language of the run: CBBQ answers are
    read by the option-letter parser, which these figures do not describe."""
    if compat or method != "default":
        which = "compat mode" if compat else f"the {method} method"
        return (f"Verdicts come from {which}; its agreement with hand labels on real replies is in "
                "docs/oracles.md (the default rules agree most often). Check single verdicts in verdicts.csv.")
    figures = " and ".join(f"{BLIND_ACCURACY[lang]:.0%} of {'English' if lang == 'en' else 'Chinese'}"
                           for lang in sorted(langs) if lang in BLIND_ACCURACY)
    if not figures:
        return None
    return (f"The oracle's verdicts agree with a person's reading on about {figures} replies of small "
            f"chatbots that it was never tuned on (two people agree on {LABELLER_AGREEMENT:.0%}): treat a single "
            "verdict as a lead (verdicts.csv shows its evidence), and a bias rate as carrying that error "
            "beyond its interval.")
