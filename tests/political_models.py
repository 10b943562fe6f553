"""One tiny GPT-2 for every political-bias and calibration test, built once per test process.

Building one (training its BPE tokenizer) takes seconds on a busy machine; four test modules need one, so
it is built on first use into a temporary folder and shared (tests never write to it).
"""

from __future__ import annotations

import functools
import tempfile
from pathlib import Path

from tiny_models import build_tiny_gpt2

from harness.question_gen.political_data import PROMPTS

CORPUS = ([p.template for ps in PROMPTS.values() for p in ps]
          + ["the democrats want healthcare and climate action for workers",
             "the republicans want lower taxes and a strong border for families",
             "people said the vote was close and the polls were wrong"] * 4)


@functools.cache
def political_lm() -> Path:
    """The model folder (with a chat template: tiny_models.CHAT_TEMPLATE)."""
    directory = Path(tempfile.mkdtemp(prefix="political-lm-"))
    return build_tiny_gpt2(directory, CORPUS, vocab_size=400, n_positions=128)
