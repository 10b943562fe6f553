"""Every verdict the cheap oracle modes give, written to a JSON file, so a refactor can prove it changed none.

    python benchmarks/oracle_verdicts_snapshot.py --out /tmp/verdicts_before.json
    ... refactor ...
    python benchmarks/oracle_verdicts_snapshot.py --out /tmp/verdicts_after.json
    python benchmarks/oracle_verdicts_snapshot.py --diff /tmp/verdicts_before.json /tmp/verdicts_after.json
    python benchmarks/oracle_verdicts_snapshot.py --pin tests/data/oracle_verdicts_pinned.jsonl

What is scored (every field of every Verdict is kept: label, biased, favoured, score, method, evidence):
  * every hand-labelled real reply of tests/data/labelled_*.jsonl (all batches, both languages), by the
    default rules and by compat mode;
  * every CBBQ answer of tests/data/cbbq_answers.jsonl as a cbbq probe (both modes);
  * the synthetic replies of benchmarks/oracle_speed.py (the first --synthetic of them, both modes);
  * with --meaning (the default), the hand-written sentences of the oracle meaning tests: those tests
    run in this process with a plugin that records every verdict oracles.score / score_one returns and
    every category tests/oracle_judges.stance returns, in test order.
`--pin` writes the small fixture tests/oracles/test_oracle_verdicts_pinned.py checks (every PIN_EVERY-th labelled
reply, both modes); regenerate it only when a rule changes a verdict on purpose. The embedding methods
are left out: their matchers are not what a restructure of the rules touches,
and they cost minutes. Write the files outside the repository (several MB; the same code gives the
same file, byte for byte).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("HARNESS_DATA_DIR", str(ROOT.parent / "shared" / "data"))

from oracle_speed import labelled  # noqa: E402
from oracle_speed import synthetic as synthetic_pairs  # noqa: E402

from harness.core.records import Probe, Reply, Verdict  # noqa: E402
from harness.oracles import score  # noqa: E402

MEANING_TESTS = ("test_oracle_rules_meaning.py", "test_oracle_stance_meaning.py", "test_oracle_choice_meaning.py",
                 "test_oracle_relevance.py", "test_oracles_rules.py")
MODES = (("default", False), ("compat", True))
PIN_EVERY = 10  # the pinned fixture holds every 10th labelled reply (262 of 2,614)


def labelled_pairs() -> list[tuple[Probe, Reply]]:
    """Every hand-labelled reply (2,614 when this was written), in file order."""
    return labelled(sorted(DATA.glob("labelled_*.jsonl")))


def cbbq_pairs() -> list[tuple[Probe, Reply]]:
    """The CBBQ parser's labelled answers as cbbq probes (target A, non-target B)."""
    out = []
    for n, line in enumerate((DATA / "cbbq_answers.jsonl").read_text(encoding="utf-8").splitlines()):
        if line.strip():
            row = json.loads(line)
            probe = Probe.make("snapshot-cbbq", "zh", "cbbq", "ambiguous", f"q{n}",
                               options=row["options"], meta={"polarity": "neg" if n % 2 else "nonneg",
                                                             "target": 0, "non_target": 1})
            out.append((probe, Reply(probe.id, "cbbq", row["reply"])))
    return out


def _row(v: Verdict) -> dict:
    return v.to_dict()


def score_sets(synthetic: int) -> dict[str, list[dict]]:
    sets = {"labelled": labelled_pairs(), "cbbq": cbbq_pairs(), "synthetic": synthetic_pairs(synthetic, seed=7)}
    out: dict[str, list[dict]] = {}
    for name, pairs in sets.items():
        for mode, compat in MODES:
            verdicts = score(pairs, method="default", compat=compat, workers=1)
            out[f"{name}/{mode}"] = [_row(v) for v in verdicts]
            print(f"{name}/{mode}: {len(verdicts)} verdicts", file=sys.stderr)
    return out


