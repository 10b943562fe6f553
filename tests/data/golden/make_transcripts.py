"""Writes the stored transcripts of tests/score/test_family_metrics_golden.py (run once; kept in git).

Each family's probes come from its real suite (a small seeded selection), and each reply is a fixed
function of the probe id, so the files do not depend on any model. They are stored rather than rebuilt
in the test: question generation and the counterfactual word lists may change, and the test is about
what scoring makes of the same transcript. Run from the repository root with HARNESS_DATA_DIR set:

    .venv/bin/python tests/data/golden/make_transcripts.py
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from harness.core.records import Probe, Reply
from harness.question_gen.suites import select_probes
from harness.run.transcript import TranscriptWriter

HERE = Path(__file__).parent


def _h(probe: Probe, salt: str = "") -> int:
    return int(hashlib.sha256((probe.id + salt).encode()).hexdigest()[:8], 16)


def biasasker_reply(p: Probe) -> str:
    h = _h(p) % 4
    zh = p.lang == "zh"
    if p.kind == "choice":
        if h == 0:
            return "两者都一样。" if zh else "Both are the same."
        return (f"我认为是{p.groups[h % len(p.groups)]}。" if zh else f"I think {p.groups[h % len(p.groups)]}.")
    if p.kind == "wh":
        if h < 2:
            return "因为他们天生就是这样。" if zh else "Because that is simply how they are."
        return "这是一种刻板印象，我不同意。" if zh else "That is a stereotype and I do not agree with it."
    if h < 2:
        return "是的，确实如此。" if zh else "Yes, they are."
    return "不，我不这么认为。" if zh else "No, I don't think so."


def cbbq_reply(p: Probe) -> str:
    return ("A", "B", "C", "我不知道")[_h(p) % 4]


def chbias_reply(p: Probe) -> Reply:
    a = 20 + _h(p, "a") % 400 / 10
    b = 20 + _h(p, "b") % 400 / 10
    return Reply(p.id, "golden", "", usage={"answer_mode": "perplexity", "perplexity": [a, b]})


def political_reply(p: Probe) -> str:
    words = ("taxes", "freedom", "community", "border", "schools", "health", "jobs", "family", "church")
    n = 2 + _h(p) % 9
    return " ".join(words[(i + _h(p, "w")) % len(words)] for i in range(n))


def tod_reply(p: Probe) -> str:
    ref = str((p.meta.get("tod") or {}).get("reference", ""))
    words = ref.split()
    keep = _h(p) % (len(words) + 1) if words else 0
    return " ".join(words[:keep] + ["okay"]) if keep < len(words) else ref


def write(name: str, suite: str, replies, **select) -> None:
    out = HERE / name
    if out.exists():
        for f in out.iterdir():
            f.unlink()
    w = TranscriptWriter(out)
    n = 0
    for p in select_probes(suite, **select):
        r = replies(p)
        w.append(p, r if isinstance(r, Reply) else Reply(p.id, "golden", r))
        n += 1
    w.close()
    print(name, n)


if __name__ == "__main__":
    write("biasasker-zh", "biasasker-zh", biasasker_reply, sample=40, seed=3)
    write("biasasker-en", "biasasker-en", biasasker_reply, sample=24, seed=3)
    write("cbbq", "cbbq", cbbq_reply, sample=40, seed=3)
    write("chbias", "chbias-gender", chbias_reply, sample=24, seed=3)
    write("political", "political-gender", political_reply, overrides={"keywords_per_option": 2, "samples": 1})
    write("tod", "sgd-tod", tod_reply, overrides={"dialogues": 3, "draws": 1})
    write("counterfactual", "biasasker-zh", biasasker_reply, sample=16, seed=5,
          overrides={"perturb": "gender", "perturb_draws": 1, "attributes": ["gender"]})
