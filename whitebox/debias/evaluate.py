"""What the debias report measures: the CHBias paired test per category, and what debiasing cost.

* Bias: per-sentence perplexities of the aligned T1/T2 sentences of a split (harness.whitebox.perplexity,
  batched) and the paired t-test (harness.metrics.paired_test): the paper's Table 3 reads t.
* Language modelling: perplexity on held-out text, over all its tokens (exp of the total NLL over the
  total token count, so long sentences weigh by their length, not one vote each).
* Replies (the paper's Tables 4-5): greedy replies to held-out contexts, BLEU-4 against the references
  with sacrebleu's Chinese tokenisation (every CJK character a token; upstream's BLEU script dropped
  every non-ASCII character, so it scored Chinese as empty strings), and Dist-1/Dist-2 (Li et al. 2015):
  distinct n-grams over all n-grams of all replies, on the same tokens.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.core.datasets import require_file
from harness.core.errors import ConfigError
from harness.core.paths import data_dir
from harness.metrics.paired_test import PairedTest, paired_test
from harness.whitebox.debias.spec import BiasSpec
from harness.whitebox.perplexity import SentenceScore, sentence_perplexities

SPLITS = ("train", "valid", "test")
Tick = Callable[[int], None]  # advance a progress bar by n items


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text("utf-8").splitlines()]


def chbias_train(spec: BiasSpec) -> list[str]:
    return [s for s in _lines(require_file("chbias", f"data/{spec.name}/{spec.name}_train.txt")) if s]


def chbias_pairs(spec: BiasSpec, split: str) -> tuple[list[str], list[str]]:
    """The aligned (T1, T2) sentences of a valid or test split; line i of one pairs with line i of the other."""
    if split not in ("valid", "test"):
        raise ConfigError(f"A paired split is 'valid' or 'test', not '{split}'.")
    one = _lines(require_file("chbias", f"data/{spec.name}/{spec.name}_{spec.group1}_{split}.txt"))
    two = _lines(require_file("chbias", f"data/{spec.name}/{spec.name}_{spec.group2}_{split}.txt"))
    if len(one) != len(two):
        raise ConfigError(f"The {spec.name} {split} files have {len(one)} and {len(two)} lines; they must pair up.")
    return one, two


def score(model, tokenizer, sentences: Sequence[str], *, batch_size: int = 16, tick: Tick | None = None,
          chunk: int = 64) -> list[SentenceScore]:
    """Per-sentence perplexities, in chunks so a progress bar can move between them."""
    out: list[SentenceScore] = []
    for start in range(0, len(sentences), chunk):
        part = list(sentences[start : start + chunk])
        out.extend(sentence_perplexities(model, tokenizer, part, batch_size=batch_size))
        if tick:
            tick(len(part))
    return out


def bias_test(model, tokenizer, t1: Sequence[str], t2: Sequence[str], *, batch_size: int = 16,
              tick: Tick | None = None) -> PairedTest:
    """The CHBias paired test of one split: ttest_rel(ppl T1, ppl T2), identical pairs dropped."""
    scores = score(model, tokenizer, [*t1, *t2], batch_size=batch_size, tick=tick)
    ppl = [s.perplexity for s in scores]
    return paired_test(ppl[: len(t1)], ppl[len(t1) :], identical=[a == b for a, b in zip(t1, t2, strict=True)])


@dataclass(frozen=True)
class HeldOut:
    sentences: int
    tokens: int
    failed: int
    perplexity: float | None


def heldout_perplexity(model, tokenizer, sentences: Sequence[str], *, batch_size: int = 16,
                       tick: Tick | None = None) -> HeldOut:
    scores = score(model, tokenizer, sentences, batch_size=batch_size, tick=tick)
    ok = [s for s in scores if s.ok and s.nll is not None]
    tokens = sum(s.tokens for s in ok)
    ppl = math.exp(sum(s.nll * s.tokens for s in ok) / tokens) if tokens else None
    return HeldOut(len(scores), tokens, len(scores) - len(ok), ppl)


# ------------------------------------------------------------------------------------------- replies

@dataclass(frozen=True)
class Dialogue:
    context: str
    reference: str


def read_dialogues(path: Path) -> list[Dialogue]:
    """A JSONL file of {"context": ..., "reference": ...} (e.g. LCCC's test set, one turn pair a line)."""
    out: list[Dialogue] = []
    n = 0
    try:
        for n, line in enumerate(Path(path).read_text("utf-8").splitlines(), start=1):  # noqa: B007 - n names the bad line
            if line.strip():
                row = json.loads(line)
                out.append(Dialogue(str(row["context"]), str(row["reference"])))
    except FileNotFoundError:
        raise ConfigError(f"The replies file {path} does not exist.") from None
    except (json.JSONDecodeError, KeyError, TypeError) as exc:
        raise ConfigError(f"Line {n} of {path} is not a JSON object with context and reference ({exc}).") from None
    if not out:
        raise ConfigError(f"The replies file {path} holds no dialogue.")
    return out


def sgd_dialogues(limit: int) -> list[Dialogue]:
    """Held-out English dialogue turns when no file is given: each SGD test dialogue's first user turn and
    the system's answer (schema-guided dialogue, in the data directory if it was fetched)."""
    folder = data_dir() / "sgd" / "test"
    out: list[Dialogue] = []
    for path in sorted(folder.glob("dialogues_*.json")):
        for dialogue in json.loads(path.read_text("utf-8")):
            turns = dialogue.get("turns", [])
            if len(turns) >= 2 and turns[0].get("speaker") == "USER":
                out.append(Dialogue(turns[0]["utterance"], turns[1]["utterance"]))
            if len(out) >= limit:
                return out
    return out


def _prompt(tokenizer, context: str) -> str:
    if getattr(tokenizer, "chat_template", None):
        return tokenizer.apply_chat_template([{"role": "user", "content": context}], tokenize=False,
                                             add_generation_prompt=True)
    return context + "\n"


def generate_replies(model, tokenizer, contexts: Sequence[str], *, max_new_tokens: int = 32, batch_size: int = 8,
                     tick: Tick | None = None) -> list[str]:
    """Greedy replies, batched with left padding (the new tokens of every row start at the same column)."""
    import torch

    from harness.whitebox.perplexity import context_length

    sides = tokenizer.padding_side, tokenizer.truncation_side
    tokenizer.padding_side = tokenizer.truncation_side = "left"  # a long context loses its start, not its end
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    room = max(8, (context_length(model) or 2048) - max_new_tokens)
    replies: list[str] = []
    try:
        for start in range(0, len(contexts), batch_size):
            prompts = [_prompt(tokenizer, c) for c in contexts[start : start + batch_size]]
            enc = tokenizer(prompts, return_tensors="pt", padding=True, add_special_tokens=False, truncation=True,
                            max_length=room)
            enc = {k: v.to(model.device) for k, v in enc.items()}
            with torch.inference_mode():
                out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=pad)
            new = out[:, enc["input_ids"].shape[1] :]
            replies.extend(t.strip() for t in tokenizer.batch_decode(new, skip_special_tokens=True))
            if tick:
                tick(len(prompts))
    finally:
        tokenizer.padding_side, tokenizer.truncation_side = sides
    return replies


def zh_tokens(text: str) -> list[str]:
    """sacrebleu's Chinese tokenisation (each CJK character alone, other text as in 13a), as a list."""
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh

    return TokenizerZh()(text).split()


def distinct(replies: Sequence[str], n: int) -> float | None:
    """Dist-n: distinct n-grams / all n-grams, over every reply together (None when there are none)."""
    grams = [tuple(toks[i : i + n]) for r in replies for toks in [zh_tokens(r)] for i in range(len(toks) - n + 1)]
    return len(set(grams)) / len(grams) if grams else None


def bleu4(replies: Sequence[str], references: Sequence[str]) -> float:
    """Corpus BLEU-4 (0-100) with sacrebleu's Chinese tokeniser."""
    import sacrebleu

    return float(sacrebleu.corpus_bleu(list(replies), [list(references)], tokenize="zh").score)


def reply_quality(replies: Sequence[str], references: Sequence[str]) -> dict[str, float | None]:
    return {"bleu4": bleu4(replies, references), "dist1": distinct(replies, 1), "dist2": distinct(replies, 2),
            "replies": len(replies), "empty": sum(1 for r in replies if not r.strip())}
