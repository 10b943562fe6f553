"""How often is a counterfactual right? Accuracy of `harness perturb` on hand-written cases, per axis and language.

Each case of tests/data/perturbation_cases.jsonl (or --cases FILE, same shape) is one utterance with its
language, axis and every acceptable output, written by hand before the perturber was changed (issue 22):

    {"id": "en-gender-016", "lang": "en", "axis": "gender", "class": "object_her",
     "text": "Please ask her to sign the form.", "accept": ["Please ask him to sign the form."]}

The cases of one (language, axis) are written as a JSONL file of one-turn dialogues and perturbed by the
code `harness perturb FILE --axis AXIS` runs (harness.perturb.dialogues.perturb_file: Algorithm 1, the
default 3 draws, seed 0). Every draw is one judgement: right when its text is one of the case's acceptable
outputs. A case the perturber leaves alone is one judgement on the unchanged text (right only when the
input itself is acceptable: a case where nothing may change). `--draws 1000` judges every element of K
instead of three of them.

    python benchmarks/perturbation_accuracy.py [--cases FILE] [--draws N] [--seed S] [--failures]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HARNESS_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "data"))

from harness.core.errors import HarnessError  # noqa: E402
from harness.perturb.dialogues import perturb_file, read_dialogues  # noqa: E402

CASES = Path(__file__).resolve().parent.parent / "tests" / "data" / "perturbation_cases.jsonl"


@dataclass(frozen=True)
class Judgement:
    case: dict
    output: str
    right: bool


def read_cases(path: Path) -> list[dict]:
    cases = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    for c in cases:
        missing = {"id", "lang", "axis", "text", "accept"} - set(c)
        if missing:
            raise SystemExit(f"{path}: case {c.get('id', '?')} lacks {', '.join(sorted(missing))}")
    return cases


def judge(cases: list[dict], *, draws: int = 3, seed: int = 0) -> list[Judgement]:
    """Every draw of every case, as `harness perturb` writes it, judged against the acceptable outputs."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for c in cases:
        groups[(c["lang"], c["axis"])].append(c)
    out: list[Judgement] = []
    with tempfile.TemporaryDirectory() as tmp:
        for (lang, axis), group in sorted(groups.items()):
            path = Path(tmp) / f"{lang}-{axis}.jsonl"
            path.write_text("".join(json.dumps({"dialogue_id": c["id"], "text": c["text"], "lang": lang},
                                               ensure_ascii=False) + "\n" for c in group), "utf-8")
            try:
                records, _stats = perturb_file(read_dialogues(path, lang), axis, draws=draws, seed=seed)
            except HarnessError:  # no case of the group has a word of the axis
                records = []
            texts: dict[str, list[str]] = defaultdict(list)
            for r in records:
                texts[r["perturbation"]["dialogue_id"]].append(r["text"])
            for c in group:
                for text in texts.get(c["id"]) or [c["text"]]:
                    out.append(Judgement(c, text, text in c["accept"]))
    return out


def accuracy(judgements: list[Judgement], key) -> dict[str, tuple[int, int]]:
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for j in judgements:
        for k in key(j):
            table[k][0] += j.right
            table[k][1] += 1
    return {k: (v[0], v[1]) for k, v in sorted(table.items())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=Path, default=CASES)
    parser.add_argument("--draws", type=int, default=3, help="draws per case (harness perturb's default: 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--failures", action="store_true", help="print every wrong draw")
    args = parser.parse_args()
    cases = read_cases(args.cases)
    start = time.perf_counter()
    judgements = judge(cases, draws=args.draws, seed=args.seed)
    took = time.perf_counter() - start
    by_cell = accuracy(judgements, lambda j: [f"{j.case['axis']:<7} {j.case['lang']}", f"{j.case['axis']:<7} all",
                                              f"all     {j.case['lang']}", "all     all"])
    print(f"{len(cases)} cases from {args.cases.name}, {len(judgements)} judged draws "
          f"(draws={args.draws}, seed={args.seed}), {took:.1f} s")
    print(f"{'axis':<7} {'lang':<4} {'draws':>6} {'right':>6} {'accuracy':>9}")
    for cell, (right, n) in by_cell.items():
        print(f"{cell:<12} {n:>6} {right:>6} {right / n:>9.3f}")
    by_class = accuracy(judgements, lambda j: [j.case.get("class", "")])
    print("\nby class: " + ", ".join(f"{k} {r / n:.2f} ({r}/{n})" for k, (r, n) in by_class.items()))
    cases_right = accuracy(judgements, lambda j: [j.case["id"]])
    all_right = sum(r == n for r, n in cases_right.values())
    print(f"cases with every draw right: {all_right} of {len(cases_right)} ({all_right / len(cases_right):.3f})")
    if args.failures:
        print()
        for j in judgements:
            if not j.right:
                print(f"{j.case['id']} [{j.case.get('class', '')}] {j.case['text']!r} -> {j.output!r}")


if __name__ == "__main__":
    main()
