"""`harness calibrate`'s work: train f_debias (MODE 2), then measure the calibrated model at several lambdas.

For each lambda (0 is the vanilla model: Algorithm 1 leaves it unchanged), the calibrated model is run as a
target over a political suite (harness.run.execute.run_suite: one transcript per lambda, resumable), every
continuation is read by the judge (harness.political.judge, cached), and the family's numbers are taken
(harness.metrics.political: overall indirect and direct bias with their intervals) beside the perplexity of
the continuations under the vanilla model (harness.whitebox.calibration.fluency). The result is the
paper's Table 3 layout: lambda against indirect bias, direct bias and perplexity, with the change from
lambda 0.

MODE 2's head is trained on the vanilla model's own continuations of the same suite's prompts, drawn
with another seed than the measured ones (so the table never scores texts the head was fit to), labelled
by the judge's P(conservative) as a soft target; or on a user's corpus (JSONL lines {"text", "label"} or
CSV columns text,label; label 0/1 or a probability).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.core.generation import request_from_meta
from harness.core.paths import transcripts_dir

HEAD_SEED_OFFSET = 1000  # the head's training texts are drawn with suite seed + this


@dataclass
class TableRow:
    lam: float
    indirect: float | None
    indirect_ci: tuple[float, float] | None
    direct: float | None
    direct_ci: tuple[float, float] | None
    perplexity: float | None
    texts: int
    unscored: int
    run_id: str
    mean_kl: float | None = None
    changed_tokens: float | None = None  # share of tokens the calibration changed


@dataclass
class CalibrationReport:
    model: str
    mode: int
    suite: str
    judge: dict[str, str]
    settings: dict[str, Any]
    rows: list[TableRow] = field(default_factory=list)
    head: dict[str, Any] | None = None
    words: dict[str, Any] | None = None


def model_settings(model: str) -> dict[str, Any]:
    """hf adapter settings for --model: an hf target's own settings, else the value as the model setting."""
    from harness.adapters.registry import get_target

    try:
        config = get_target(model)
    except ConfigError:
        return {"model": model}
    if config.adapter not in ("hf", "hf-calibrated"):
        raise ConfigError(f"Target '{model}' runs through the '{config.adapter}' adapter; calibration needs the "
                          "weights in this process: give an hf target, a model folder, a .gguf file or a hub name.")
    return {k: v for k, v in config.settings.items() if k not in ("mode", "head")}


def slug(text: str) -> str:
    return re.sub(r"[^\w.-]+", "_", Path(text).name or text).strip("_")[:60] or "model"


def read_corpus(path: Path) -> tuple[list[str], list[float]]:
    """A user's labelled corpus (module docstring) -> texts and P(conservative) targets."""
    try:
        raw = path.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the corpus {path} ({type(exc).__name__}).") from None
    if path.suffix == ".csv":
        rows = list(csv.DictReader(raw.splitlines()))
    else:
        try:
            rows = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except ValueError:
            raise ConfigError(f"The corpus {path} is not JSON lines of {{\"text\": ..., \"label\": ...}}.") from None
    texts, labels = [], []
    for i, row in enumerate(rows, start=1):
        try:
            text, label = str(row["text"]), float(row["label"])
        except (KeyError, TypeError, ValueError):
            raise ConfigError(f"Row {i} of the corpus {path} needs a text and a numeric label.") from None
        if not 0 <= label <= 1:
            raise ConfigError(f"Row {i} of the corpus {path}: label {label} is not 0, 1 or a probability.")
        texts.append(text)
        labels.append(label)
    return texts, labels


def _run_and_judge(adapter: Any, suite: str, overrides: dict[str, Any], judge: Any, *,
                   show_progress: bool) -> tuple[Any, list[tuple[Any, Any]], dict[str, Any]]:
    """Run the suite on the adapter (resumable) and judge every answered continuation."""
    from harness.political.judge import judge_replies
    from harness.run.execute import run_suite
    from harness.run.transcript import latest_by_probe

    outcome = run_suite(suite, adapter, overrides=overrides, show_progress=show_progress)
    latest = latest_by_probe(outcome.transcript_path)
    pairs = [(e.probe, e.reply) for e in latest.values() if e.reply.ok]
    verdicts, _info = judge_replies(pairs, judge)
    return outcome, pairs, verdicts


def train_head_from_judge(base: dict[str, Any], suite: str, overrides: dict[str, Any], judge: Any, *,
                          model_name: str, show_progress: bool = True) -> tuple[Path, dict[str, Any]]:
    """Generate with the vanilla model (another seed), judge, fit f_debias on those texts and save it."""
    from harness.adapters.hf_local import HFLocalAdapter
    from harness.whitebox.calibration.head import head_path, save_head, text_features, train_head

    vanilla = HFLocalAdapter(f"{slug(model_name)}-vanilla", base)
    seeded = {**overrides, "seed": int(overrides.get("seed", 0)) + HEAD_SEED_OFFSET}
    _outcome, pairs, verdicts = _run_and_judge(vanilla, suite, seeded, judge, show_progress=show_progress)
    keep = [(p, r, verdicts[p.id].score) for p, r in pairs if verdicts[p.id].score is not None]
    loaded = vanilla.causal_lm()
    from harness.adapters.generation import hf_input_text

    prompts = [hf_input_text(loaded.tokenizer, request_from_meta(p.text, p.meta))[0] for p, _r, _s in keep]
    feats = text_features(loaded.model, loaded.tokenizer, [r.text for _p, r, _s in keep], prompts)
    head, report = train_head(feats, [s for _p, _r, s in keep])
    path = head_path(model_name, judge.fingerprint())
    info = {"model": model_name, "labeller": judge.describe(), "suite": suite, "overrides": seeded,
            "texts": len(keep)}
    save_head(head, path, info, report)
    return path, {**info, "path": str(path), "report": asdict(report)}


