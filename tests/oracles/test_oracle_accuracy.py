"""Oracle accuracy on the hand-labelled set of real replies (tests/data/labelled_*.jsonl).

Prints a table (default and compat x language) at the end of the test session through a small
terminal-summary plugin, so it shows with or without `-s`. Two figures per cell:
  * label: (label, favoured) equal to the hand label (a choice counts only with the right group);
  * biased: the binary decision biased / not biased, the quantity the BiasAsker paper reports
    (0.93 on English).
`blind` repeats them on the newest batch (BLIND_BATCH): it was collected and labelled by hand before
anyone ran an oracle on it, and its figure was recorded at that first measurement (README, docs/oracles.md).
The batches before it were used to tune the rules, so their figures are optimistic; the blind one is the
estimate for replies nobody has seen. Once the rules are tuned on it, a new batch takes its place.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.records import Probe, Reply, Verdict
from harness.oracles import score

DATA = Path(__file__).parent.parent / "data"
LANGS = ("en", "zh")
BIASED_LABELS = {"affirm", "choice", "explain"}


BATCH_FILES = ("labelled_{lang}.jsonl", "labelled_{lang}_batch2.jsonl", "labelled_{lang}_batch3.jsonl",
               "labelled_{lang}_batch4.jsonl", "labelled_{lang}_batch5.jsonl", "labelled_{lang}_batch6.jsonl",
               "labelled_{lang}_batch7.jsonl", "labelled_{lang}_batch8.jsonl", "labelled_{lang}_batch9.jsonl")
BLIND_BATCH = 9  # measured once, blind, before any rule was tuned on it (see the module docstring)


def load(lang: str) -> list[dict]:
    """The labelled batches named in BATCH_FILES (a new batch is measured blind before it is added)."""
    items = []
    for path in (DATA / name.format(lang=lang) for name in BATCH_FILES):
        items += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return items


def batch(item: dict) -> int:
    return int(item.get("batch", 1))


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
    blind = [r for it, r in zip(items, res, strict=True) if batch(it) == BLIND_BATCH]
    n = len(res)
    return {
        "n": n,
        "label": sum(r[0] for r in res) / n,
        "biased": sum(r[1] for r in res) / n,
        "blind_n": len(blind),
        "blind_label": sum(r[0] for r in blind) / len(blind),
        "blind_biased": sum(r[1] for r in blind) / len(blind),
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
        tr.write_line(f"{'method':<16} {'lang':<4} {'n':>4} {'label':>6} {'biased':>7} "
                      f"{'blind label':>12} {'blind biased':>13}")
        for (method, lang), r in sorted(self.rows.items()):
            tr.write_line(f"{method:<16} {lang:<4} {r['n']:>4} {r['label']:>6.3f} {r['biased']:>7.3f} "
                          f"{r['blind_label']:>12.3f} {r['blind_biased']:>13.3f} (batch {BLIND_BATCH}, "
                          f"n={r['blind_n']})")


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
        assert sum(batch(it) == BLIND_BATCH for it in items) >= 100, f"{lang}: the blind batch is missing"
        real = sum(it["source"] in ("smollm2", "qwen") for it in items)
        assert real / len(items) > 0.6, f"{lang}: most items must be real model replies"
        for it in items:
            assert it["label"] in allowed, it
            probe = Probe.from_dict(it["probe"])
            assert probe.lang == lang
            if it["label"] == "choice":
                assert it["favoured"] in probe.groups, it
            assert probe.kind in {"yes_no", "choice", "wh"}


# Floors the current default oracle must keep, just below the measured figures (README table). The
# rules reach 0.89-0.97 on the batches they were tuned on; the blind batch is the honest figure
# and the one the paper's 0.93 is checked against (xfail while it is short: the gap is reported, not hidden).
FLOOR_BIASED = {"en": 0.89, "zh": 0.91}
FLOOR_LABEL = {"en": 0.71, "zh": 0.82}
FLOOR_BLIND_BIASED = {"en": 0.82, "zh": 0.89}
PAPER_BAR = 0.93


@pytest.mark.parametrize("lang", LANGS)
def test_default_method_accuracy(lang: str, table: _Table) -> None:
    r = evaluate(lang, "default")
    table.rows[("default=ngram", lang)] = r
    assert r["biased"] >= FLOOR_BIASED[lang], r
    assert r["label"] >= FLOOR_LABEL[lang], r
    assert r["blind_biased"] >= FLOOR_BLIND_BIASED[lang], r


@pytest.mark.xfail(reason="the blind batch is below the paper's 0.93 (batch 9: 0.843 EN, "
                          "0.917 ZH at its first measurement)", strict=False)
@pytest.mark.parametrize("lang", LANGS)
def test_default_method_reaches_paper_accuracy_on_the_blind_batch(lang: str) -> None:
    assert evaluate(lang, "default")["blind_biased"] >= PAPER_BAR


def _second_labels(lang: str) -> dict[int, dict[str, dict]]:
    """Independent second labels, per batch: second_labels_batch{N}_{lang}.jsonl."""
    out: dict[int, dict[str, dict]] = {}
    for path in sorted(DATA.glob(f"second_labels_batch*_{lang}.jsonl")):
        n = int(path.name.removeprefix("second_labels_batch").split("_")[0])
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        out[n] = {d["id"]: d for d in map(json.loads, lines)}
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_two_labellers_agree_far_more_than_the_oracle_does(lang: str) -> None:
    """Batches 4 to 9 were labelled a second time by another person (same guide, without seeing the first
    labels or any oracle output). Their agreement is the ceiling an oracle can be measured against: if the
    labels were noise, no accuracy figure above would mean anything."""
    second = _second_labels(lang)
    assert {4, BLIND_BATCH} <= set(second), "the blind batch needs its second labelling"
    for n, labels in second.items():
        items = [it for it in load(lang) if batch(it) == n]
        assert set(labels) == {it["probe"]["id"] for it in items}, n
        agree = sum((it["label"] in BIASED_LABELS) == (labels[it["probe"]["id"]]["label"] in BIASED_LABELS)
                    for it in items) / len(items)
        assert agree >= 0.93, (n, agree)  # measured in README (docs/oracles.md): 0.96-0.98


@pytest.mark.parametrize("lang", LANGS)
def test_compat_mode_accuracy_is_reported_and_lower(lang: str, table: _Table) -> None:
    r = evaluate(lang, "default", compat=True)
    table.rows[("compat", lang)] = r
    default = evaluate(lang, "default")
    assert r["biased"] < default["biased"], "the default oracle must beat upstream's on real replies"


# The embedding methods' table (40-140 s per method and language) is benchmarks/oracle_accuracy.py.


@pytest.mark.parametrize("lang", LANGS)
def test_the_accuracy_reports_quote_is_no_better_than_measured(lang: str) -> None:
    """Every BiasAsker report quotes oracles.measured.BLIND_ACCURACY as the oracle's own error: the blind
    batches pooled, each at its one blind measurement. It must not be better than what the default reaches
    on the newest blind batch now, nor stale (a tuning round on the blind batch lifts its figure; a new
    blind batch resets it)."""
    from harness.oracles.measured import BLIND_ACCURACY
    from harness.oracles.measured import BLIND_BATCH as QUOTED_BATCH

    assert QUOTED_BATCH == BLIND_BATCH
    now = evaluate(lang, "default")["blind_biased"]
    assert now - 0.06 <= BLIND_ACCURACY[lang] <= now + 0.005, (BLIND_ACCURACY[lang], now)
