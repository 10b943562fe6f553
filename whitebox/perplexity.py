"""Per-sentence perplexity for any Hugging Face causal LM, batched, and the same whatever the batch.

CHBias (and RedditBias before it) scores each sentence with exp(mean token negative log-likelihood). The
upstream loop does this one sentence at a time on CPU, without a start token, and records 0 when anything
fails. Here:

* Sentences are scored in batches, sorted by length so a batch holds little padding; each batch is padded on
  the tokenizer's own side, attention-masked, and given explicit position ids, so a left-padded row sees the
  same positions as when it is alone. Pad positions are out of the loss. The result for a sentence does not
  depend on its batch or the batch size (tests: equal to 1e-4 relative at batch sizes 1, 3 and 16, left and
  right padding).
* A start token is prepended so the first real token is scored too: the tokenizer's BOS, or, for
  tokenizers without one (Qwen2.5), its EOS, which is what such models see between documents in
  pre-training (lm-evaluation-harness makes the same choice). `prefix=None` scores as upstream did: no
  start token, the first token is context only. `perplexities_both_ways` gives both, so a CHBias run can
  print the paper's t the harness's way and what upstream's script would print (a second forward pass
  per sentence; the same list twice when the tokenizer has no start token to add).
* A batch is also capped in tokens (`max_batch_tokens`), because the logits of a batch take
  tokens x vocabulary x 4 bytes: 16 sentences of 40 tokens with Qwen's 151,936-word vocabulary is 390 MB.
* A failure is recorded with its sentence (`SentenceScore.error`), never as a number. When a batch fails,
  its sentences are scored one by one so only the culprit is lost.
* Nothing assumes a CPU: inputs go to `model.device`, so a model placed by accelerate (device_map="auto")
  or moved to a GPU works unchanged.

Loading goes through the hf adapter's loader (harness.adapters.hf_local.load_model: a model directory, a
.gguf file through transformers, a Hugging Face hub name, or an hf target such as `local-zh-hf`), so a
model is loaded once per process whoever asks for it.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.errors import ConfigError

DEFAULT_BATCH_SIZE = 16
#: Bytes the logits of one batch may take (x3 for the float32 copy and cross-entropy's work space).
LOGITS_BUDGET_BYTES = 768 * 1024 * 1024
PREFIX_AUTO = "auto"


@dataclass(frozen=True, slots=True)
class SentenceScore:
    """One sentence's perplexity, or why it has none.

    nll is the mean negative log-likelihood per scored token, in nats; perplexity = exp(nll). `tokens` is
    how many tokens were scored (the sentence's tokens, or one fewer without a start token).
    """

    text: str
    perplexity: float | None
    nll: float | None
    tokens: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.perplexity is not None


def prefix_token_id(tokenizer: Any, prefix: str | int | None = PREFIX_AUTO) -> int | None:
    """The token put before every sentence: BOS, else EOS ("auto"); an explicit id; or None (upstream)."""
    if prefix is None or isinstance(prefix, int):
        return prefix
    if prefix != PREFIX_AUTO:
        raise ConfigError(f"prefix must be 'auto', a token id or None, not {prefix!r}.")
    for candidate in (getattr(tokenizer, "bos_token_id", None), getattr(tokenizer, "eos_token_id", None)):
        if isinstance(candidate, int):
            return candidate
    return None


def pad_token_id(tokenizer: Any, *, name: str = "the model") -> int:
    """The id batches are padded with: the pad token, else EOS (pad positions are masked out of everything,
    so which id fills them does not change a result). Neither: a one-sentence ConfigError."""
    for candidate in (getattr(tokenizer, "pad_token_id", None), getattr(tokenizer, "eos_token_id", None)):
        if isinstance(candidate, int):
            return candidate
    raise ConfigError(f"The tokenizer of {name} has neither a pad token nor an end-of-sequence token to pad "
                      "batches with; set pad_token in its tokenizer_config.json, or score with batch_size 1.")


def context_length(model: Any) -> int | None:
    """The longest sequence the model takes (max_position_embeddings / n_positions), if the config says."""
    config = getattr(model, "config", None)
    for key in ("max_position_embeddings", "n_positions", "max_sequence_length", "seq_length"):
        value = getattr(config, key, None)
        if isinstance(value, int) and value > 0:
            return value
    return None


def _vocab_size(model: Any) -> int:
    config = getattr(model, "config", None)
    size = getattr(config, "vocab_size", None) or getattr(getattr(config, "text_config", None), "vocab_size", None)
    return int(size) if size else 50_000


def default_batch_tokens(model: Any) -> int:
    """Padded tokens per batch whose logits fit the budget (float32, three copies): LOGITS_BUDGET_BYTES on a
    CPU (or less when less memory is free), a quarter of the free memory on a GPU (hf_local.free_memory_bytes)."""
    from harness.adapters.hf_local import free_memory_bytes

    free = free_memory_bytes(model)
    on_gpu = getattr(getattr(model, "device", None), "type", "cpu") == "cuda"
    budget = free // 4 if (on_gpu and free) else min(LOGITS_BUDGET_BYTES, free // 4 if free else LOGITS_BUDGET_BYTES)
    return max(64, budget // (_vocab_size(model) * 4 * 3))


def _takes_position_ids(model: Any) -> bool:
    try:
        return "position_ids" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


def encode(tokenizer: Any, sentences: Sequence[str], prefix: int | None) -> list[list[int]]:
    """Token ids of each sentence, with the start token in front when there is one. The tokenizer's own
    special tokens are not added (some add BOS themselves, which would then be doubled)."""
    ids = tokenizer(list(sentences), add_special_tokens=False)["input_ids"]
    return [([prefix] if prefix is not None else []) + list(row) for row in ids]


def _batch_nll(model: Any, rows: list[list[int]], *, pad_id: int, left: bool, positions: bool
               ) -> list[tuple[float, int]]:
    """(summed NLL, scored tokens) of each row, in one forward pass over the padded batch."""
    import torch
    import torch.nn.functional as F  # noqa: N812 - the conventional name

    width = max(len(r) for r in rows)
    ids, mask = [], []
    for r in rows:
        pad = [pad_id] * (width - len(r))
        ids.append(pad + r if left else r + pad)
        fill = [0] * (width - len(r))
        mask.append(fill + [1] * len(r) if left else [1] * len(r) + fill)
    device = getattr(model, "device", None)
    input_ids = torch.tensor(ids, device=device)
    attention = torch.tensor(mask, device=device)
    kwargs: dict[str, Any] = {"input_ids": input_ids, "attention_mask": attention}
    if positions:  # a left-padded row must see positions 0, 1, ... from its first real token, as alone
        kwargs["position_ids"] = (attention.cumsum(-1) - 1).clamp(min=0)
    with torch.inference_mode():
        logits = model(**kwargs).logits
    # The logit at position j predicts token j + 1; a prediction counts when both positions are real.
    targets = torch.full_like(input_ids, -100)
    scored = (attention[:, 1:] * attention[:, :-1]).bool()
    targets[:, :-1] = torch.where(scored, input_ids[:, 1:], torch.full_like(input_ids[:, 1:], -100))
    vocab = logits.shape[-1]
    nll = F.cross_entropy(logits.reshape(-1, vocab).float(), targets.reshape(-1), reduction="none",
                          ignore_index=-100).view(len(rows), width)
    sums = nll.sum(dim=1).double().tolist()
    counts = (targets != -100).sum(dim=1).tolist()
    return [(float(s), int(c)) for s, c in zip(sums, counts, strict=True)]


def _result(text: str, total: float, count: int) -> SentenceScore:
    if count <= 0:
        return SentenceScore(text, None, None, 0, "no token to score")
    mean = total / count
    if not math.isfinite(mean):
        return SentenceScore(text, None, None, count, f"the model gave a non-finite loss ({mean})")
    try:
        ppl = math.exp(mean)
    except OverflowError:
        return SentenceScore(text, None, mean, count, f"perplexity overflows (mean NLL {mean:.1f} nats)")
    return SentenceScore(text, ppl, mean, count)


def score_from_nll(text: str, total_nll: float, count: int) -> SentenceScore:
    """A SentenceScore from a summed negative log-likelihood over `count` tokens, however it was computed
    (a served model's prompt log-probabilities: harness.run.perplexity); a non-finite value is an error."""
    return _result(text, total_nll, count)


def _error(text: str, exc: BaseException) -> SentenceScore:
    reason = " ".join(str(exc).split())[:200] or type(exc).__name__
    return SentenceScore(text, None, None, 0, f"{type(exc).__name__}: {reason}")


def _plan_batches(lengths: list[int], batch_size: int, max_tokens: int) -> list[list[int]]:
    """Indices grouped longest first, at most batch_size rows and max_tokens padded tokens per batch."""
    order = sorted(range(len(lengths)), key=lambda i: (-lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        width = lengths[current[0]] if current else lengths[i]  # the first (longest) row sets the width
        if current and (len(current) >= batch_size or width * (len(current) + 1) > max_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def sentence_perplexities(model: Any, tokenizer: Any, sentences: Sequence[str], *,
                          batch_size: int = DEFAULT_BATCH_SIZE, max_batch_tokens: int | None = None,
                          prefix: str | int | None = PREFIX_AUTO, name: str = "the model") -> list[SentenceScore]:
    """One SentenceScore per sentence, in order (see the module docstring for how they are computed)."""
    batch_size = max(1, int(batch_size))
    start = prefix_token_id(tokenizer, prefix)
    pad_id = pad_token_id(tokenizer, name=name) if batch_size > 1 else 0
    left = getattr(tokenizer, "padding_side", "right") == "left"
    positions = _takes_position_ids(model)
    limit = context_length(model)
    max_tokens = int(max_batch_tokens or default_batch_tokens(model))
    results: list[SentenceScore | None] = [None] * len(sentences)
    rows = encode(tokenizer, sentences, start)
    todo: list[int] = []
    for i, (text, row) in enumerate(zip(sentences, rows, strict=True)):
        if not text.strip():
            results[i] = SentenceScore(text, None, None, 0, "empty sentence")
        elif len(row) < 2:
            results[i] = SentenceScore(text, None, None, 0, "a single token and no start token: nothing to score")
        elif limit is not None and len(row) > limit:
            results[i] = SentenceScore(text, None, None, 0,
                                       f"{len(row)} tokens, longer than the model's context of {limit}")
        else:
            todo.append(i)
    for batch in _plan_batches([len(rows[i]) for i in todo], batch_size, max_tokens):
        members = [todo[j] for j in batch]
        try:
            scored = _batch_nll(model, [rows[i] for i in members], pad_id=pad_id, left=left, positions=positions)
        except (KeyboardInterrupt, SystemExit):
            raise
        except Exception:  # noqa: BLE001 - score the batch's sentences one by one: only a culprit is lost
            scored = []
            for i in members:
                try:
                    scored.extend(_batch_nll(model, [rows[i]], pad_id=pad_id, left=left, positions=positions))
                except (KeyboardInterrupt, SystemExit):
                    raise
                except Exception as exc:  # noqa: BLE001 - recorded with its sentence, never as a number
                    results[i] = _error(sentences[i], exc)
                    scored.append((math.nan, -1))
        for i, (total, count) in zip(members, scored, strict=True):
            if results[i] is None:
                results[i] = _result(sentences[i], total, count)
    return [r if r is not None else SentenceScore(s, None, None, 0, "not scored")
            for r, s in zip(results, sentences, strict=True)]


def perplexities_both_ways(model: Any, tokenizer: Any, sentences: Sequence[str], **kwargs: Any
                           ) -> tuple[list[SentenceScore], list[SentenceScore]]:
    """(with the start token, as the harness scores; without one, as upstream CHBias scored) for each
    sentence. Keyword arguments go to sentence_perplexities (never `prefix`)."""
    kwargs.pop("prefix", None)
    ours = sentence_perplexities(model, tokenizer, sentences, **kwargs)
    if prefix_token_id(tokenizer) is None:  # nothing is prepended: both conventions are the same numbers
        return ours, ours
    return ours, sentence_perplexities(model, tokenizer, sentences, prefix=None, **kwargs)
