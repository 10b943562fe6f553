"""Training batches for debiasing: token ids, the LM labels, and where the specification's words are.

One line is one training example (upstream's `--line_by_line`), cut to `block_size` tokens (36 in the
paper). A start token is prepended (BOS, else EOS, as harness.whitebox.perplexity scores), so the first
real token is predicted and trained like the others. Padding is on the right and masked out of every loss (labels -100).

Each example also carries what the bias terms need, found on the text and mapped to tokens through the
fast tokenizer's character offsets (so any tokenizer works, and a word split into pieces is found):
  * the target pairs it mentions (LMD counts those, as upstream's `per_sent_targets`);
  * the occurrences of negative attribute terms, as token positions (ADD and HD look at those).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from harness.core.errors import ConfigError
from harness.whitebox.debias.losses import Occurrences
from harness.whitebox.perplexity import prefix_token_id


@dataclass
class Batch:
    input_ids: Tensor
    attention_mask: Tensor
    labels: Tensor
    pair_mask: Tensor  # [B, P] bool
    occurrences: Occurrences

    def to(self, device: torch.device | str, **_: object) -> Batch:  # accelerate passes non_blocking
        occ = Occurrences(self.occurrences.batch.to(device), self.occurrences.weights.to(device))
        return Batch(self.input_ids.to(device), self.attention_mask.to(device), self.labels.to(device),
                     self.pair_mask.to(device), occ)


def _pattern(term: str) -> re.Pattern[str]:
    """A term's pattern: a Latin-script term only as a whole word (`he` is not in `she`), CJK anywhere."""
    body = re.escape(term.lower())
    return re.compile(rf"(?<![a-z0-9]){body}(?![a-z0-9])" if term.isascii() else body)


def find_spans(text: str, terms: Sequence[str]) -> list[tuple[int, int]]:
    """Character spans of the terms in a text: case-insensitive, longest first, no overlaps."""
    low = text.lower()
    spans: list[tuple[int, int]] = []
    taken = [False] * len(text)
    for term in sorted({t.lower() for t in terms if t}, key=len, reverse=True):
        for m in _pattern(term).finditer(low):
            if not any(taken[m.start() : m.end()]):
                spans.append((m.start(), m.end()))
                taken[m.start() : m.end()] = [True] * (m.end() - m.start())
    return sorted(spans)


def mentions(text: str, term: str) -> bool:
    return _pattern(term).search(text.lower()) is not None


class Collator:
    """Turn a list of sentences into a Batch for one model's tokenizer."""

    def __init__(self, tokenizer, target_pairs: Sequence[tuple[str, str]], attributes: Sequence[str],
                 block_size: int = 36) -> None:
        if not getattr(tokenizer, "is_fast", False):
            raise ConfigError("Debiasing needs a fast (Rust) tokenizer, for the character offsets of words.")
        self.tokenizer = tokenizer
        self.pairs = [(a.lower(), b.lower()) for a, b in target_pairs]
        self.attributes = list(attributes)
        self.block_size = block_size
        self.bos = prefix_token_id(tokenizer)  # BOS, else EOS: as the perplexity scorer does

    def encode(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        enc = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets = list(enc["input_ids"]), [tuple(o) for o in enc["offset_mapping"]]
        if self.bos is not None:
            ids, offsets = [self.bos, *ids], [(0, 0), *offsets]
        return ids[: self.block_size], offsets[: self.block_size]

    def __call__(self, texts: Sequence[str]) -> Batch:
        encoded = [self.encode(t) for t in texts]
        width = max(len(ids) for ids, _ in encoded)
        input_ids = torch.zeros(len(texts), width, dtype=torch.long)
        attention = torch.zeros(len(texts), width, dtype=torch.long)
        occ_batch: list[int] = []
        occ_rows: list[Tensor] = []
        for b, (text, (ids, offsets)) in enumerate(zip(texts, encoded, strict=True)):
            input_ids[b, : len(ids)] = torch.tensor(ids)
            attention[b, : len(ids)] = 1
            for start, end in find_spans(text, self.attributes):
                hit = [i for i, (s, e) in enumerate(offsets) if e > s and s < end and e > start]
                if hit:  # an occurrence cut off by block_size has no token left: skipped
                    row = torch.zeros(width)
                    row[hit] = 1.0 / len(hit)
                    occ_batch.append(b)
                    occ_rows.append(row)
        labels = input_ids.masked_fill(attention == 0, -100)
        pair_mask = torch.tensor([[mentions(s, a) or mentions(s, b) for a, b in self.pairs] for s in texts],
                                 dtype=torch.bool)
        occ = Occurrences(torch.tensor(occ_batch, dtype=torch.long),
                          torch.stack(occ_rows) if occ_rows else torch.zeros(0, width))
        return Batch(input_ids, attention, labels, pair_mask.reshape(len(texts), len(self.pairs)), occ)
