"""Size and power of every family's "beyond chance" statement and default gate, by simulation.

    .venv/bin/python benchmarks/gate_size_power.py [--quick] [--draws N] [--seed S] [--match TEXT]

Each row of harness.metrics.gate_size draws runs as a bot produces them (under the statement's null, and at
a stated effect), runs the family's own test on them and prints the share rejected at 5%: the size and the
power. The estimate gates' rows (exact binomial, sup over ...) are exact sums over every outcome, whatever the
draws. The table in docs/reports.md ("Size and power of every gate") is this script's output. --quick uses
400 draws per cell (about a minute on a busy 2-core machine); the default, 4000 (size within about +-0.7
points). The last line gives the wall and CPU seconds and the load average it ran at.
"""

from __future__ import annotations

import argparse
import math
import os
import time

from harness.metrics.gate_size import ROWS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="400 draws per cell instead of 4000")
    parser.add_argument("--draws", type=int, default=None, help="draws per cell (overrides --quick)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--match", default="", help="only the rows whose family or statement holds this text")
    args = parser.parse_args()
    draws = args.draws or (400 if args.quick else 4000)
    start, cpu = time.perf_counter(), time.process_time()
    print(f"draws per cell: {draws} (size's binomial error at 5%: +-{math.sqrt(0.05 * 0.95 / draws):.3f})")
    print("| family | statement | design | null | size | effect | power |")
    print("|---|---|---|---|---:|---|---:|")
    for i, row in enumerate(ROWS):
        if args.match and args.match not in f"{row.family} {row.statement}":
            continue
        size = row.run(draws, args.seed + 2 * i, True)
        power = row.run(draws, args.seed + 2 * i + 1, False)
        print(f"| {row.family} | {row.statement} | {row.design} | {row.null} | {size:.3f} | {row.effect} | "
              f"{power:.3f} |", flush=True)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"({time.perf_counter() - start:.0f} s wall, {time.process_time() - cpu:.0f} s CPU, load average {load})")


if __name__ == "__main__":
    main()
