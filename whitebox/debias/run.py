"""`harness debias`, end to end: measure, train a grid, select on validation, measure again, save.

Order matters for the user: everything that can be wrong with the input (method, category, model path,
data files) fails in the first second, before a model is loaded or a step is trained.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.whitebox.debias import augment, evaluate, models, report
from harness.whitebox.debias.batches import Collator
from harness.whitebox.debias.objective import Objective, check_method
from harness.whitebox.debias.select import better, grid_points
from harness.whitebox.debias.spec import CATEGORIES, BiasSpec, get_spec, load_spec
from harness.whitebox.debias.train import TrainSettings, planned_steps, train


@dataclass
class DebiasRequest:
    method: str
    model: str
    category: str
    out: Path
    grid: str = "small"
    overrides: Mapping[str, Sequence[float]] = field(default_factory=dict)
    settings: TrainSettings = field(default_factory=TrainSettings)
    report_categories: Sequence[str] = tuple(CATEGORIES)
    heldout_file: Path | None = None
    heldout_limit: int = 400
    replies_file: Path | None = None
    replies_limit: int = 50
    max_new_tokens: int = 32
    eval_batch_size: int = 16
    spec_file: Path | None = None  # a user's word lists (JSON) instead of appendix A's for the category
    train_limit: int | None = None  # first N training sentences (smoke runs)
    pairs_limit: int | None = None  # first N pairs of each valid/test split (smoke runs)


class Progress:
    """The bar the CLI draws (rich); a no-op one when nothing is shown."""

    def stage(self, description: str, total: int) -> Callable[[int], None]:
        return lambda n: None


def _training_set(method: str, spec: BiasSpec, words: BiasSpec, limit: int | None
                  ) -> tuple[list[str], dict[str, int] | None]:
    base = evaluate.chbias_train(spec)[:limit] if limit else evaluate.chbias_train(spec)
    if method == "ctda":
        aug = augment.ctda(base, words)
        return aug.sentences, aug.summary()
    if method == "cada":
        aug = augment.cada(base, words)
        return aug.sentences, aug.summary()
    return base, None


def _heldout(req: DebiasRequest, spec: BiasSpec) -> tuple[list[str], str]:
    if req.heldout_file is not None:
        if not req.heldout_file.is_file():
            raise ConfigError(f"The held-out text file {req.heldout_file} does not exist.")
        lines = [s.strip() for s in req.heldout_file.read_text("utf-8").splitlines() if s.strip()]
        return lines[: req.heldout_limit], str(req.heldout_file)
    others = [c for c in CATEGORIES if c != spec.name]
    seen = set(evaluate.chbias_train(spec))
    lines: list[str] = []
    for cat in others:  # round-robin, so a limit takes some of every category
        lines.extend(s for s in evaluate.chbias_train(CATEGORIES[cat]) if s not in seen)
    step = max(1, len(lines) // max(1, req.heldout_limit))
    return lines[::step][: req.heldout_limit], f"CHBias train sentences of {', '.join(others)} (not trained on)"


def _dialogues(req: DebiasRequest) -> tuple[list[evaluate.Dialogue], str]:
    if req.replies_limit <= 0:
        return [], "not measured (--replies-limit 0)"
    if req.replies_file is not None:
        return evaluate.read_dialogues(req.replies_file)[: req.replies_limit], str(req.replies_file)
    found = evaluate.sgd_dialogues(req.replies_limit)
    return found, ("SGD test dialogues: first user turn -> system reply" if found
                   else "not measured (no --replies file and no SGD data in the data directory)")


def measure(model, tokenizer, req: DebiasRequest, tests: Mapping[str, tuple[list[str], list[str]]],
            heldout: list[str], dialogues: list[evaluate.Dialogue], progress: Progress, label: str) -> dict[str, Any]:
    """Everything the report compares, for one model."""
    out: dict[str, Any] = {"bias": {}}
    n = sum(len(a) + len(b) for a, b in tests.values()) + len(heldout)
    tick = progress.stage(f"{label}: scoring", n)
    for cat, (t1, t2) in tests.items():
        out["bias"][cat] = evaluate.bias_test(model, tokenizer, t1, t2, batch_size=req.eval_batch_size,
                                              tick=tick).as_dict()
    out["heldout"] = evaluate.heldout_perplexity(model, tokenizer, heldout, batch_size=req.eval_batch_size,
                                                 tick=tick).__dict__
    if dialogues:
        tick = progress.stage(f"{label}: replies", len(dialogues))
        replies = evaluate.generate_replies(model, tokenizer, [d.context for d in dialogues],
                                            max_new_tokens=req.max_new_tokens, tick=tick)
        out["replies"] = evaluate.reply_quality(replies, [d.reference for d in dialogues])
        out["reply_examples"] = [{"context": d.context, "reference": d.reference, "reply": r}
                                 for d, r in list(zip(dialogues, replies, strict=True))[:5]]
    return out


def run(req: DebiasRequest, progress: Progress | None = None) -> dict[str, Any]:
    """Do the whole job; returns the report (also written to req.out)."""
    progress = progress or Progress()
    method = check_method(req.method)
    spec = get_spec(req.category)
    words = load_spec(req.spec_file) if req.spec_file is not None else spec
    located = models.locate(req.model)
    report_specs = [get_spec(c) for c in req.report_categories]
    points = grid_points(req.grid, method, req.settings, req.overrides)
    if req.out.exists() and any(req.out.iterdir()):
        raise ConfigError(f"The output directory {req.out} is not empty; choose a new one.")
    sentences, augmentation = _training_set(method, spec, words, req.train_limit)
    def pairs(s: BiasSpec, split: str) -> tuple[list[str], list[str]]:
        one, two = evaluate.chbias_pairs(s, split)
        return (one[: req.pairs_limit], two[: req.pairs_limit]) if req.pairs_limit else (one, two)

    valid = pairs(spec, "valid")
    tests = {s.name: pairs(s, "test") for s in report_specs}
    heldout, heldout_source = _heldout(req, spec)
    dialogues, dialogue_source = _dialogues(req)

    from accelerate import PartialState

    state = PartialState()  # one process on a CPU; one per GPU under `accelerate launch`
    main_process = state.is_main_process
    started = time.monotonic()
    base, tokenizer = models.load(located)
    base.to(state.device)
    # The report is measured and written by the main process only; every process trains (data parallel)
    # and validates (the models are identical after each step, so all choose the same grid point).
    before = measure(base, tokenizer, req, tests, heldout, dialogues, progress, "before") if main_process else {}
    runs: list[dict[str, Any]] = []
    best_model, best_p, best_index = None, None, None
    for i, point in enumerate(points, start=1):
        candidate = copy.deepcopy(base)
        objective = Objective(method, candidate, tokenizer, words, lm_hyp=point.lm_hyp, debias_hyp=point.debias_hyp)
        collator = Collator(tokenizer, words.target_pairs, words.attributes, block_size=point.block_size)
        bar = progress.stage(f"training {i}/{len(points)}", planned_steps(len(sentences), point))
        trained, log = train(candidate, tokenizer, sentences, objective, collator, point,
                             progress=lambda done, total, row, bar=bar: bar(1))
        tick = progress.stage(f"validating {i}/{len(points)}", 2 * len(valid[0]))
        check = evaluate.bias_test(trained, tokenizer, *valid, batch_size=req.eval_batch_size, tick=tick)
        runs.append({"point": point.point(), "valid": check.as_dict(), "train": log.as_dict()})
        if better(check.p, best_p) or best_model is None:
            best_model, best_p, best_index = trained, check.p, i - 1
        else:
            del trained
    state.wait_for_everyone()
    if not main_process:
        return {}
    after = measure(best_model, tokenizer, req, tests, heldout, dialogues, progress, "after")
    model_dir = req.out / "model"
    result = {
        "method": method, "category": spec.name, "words": str(req.spec_file or "appendix A"),
        "model": located.label, "model_source": located.source,
        "gguf_file": located.gguf_file, "output_model": str(model_dir), "grid": req.grid,
        "settings": asdict(req.settings),
        "training_sentences": len(sentences), "augmentation": augmentation,
        "heldout_source": heldout_source, "replies_source": dialogue_source,
        "runs": runs, "selected": best_index, "before": before, "after": after,
        "seconds": round(time.monotonic() - started, 1),
    }
    report.write(result, req.out)  # first: a failure to save the model must not lose the measurements
    best_model.save_pretrained(model_dir)
    tokenizer.save_pretrained(model_dir)
    return result
