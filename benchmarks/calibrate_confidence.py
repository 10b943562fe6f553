"""Write harness/judge/calibration.json: the rules' accuracy per reading path on the tuned batches (1-5).

    .venv/bin/python benchmarks/calibrate_confidence.py [--data tests/data] [--check]

Run it after a change to the rules (the oracle) that changes a verdict on batches 1-5;
tests/judge/test_judge_confidence.py fails until the shipped file equals a fresh measurement. `--check` only
compares and exits 1 on a difference. The blind batches 6-9 are never read here: they are the test.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from harness.judge.confidence import CALIBRATION_FILE
from harness.judge.labelled import calibration_doc


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=None, help="tests/data of the source checkout")
    parser.add_argument("--check", action="store_true", help="compare with the shipped file, write nothing")
    args = parser.parse_args(argv)
    doc = calibration_doc(args.data)
    counts = ",\n".join(f"  {json.dumps(k, ensure_ascii=False)}: {json.dumps(v)}" for k, v in doc["counts"].items())
    head = json.dumps({k: v for k, v in doc.items() if k != "counts"}, ensure_ascii=False, indent=1)
    text = head[:-2] + ',\n "counts": {\n' + counts + "\n }\n}\n"  # one path per line: diffs stay readable
    if args.check:
        same = json.loads(CALIBRATION_FILE.read_text("utf-8"))["counts"] == doc["counts"]
        print("calibration.json is current" if same else "calibration.json is stale: run without --check")
        return 0 if same else 1
    CALIBRATION_FILE.write_text(text, encoding="utf-8")
    print(f"wrote {CALIBRATION_FILE} ({len(doc['counts'])} paths, rules {doc['rules']})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
