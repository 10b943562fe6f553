"""Write question_gen/builtin/suite_counts.json: the counts `harness suites` lists for the suites that read a data set.

Why shipped: counting them reads and analyses the data (BBQ's templates, BiasAsker's full set through spaCy, the
SGD split perturbed), seconds warm and a minute from a cold cache (issue 38; question_gen/shipped_counts.py says
when a shipped number is used). Run with every data set pulled, after changing a generator or before a release.
Usage: HARNESS_DATA_DIR=... .venv/bin/python scripts/ship_suite_counts.py [--check]   (--check: exit 1 if stale)
"""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    from harness.question_gen import shipped_counts
    from harness.question_gen.suites import builtin_suites

    table: dict[str, dict[str, object]] = {}
    for suite in builtin_suites():
        if suite.method:  # a plugin's suite: its package ships its own numbers, if any
            continue
        key = shipped_counts.suite_key(suite.name, suite.generator, suite.spec)
        if key is None or not shipped_counts._pins(suite.generator):
            continue  # its data set is not here, or it reads none (counted in no time)
        start = time.process_time()
        table[suite.name] = {"key": key, "counts": suite.counts()}
        print(f"{suite.name}: {sum(table[suite.name]['counts'].values()):,} probes "  # type: ignore[union-attr]
              f"({time.process_time() - start:.1f} CPU s)", file=sys.stderr)
    payload = {"made_by": "scripts/ship_suite_counts.py", "suites": table}
    path = shipped_counts.SHIPPED
    if "--check" in sys.argv[1:]:
        current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
        if current != payload:
            print(f"{path} is stale: run `.venv/bin/python scripts/ship_suite_counts.py`", file=sys.stderr)
            return 1
        print(f"{path}: current ({len(table)} suites)")
        return 0
    path.write_text(json.dumps(payload, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{path}: {len(table)} suites")
    return 0


if __name__ == "__main__":
    sys.exit(main())
