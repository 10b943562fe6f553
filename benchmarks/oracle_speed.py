"""How fast do the oracles score? Prints verdicts per second per method.

100,000 synthetic (probe, reply) pairs through the rule/n-gram oracle (default) and compat mode, and
5,000 through the sentence-embedding method (and the other embedding methods with --all). Replies are
assembled from realistic fragments (openings, hedges, refusals, explanations, group names, Chinese and
English) with a fixed seed, so that every run measures the same work. Goal: >= 10,000 verdicts/s for
rules/n-grams on a 2-core machine.

Synthetic replies repeat (the printout says how many are distinct), which flatters caches keyed by text; the
`real replies` rows score the 322 hand-labelled real replies of tests/data (all distinct, jieba cache emptied
before each pass) for the per-reply cost on real text. The rule methods are timed twice: in one process
(workers=1) and the way `oracles.score` runs a batch this big by default (forked worker processes,
oracles.plan_workers). The `procs` column says how many processes scored; `per CPU-s` counts the CPU time of
all of them (this process and its workers), so it is the load-independent cost, while `verdicts/s` is
wall-clock and drops when other work shares the cores.

    python benchmarks/oracle_speed.py [--n 100000] [--n-embed 5000] [--all]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HARNESS_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))

from harness.core.records import Probe, Reply  # noqa: E402
from harness.oracles import plan_workers, score  # noqa: E402

EN_OPEN = ["Yes, ", "No, ", "I think ", "As an AI, I don't have personal opinions, but ", "Well, ",
           "I'm sorry, but ", "Of course, ", "Not necessarily. ", "", "Honestly, "]
EN_BODY = ["{g} are often described that way, because of history and culture.",
           "it is a stereotype and everyone is different.", "{g} can be very {p}.",
           "there are several factors such as education and income.", "I can't discuss that.",
           "{g} and {h} are equally {p}.", "it depends on the individual person.",
           "studies show mixed results; many {g} work hard every day."]
ZH_OPEN = ["是的，", "不，", "我觉得", "作为一个人工智能助手，", "当然，", "其实", "", "我不同意，"]
ZH_BODY = ["{g}通常比较{p}，因为历史原因。", "这是一种刻板印象，每个人都不同。", "{g}和{h}都一样{p}。",
           "这取决于个人。", "我无法回答这个问题。", "{g}很{p}，这是事实。"]
EN_GROUPS = ["women", "men", "old people", "young people", "Muslims", "Christians", "farmers", "Asian people"]
ZH_GROUPS = ["女人", "男人", "老年人", "年轻人", "穆斯林", "基督徒", "农民", "亚洲人"]
EN_PROPS = ["lazy", "smart", "rich", "honest", "good-looking"]
ZH_PROPS = ["懒惰", "聪明", "有钱", "诚实", "好看"]


def synthetic(n: int, seed: int = 0) -> list[tuple[Probe, Reply]]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        zh = rng.random() < 0.5
        groups, props = (ZH_GROUPS, ZH_PROPS) if zh else (EN_GROUPS, EN_PROPS)
        g, h = rng.sample(groups, 2)
        p = rng.choice(props)
        kind = rng.choice(["yes_no", "yes_no", "choice", "wh"])
        pair = kind == "choice" or rng.random() < 0.3
        probe = Probe.make("bench", "zh" if zh else "en", kind, "absolute" if pair else "relative",
                           f"q{i}", groups=[g, h] if pair else [g], meta={"asserts": g} if pair else {})
        body = rng.choice(ZH_BODY if zh else EN_BODY).format(g=g, h=h, p=p)
        text = rng.choice(ZH_OPEN if zh else EN_OPEN) + body + (" " + body if rng.random() < 0.3 else "")
        out.append((probe, Reply(probe.id, "bench", text)))
    return out


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the pool's workers are reaped on exit)."""
    t = os.times()  # children only: os.times ticks in 10 ms, process_time is finer
    return time.process_time() + t.children_user + t.children_system


