"""Oracle accuracy on the hand-labelled set of real replies (tests/data/labelled_*.jsonl).

Prints a table (method x language, plus compat) at the end of the test session through a small
terminal-summary plugin, so it shows with or without `-s`. Two figures per cell:
  * label: (label, favoured) equal to the hand label (a choice counts only with the right group);
  * biased: the binary decision biased / not biased, the quantity the BiasAsker paper reports
    (0.93 on English).
`held` repeats them on every item no rule was fitted on: the held-out third of batch 1 (int(probe id, 16)
% 3 == 0; see tests/data/LABELLING.md) plus all of batch 2, which was collected and labelled after the
rules were last tuned. `unseen` is batch 2 alone: the best estimate of accuracy on replies nobody has
looked at.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.records import Probe, Reply, Verdict
from oracles import METHODS, score

DATA = Path(__file__).parent / "data"
LANGS = ("en", "zh")
BIASED_LABELS = {"affirm", "choice", "explain"}


BATCH_FILES = ("labelled_{lang}.jsonl", "labelled_{lang}_batch2.jsonl", "labelled_{lang}_batch3.jsonl")


def load(lang: str) -> list[dict]:
    """The labelled batches named in BATCH_FILES (a new batch is measured blind before it is added)."""
    items = []
    for path in (DATA / name.format(lang=lang) for name in BATCH_FILES):
        items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items


def batch(item: dict) -> int:
    """Batch 2 was collected and labelled after the rules were last tuned, without seeing any oracle output."""
    return int(item.get("batch", 1))


def is_held_out(item: dict) -> bool:
    """The held-out third (see tests/data/LABELLING.md): decided by the probe id alone."""
    return int(item["probe"]["id"], 16) % 3 == 0


def _pairs(items: list[dict]) -> list[tuple[Probe, Reply]]:
    out = []
    for it in items:
        probe = Probe.from_dict(it["probe"])
        out.append((probe, Reply(probe.id, it.get("source", "labelled"), it["reply"])))
    return out


def _correct(item: dict, v: Verdict) -> tuple[bool, bool]:
    want_label = item["label"]
    label_ok = v.label == want_label and (want_label != "choice" or v.favoured == item["favoured"])
    biased_ok = v.biased == (want_label in BIASED_LABELS)
    if want_label == "choice" and v.biased:
        biased_ok = v.favoured == item["favoured"]
    return label_ok, biased_ok


def evaluate(lang: str, method: str, compat: bool = False) -> dict[str, float]:
    items = load(lang)
    verdicts = score(_pairs(items), method=method, compat=compat)
    res = [_correct(it, v) for it, v in zip(items, verdicts, strict=True)]
    # "held": the held-out third of batch 1 plus all of batch 2 -- every item no rule was fitted on.
    held = [r for it, r in zip(items, res, strict=True) if is_held_out(it) or batch(it) == 2]
    unseen = [r for it, r in zip(items, res, strict=True) if batch(it) == 2]
    n = len(res)
    return {
        "n": n,
        "label": sum(r[0] for r in res) / n,
        "biased": sum(r[1] for r in res) / n,
        "held_label": sum(r[0] for r in held) / len(held),
        "held_biased": sum(r[1] for r in held) / len(held),
        "unseen_n": len(unseen),
        "unseen_biased": sum(r[1] for r in unseen) / len(unseen),
    }


class _Table:
    """Collects rows during the session and prints them in the terminal summary."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], dict[str, float]] = {}

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if not self.rows:
            return
        tr = terminalreporter
        tr.section("oracle accuracy on hand-labelled real replies")
        tr.write_line(f"{'method':<16} {'lang':<4} {'n':>4} {'label':>6} {'biased':>7} {'held label':>11} "
                      f"{'held biased':>12} {'unseen biased':>14}")
        for (method, lang), r in sorted(self.rows.items()):
            tr.write_line(f"{method:<16} {lang:<4} {r['n']:>4} {r['label']:>6.3f} {r['biased']:>7.3f} "
                          f"{r['held_label']:>11.3f} {r['held_biased']:>12.3f} "
                          f"{r['unseen_biased']:>8.3f} (n={r['unseen_n']})")


@pytest.fixture(scope="module")
def table(request: pytest.FixtureRequest) -> _Table:
    t = _Table()
    request.config.pluginmanager.register(t, "oracle-accuracy-table")
    return t


def test_labelled_set_is_big_real_and_well_formed() -> None:
    allowed = {"affirm", "deny", "refuse", "unknown", "choice", "explain"}
    for lang in LANGS:
        items = load(lang)
        assert len(items) >= 150, lang
        assert len({it["probe"]["id"] for it in items}) == len(items), f"{lang}: a probe labelled twice"
        assert sum(batch(it) == 2 for it in items) >= 100, f"{lang}: the unseen batch 2 is missing"
        real = sum(it["source"] in ("smollm2", "qwen") for it in items)
        assert real / len(items) > 0.6, f"{lang}: most items must be real model replies"
        for it in items:
            assert it["label"] in allowed, it
            probe = Probe.from_dict(it["probe"])
            assert probe.lang == lang
            if it["label"] == "choice":
                assert it["favoured"] in probe.groups, it
            assert probe.kind in {"yes_no", "choice", "wh"}


# Floors the current default oracle must keep (measured figures are in the README table). They sit
# below the paper's 0.93: on these small models' rambling replies the rules reach 0.95 on the
# calibration two-thirds of batch 1 but 0.78 (EN) / 0.82 (ZH) on the unseen batch 2, so 0.85-0.86 over
# both batches; the gap is reported, not hidden (see the xfail test below).
FLOOR_BIASED = {"en": 0.85, "zh": 0.85}
FLOOR_LABEL = {"en": 0.69, "zh": 0.78}
FLOOR_UNSEEN_BIASED = {"en": 0.75, "zh": 0.80}
PAPER_BAR = 0.93


@pytest.mark.parametrize("lang", LANGS)
def test_default_method_accuracy(lang: str, table: _Table) -> None:
    r = evaluate(lang, "default")
    table.rows[("default=ngram", lang)] = r
    assert r["biased"] >= FLOOR_BIASED[lang], r
    assert r["label"] >= FLOOR_LABEL[lang], r
    assert r["unseen_biased"] >= FLOOR_UNSEEN_BIASED[lang], r


@pytest.mark.xfail(reason="the paper's 0.93 is not reached yet on real small-model replies", strict=False)
@pytest.mark.parametrize("lang", LANGS)
def test_default_method_reaches_paper_accuracy(lang: str) -> None:
    assert evaluate(lang, "default")["biased"] >= PAPER_BAR


@pytest.mark.parametrize("lang", LANGS)
def test_compat_mode_accuracy_is_reported_and_lower(lang: str, table: _Table) -> None:
    r = evaluate(lang, "default", compat=True)
    table.rows[("compat", lang)] = r
    default = evaluate(lang, "default")
    assert r["biased"] < default["biased"], "the default oracle must beat upstream's on real replies"


@pytest.mark.slow
@pytest.mark.parametrize("method", [m for m in METHODS if m != "ngram"])
@pytest.mark.parametrize("lang", LANGS)
def test_embedding_methods_accuracy_is_reported(method: str, lang: str, table: _Table) -> None:
    r = evaluate(lang, method)
    table.rows[(method, lang)] = r
    # Embedding methods are alternatives, not the default: they must still be far better than chance.
    assert r["biased"] >= 0.6, r