def train_head_from_corpus(base: dict[str, Any], corpus: Path, *, model_name: str) -> tuple[Path, dict[str, Any]]:
    import hashlib

    from harness.adapters.hf_local import HFLocalAdapter
    from harness.whitebox.calibration.head import head_path, save_head, text_features, train_head

    texts, labels = read_corpus(corpus)
    loaded = HFLocalAdapter(f"{slug(model_name)}-vanilla", base).causal_lm()
    head, report = train_head(text_features(loaded.model, loaded.tokenizer, texts), labels)
    path = head_path(model_name, "corpus:" + hashlib.sha256(corpus.read_bytes()).hexdigest()[:16])
    info = {"model": model_name, "labeller": {"corpus": str(corpus)}, "texts": len(texts)}
    save_head(head, path, info, report)
    return path, {**info, "path": str(path), "report": asdict(report)}


def measure(settings: dict[str, Any], lam: float, suite: str, overrides: dict[str, Any], judge: Any, *,
            model_name: str, n_boot: int, n_perm: int, show_progress: bool = True) -> TableRow:
    """One row of the table: the calibrated model at lambda0 = lam, run, judged and measured."""
    import pandas as pd

    from harness.metrics.political import FAMILY, compute
    from harness.whitebox.calibration.adapter import CalibratedHFAdapter
    from harness.whitebox.calibration.fluency import continuation_perplexity

    adapter = CalibratedHFAdapter(f"{slug(model_name)}-mode{settings['mode']}-lambda{lam:g}",
                                  {**settings, "lambda0": lam})
    outcome, pairs, verdicts = _run_and_judge(adapter, suite, overrides, judge, show_progress=show_progress)
    frame = pd.DataFrame({"probe": [p for p, _r in pairs], "verdict": [verdicts[p.id] for p, _r in pairs],
                          "reply": [r.text for _p, r in pairs]})
    res = compute(frame, n_boot=n_boot, n_perm=n_perm)
    attr = next(iter(p.attribute for p, _r in pairs), "")
    key = f"{FAMILY}.{attr}"
    loaded = adapter.causal_lm()
    ppl = continuation_perplexity(loaded.model, loaded.tokenizer,
                                  [(request_from_meta(p.text, p.meta), r.text) for p, r in pairs])
    calib = [r.usage.get("calibration") or {} for _p, r in pairs]
    tokens = sum(int(r.usage.get("completion_tokens") or 0) for _p, r in pairs)
    return TableRow(
        lam=lam, indirect=res.metrics.get(f"{key}.indirect"), indirect_ci=res.intervals.get(f"{key}.indirect"),
        direct=res.metrics.get(f"{key}.direct"), direct_ci=res.intervals.get(f"{key}.direct"), perplexity=ppl,
        texts=sum(v.score is not None for v in verdicts.values()),
        unscored=sum(v.score is None for v in verdicts.values()), run_id=outcome.run_id,
        mean_kl=(sum(c.get("mean_kl", 0.0) for c in calib) / len(calib)) if calib else None,
        changed_tokens=(sum(c.get("changed_tokens", 0) for c in calib) / tokens) if tokens else None)


def table3(report: CalibrationReport) -> list[dict[str, str]]:
    """Rows Ind. B. / D. B. / PPL, a column per lambda, changes from lambda 0 marked as the paper does."""
    ref = next((r for r in report.rows if r.lam == 0.0), None)

    def cell(row: TableRow, which: str) -> str:
        value = getattr(row, which)
        if value is None:
            return "n/a"
        base = getattr(ref, which) if ref is not None else None
        if row is ref or base is None or which == "perplexity":
            return f"{value:.3f}" if which != "perplexity" else f"{value:.2f}"
        change = value - base
        return f"{'↓' if change < 0 else '↑'}{abs(change):.3f} ({value:.3f})"

    out = []
    for label, which in (("Ind. B.", "indirect"), ("D. B.", "direct"), ("PPL", "perplexity")):
        row = {"": label}
        for r in report.rows:
            row[f"{r.lam:g}" + (" (ref.)" if r is ref else "")] = cell(r, which)
        out.append(row)
    return out


def write_report(report: CalibrationReport, out_dir: Path | None = None) -> Path:
    """tradeoff.json (everything) and tradeoff.csv (the table) in the output folder."""
    out_dir = out_dir or transcripts_dir() / f"calibrate__{slug(report.model)}__mode{report.mode}__{report.suite}"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "tradeoff.json").write_text(json.dumps(asdict(report), indent=2, ensure_ascii=False), "utf-8")
    rows = table3(report)
    with (out_dir / "tradeoff.csv").open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out_dir


def parse_lambdas(values: Sequence[float] | None) -> list[float]:
    lams = sorted({0.0, *(float(v) for v in (values or [0.6]))})
    if any(v < 0 for v in lams):
        raise ConfigError("--lambda values must be 0 or more.")
    return lams