def measure(entries, method: str, compat: bool = False, workers: int | None = 1) -> tuple[float, float, int]:
    """(verdicts per wall-clock second, verdicts per CPU second of all processes, processes used)."""
    procs = plan_workers(len(entries), method=method, compat=compat) if workers is None else workers
    score(entries[:200], method=method, compat=compat, workers=1)  # warm-up: load lists/models, fill caches
    t0, c0 = time.perf_counter(), _cpu_seconds()
    out = score(entries, method=method, compat=compat, workers=workers)
    dt, dc = time.perf_counter() - t0, _cpu_seconds() - c0
    assert len(out) == len(entries)
    return len(out) / dt, len(out) / max(dc, 1e-9), procs


def labelled(paths: Iterable[Path] = ()) -> list[tuple[Probe, Reply]]:
    """The hand-labelled real replies in `paths`, by default those of batch 1 in tests/data (EN and ZH,
    all distinct)."""
    data = Path(__file__).resolve().parent.parent / "tests" / "data"
    out = []
    for path in paths or [data / f"labelled_{lang}.jsonl" for lang in ("en", "zh")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                probe = Probe.from_dict(item["probe"])
                out.append((probe, Reply(probe.id, item.get("source", "labelled"), item["reply"])))
    return out


def measure_real(entries, method: str, compat: bool, passes: int) -> float:
    """Verdicts per CPU second on real replies in one process, the jieba cache emptied before each pass
    (so every Chinese run is segmented afresh, as in a run of new replies), over `passes` passes."""
    from harness.oracles.text import segment_cjk

    score(entries, method=method, compat=compat, workers=1)  # warm-up: lists and models loaded
    spent = 0.0
    for _ in range(max(1, passes)):
        segment_cjk.cache_clear()
        c0 = time.process_time()
        score(entries, method=method, compat=compat, workers=1)
        spent += time.process_time() - c0
    return len(entries) * max(1, passes) / max(spent, 1e-9)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--n-embed", type=int, default=5_000)
    ap.add_argument("--real-passes", type=int, default=10, help="passes over the labelled real replies")
    ap.add_argument("--all", action="store_true", help="also time word_cosine, ngram_embedding and rome")
    args = ap.parse_args(argv)

    big = synthetic(args.n)
    small = synthetic(args.n_embed, seed=1)
    real = labelled()
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    # Replies built from fragments repeat; caches keyed by text (jieba runs, sentence vectors) profit.
    print(f"distinct replies: {len({r.text for _p, r in big}):,} of {len(big):,} (rules), "
          f"{len({r.text for _p, r in small}):,} of {len(small):,} (embeddings)")
    print(f"{'method':<16} {'mode':<14} {'procs':>5} {'pairs':>8} {'verdicts/s':>11} {'per CPU-s':>10}")
    for name, method, compat in (("ngram (default)", "ngram", False), ("compat", "default", True)):
        for mode, workers in (("one process", 1), ("default", None)):
            wall, cpu, procs = measure(big, method, compat, workers)
            if workers is None:
                mode = "worker pool" if procs > 1 else "one process"
            print(f"{name:<16} {mode:<14} {procs:>5} {len(big):>8} {wall:>11,.0f} {cpu:>10,.0f}", flush=True)
    # Real replies are longer and never repeat: the honest per-reply cost of the rules.
    for name, method, compat in (("ngram (default)", "ngram", False), ("compat", "default", True)):
        cpu = measure_real(real, method, compat, passes=args.real_passes)
        print(f"{name:<16} {'real replies':<14} {1:>5} {len(real):>8} {'-':>11} {cpu:>10,.0f}", flush=True)
    embed_methods = ["sentence"] + (["word_cosine", "ngram_embedding", "rome"] if args.all else [])
    for method in embed_methods:
        wall, cpu, procs = measure(small, method, workers=None)
        print(f"{method:<16} {'one process':<14} {procs:>5} {len(small):>8} {wall:>11,.0f} {cpu:>10,.0f}", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
