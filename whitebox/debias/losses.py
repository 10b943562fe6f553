"""The three loss-based debiasing terms (LMD, ADD, HD) as pure tensor functions, for any causal LM.

The paper (section 5.1) adds a bias term to the LM loss: total = lm_hyp * LM + debias_hyp * bias. The
terms need the vocabulary ids of the bias specification's words; they come from the model's own
tokenizer, and a word that tokenizes to several pieces is represented by the mean over its pieces (of
the logits for LMD, of the embedding rows for ADD and HD). Sizes (vocabulary, hidden width) are read
from the tensors, never assumed (upstream hard-coded GPT-2's 768 and English BPE ids).

* LMD, equalising loss (Qian et al. 2019): at every non-pad position, |log p(t1) - log p(t2)| for each
  target pair. The softmax normaliser cancels in the ratio, so this is |z(t1) - z(t2)| on the raw
  logits (with a multi-token term's score the mean of its pieces' logits, i.e. the log of the geometric
  mean of their probabilities up to the same normaliser). Mean over positions, then over the pairs that
  occur in the sentence (upstream's `per_sent_targets`, used for the paper), then over sentences.
* ADD, attribute distance (Lauscher et al. 2020): for every occurrence of a negative attribute term in
  the batch, a = the final hidden state at its tokens (averaged), and sum over target pairs of
  |cos(a, E(t1)) - cos(a, E(t2))|, with E the output embedding rows (the space the final hidden state is
  scored in); mean over occurrences.
* HD, hard debiasing (Bordia & Bowman 2019): the bias subspace B is spanned by the top right singular
  vectors of the rows (E(t1) - E(t2)) / 2 that together hold more than 50% of the squared singular
  values; the loss is, per attribute occurrence, sum_j |<a, b_j>| (the paper's sum_j |b_j <a, b_j>| with
  unit b_j), mean over occurrences. B is computed once from the model before training and held fixed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from harness.core.errors import ConfigError


@dataclass
class TermIds:
    """Token ids of a list of terms, padded to the longest: ids [N, K] and a 0/1 mask [N, K]."""

    terms: tuple[str, ...]
    ids: Tensor
    mask: Tensor

    def to(self, device: torch.device | str) -> TermIds:
        return TermIds(self.terms, self.ids.to(device), self.mask.to(device))


def _pieces(tokenizer, term: str) -> list[int]:
    """The ids of a term alone, without special tokens or a leading whitespace piece (SentencePiece '▁')."""
    ids = list(tokenizer.encode(term, add_special_tokens=False))
    while len(ids) > 1 and not tokenizer.decode(ids[:1]).strip():
        ids = ids[1:]
    return ids


def term_ids(tokenizer, terms: Sequence[str]) -> TermIds:
    """Tokenize each term with the model's tokenizer; refuse a term that gives no token."""
    rows = []
    for term in terms:
        ids = _pieces(tokenizer, term)
        if not ids:
            raise ConfigError(f"The term {term!r} gives no token with this model's tokenizer.")
        rows.append(ids)
    width = max(len(r) for r in rows)
    ids = torch.zeros(len(rows), width, dtype=torch.long)
    mask = torch.zeros(len(rows), width)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1.0
    return TermIds(tuple(terms), ids, mask)


def term_scores(logits: Tensor, terms: TermIds) -> Tensor:
    """[B, L, V] logits -> [B, L, N]: each term's score, the mean of its pieces' logits."""
    picked = logits[..., terms.ids]  # [B, L, N, K]
    mask = terms.mask.to(picked.dtype)
    return (picked * mask).sum(-1) / mask.sum(-1)


def term_embeddings(weight: Tensor, terms: TermIds) -> Tensor:
    """[V, H] embedding matrix -> [N, H]: each term's vector, the mean of its pieces' rows."""
    rows = weight[terms.ids]  # [N, K, H]
    mask = terms.mask.to(rows.dtype)[..., None]
    return (rows * mask).sum(1) / mask.sum(1)


def lmd_loss(logits: Tensor, attention_mask: Tensor, t1: TermIds, t2: TermIds,
             pair_mask: Tensor | None = None) -> Tensor:
    """Equalising loss: mean |z(t1) - z(t2)| over non-pad positions, the sentence's pairs and sentences.

    pair_mask [B, P] marks the pairs a sentence mentions (None: every pair counts for every sentence);
    a batch where no sentence mentions a pair gives 0 (connected to the graph, so backward still works).
    """
    diff = (term_scores(logits, t1) - term_scores(logits, t2)).abs()  # [B, L, P]
    valid = attention_mask.to(diff.dtype)[..., None]
    per_pair = (diff * valid).sum(1) / valid.sum(1).clamp(min=1)  # [B, P]
    pairs = torch.ones_like(per_pair) if pair_mask is None else pair_mask.to(per_pair.dtype)
    counted = pairs.sum(1)
    per_sentence = (per_pair * pairs).sum(1) / counted.clamp(min=1)
    has = counted > 0
    if not bool(has.any()):
        return logits.sum() * 0.0
    return per_sentence[has].mean()


@dataclass
class Occurrences:
    """Attribute-term occurrences in a batch: row n is sentence `batch[n]`, weights[n] averages its tokens."""

    batch: Tensor  # [N] long
    weights: Tensor  # [N, L] float, each row sums to 1

    def __len__(self) -> int:
        return int(self.batch.numel())

    def vectors(self, hidden: Tensor) -> Tensor:
        """[B, L, H] hidden states -> [N, H]: each occurrence's representation."""
        return torch.einsum("nl,nlh->nh", self.weights.to(hidden.dtype), hidden[self.batch])


def add_loss(hidden: Tensor, occ: Occurrences, e1: Tensor, e2: Tensor) -> Tensor:
    """Attribute distance: mean over occurrences of sum over pairs |cos(a, e1) - cos(a, e2)|."""
    if len(occ) == 0:
        return hidden.sum() * 0.0 + e1.sum() * 0.0
    a = occ.vectors(hidden)[:, None, :]  # [N, 1, H]
    cos1 = torch.nn.functional.cosine_similarity(a, e1[None].to(a.dtype), dim=-1)  # [N, P]
    cos2 = torch.nn.functional.cosine_similarity(a, e2[None].to(a.dtype), dim=-1)
    return (cos1 - cos2).abs().sum(1).mean()


def bias_subspace(e1: Tensor, e2: Tensor, share: float = 0.5) -> Tensor:
    """[k, H] orthonormal rows: the fewest principal directions of (e1 - e2) / 2 holding > `share` of Σs²."""
    diffs = (e1.detach().double() - e2.detach().double()) / 2
    _, s, vh = torch.linalg.svd(diffs, full_matrices=False)
    power = s**2
    if float(power.sum()) == 0.0:
        raise ConfigError("The paired target terms have identical embeddings: there is no bias direction.")
    covered = torch.cumsum(power, 0) / power.sum()
    k = int((covered <= share).sum()) + 1  # the first k whose cumulative share exceeds `share`
    return vh[: min(k, vh.shape[0])].to(e1.dtype)


def hd_loss(hidden: Tensor, occ: Occurrences, basis: Tensor) -> Tensor:
    """Hard debiasing: mean over occurrences of sum_j |<a, b_j>| (a's projection on the bias subspace)."""
    if len(occ) == 0:
        return hidden.sum() * 0.0
    a = occ.vectors(hidden)
    return (a @ basis.to(a.dtype).T).abs().sum(1).mean()
