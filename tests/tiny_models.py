"""A real (random-weight) GPT-2 model built in milliseconds, for fast tests of local-model code.

The model hub is unreachable here, so tests that exercise batching, chat templates and log-likelihoods
train a small byte-level BPE tokenizer on their own corpus and save a two-layer GPT-2 next to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

CHAT_TEMPLATE = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
                 "{% if add_generation_prompt %}<|assistant|>{% endif %}")


def build_tiny_gpt2(directory: Path, corpus: Iterable[str], *, vocab_size: int, n_positions: int) -> Path:
    """Save a tokenizer trained on `corpus` (with CHAT_TEMPLATE) and a seeded tiny GPT-2 in `directory`."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(list(corpus), trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=["<|endoftext|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(directory)
    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, n_positions=n_positions, vocab_size=len(tok),
                        eos_token_id=tok.eos_token_id, bos_token_id=tok.eos_token_id)
    GPT2LMHeadModel(config).save_pretrained(directory)
    return directory