class _Recorder:
    """pytest plugin: wraps oracles.score / score_one and oracle_judges.stance before the test modules
    import them, and records what they return."""

    def __init__(self) -> None:
        import harness.oracles as oracles

        sys.path.insert(0, str(ROOT / "tests"))
        import oracle_judges

        self.rows: list[dict] = []
        oracles.score = self._wrap(oracles.score, "score")
        oracles.score_one = self._wrap(oracles.score_one, "score_one")
        oracle_judges.stance = self._wrap(oracle_judges.stance, "stance")

    def _wrap(self, fn: Callable, name: str) -> Callable:
        def recorded(*args, **kwargs):
            result = fn(*args, **kwargs)
            if name == "score":
                entries = list(args[0]) if args else []
                kwargs = {k: v for k, v in kwargs.items() if k != "workers"}
                out = [_row(v) for v in result]
                self.rows.append({"call": name, "kwargs": kwargs, "n": len(entries), "verdicts": out})
            elif name == "score_one":
                self.rows.append({"call": name, "kwargs": kwargs, "verdict": _row(result)})
            else:
                self.rows.append({"call": name, "args": [list(a) if isinstance(a, tuple) else a for a in args],
                                  "kwargs": kwargs, "category": result})
            return result

        return recorded


def meaning_rows() -> list[dict]:
    """Run the oracle meaning tests here, recording their verdicts (see the module docstring)."""
    import pytest

    recorder = _Recorder()
    files = [str(ROOT / "tests" / "oracles" / f) for f in MEANING_TESTS]
    code = pytest.main(["-q", "-p", "no:cacheprovider", "--no-header", "-o", "addopts=", *files], plugins=[recorder])
    print(f"meaning tests: exit {int(code)}, {len(recorder.rows)} oracle calls recorded", file=sys.stderr)
    return recorder.rows


def pin(path: Path) -> int:
    """Write the pinned fixture: per sampled labelled reply, its probe id and both modes' verdicts as
    [label, biased, favoured, score, method, evidence]."""
    pairs = labelled_pairs()[::PIN_EVERY]
    verdicts = {mode: score(pairs, compat=compat, workers=1) for mode, compat in MODES}
    lines = []
    for n, (probe, _reply) in enumerate(pairs):
        row = {"id": probe.id}
        for mode, _compat in MODES:
            v = verdicts[mode][n]
            row[mode] = [v.label, v.biased, v.favoured, v.score, v.method, v.evidence]
        lines.append(json.dumps(row, ensure_ascii=False))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(pairs)} replies, {len(pairs) * len(MODES)} verdicts pinned in {path}", file=sys.stderr)
    return 0


def count(snapshot: dict) -> int:
    n = sum(len(rows) for key, rows in snapshot.items() if key != "meaning")
    for row in snapshot.get("meaning", []):
        n += len(row["verdicts"]) if row["call"] == "score" else 1
    return n


def diff(a_path: Path, b_path: Path) -> int:
    """Print the differences between two snapshots; the exit code is 1 when there are any."""
    a = json.loads(a_path.read_text(encoding="utf-8"))
    b = json.loads(b_path.read_text(encoding="utf-8"))
    differences = 0
    for key in sorted(set(a) | set(b)):
        rows_a, rows_b = a.get(key, []), b.get(key, [])
        if len(rows_a) != len(rows_b):
            print(f"{key}: {len(rows_a)} rows before, {len(rows_b)} after")
            differences += abs(len(rows_a) - len(rows_b))
        for n, (ra, rb) in enumerate(zip(rows_a, rows_b, strict=False)):
            if ra != rb:
                differences += 1
                if differences <= 20:
                    print(f"{key}[{n}]:\n  before {json.dumps(ra, ensure_ascii=False)[:600]}\n"
                          f"  after  {json.dumps(rb, ensure_ascii=False)[:600]}")
    print(f"{count(a)} verdicts before, {count(b)} after, {differences} differences")
    return 1 if differences else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="write the snapshot here (outside the repository)")
    ap.add_argument("--synthetic", type=int, default=5000, help="how many synthetic replies to add")
    ap.add_argument("--no-meaning", action="store_true", help="leave out the meaning tests' sentences")
    ap.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two snapshots")
    ap.add_argument("--pin", type=Path, metavar="FIXTURE", help="write the pinned fixture of the verdicts test")
    args = ap.parse_args(argv)
    if args.diff:
        return diff(*args.diff)
    if args.pin:
        return pin(args.pin)
    if args.out is None:
        ap.error("give --out FILE or --diff BEFORE AFTER")
    snapshot: dict = score_sets(args.synthetic)
    if not args.no_meaning:
        snapshot["meaning"] = meaning_rows()
    args.out.write_text(json.dumps(snapshot, ensure_ascii=False, indent=0, sort_keys=True), encoding="utf-8")
    print(f"{count(snapshot)} verdicts written to {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
