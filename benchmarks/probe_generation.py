"""Benchmark: stream the FULL English BiasAsker data set's relative-bias probes and report speed and memory.

What it streams: every group of the full data set (1,262) x every property that has a usable antonym
(the paper's asked side; antonyms that are not predicates are dropped) x the paper's 4 relative
questions = about 32.5 million probes, built
lazily one tuple at a time (nothing materialises the product). Each probe is a complete `Probe` with its
stable id, text and meta, exactly what a run would send. `--absolute` also streams the absolute-bias
probes of a per-attribute sample (`--groups-per-attribute`, default 10) of the full set.

    .venv/bin/python benchmarks/probe_generation.py                 # the full relative stream
    .venv/bin/python benchmarks/probe_generation.py --max 2000000   # a quick run

Prints probes, wall and CPU seconds, probes/s (per wall second and per CPU second: on a shared machine the CPU
figure is the one that says what the code costs), the load average, and peak RSS (resource.getrusage, includes
the spaCy model used once to tag the 6,832 properties; tagging time is reported separately).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux reports KiB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max", type=int, default=None, help="stop after this many probes")
    parser.add_argument("--absolute", action="store_true", help="also stream sampled absolute probes")
    parser.add_argument("--groups-per-attribute", type=int, default=10)
    args = parser.parse_args(argv)

    from harness.question_gen import biasasker_suite as bs

    spec = {"lang": "en", "catalog": "biasasker-full", "property_side": "antonym",
            "bias_types": ["relative"]}
    t0 = time.perf_counter()
    bs.count_by_type(spec)  # loads the catalog and tags every property once (cached)
    prep_s = time.perf_counter() - t0
    print(f"prepare (load data set + tag properties once): {prep_s:.1f} s, peak RSS {peak_rss_mb():.0f} MB",
          flush=True)

    streams = [("relative, full data set", spec)]
    if args.absolute:
        streams.append((f"absolute, {args.groups_per_attribute} groups/attribute",
                        {**spec, "bias_types": ["absolute"],
                         "sampling": {"groups_per_attribute": args.groups_per_attribute}}))
    for label, s in streams:
        expected = bs.count(s)
        n = 0
        last_id = ""
        t0, c0 = time.perf_counter(), time.process_time()
        for probe in bs.generate(s, "bench"):
            n += 1
            last_id = probe.id
            if args.max is not None and n >= args.max:
                break
        dt, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"{label}: {n:,} of {expected:,} probes in {dt:.1f} s wall = {n / dt:,.0f} probes/s "
              f"({cpu:.1f} s CPU = {n / cpu:,.0f} probes per CPU-second); peak RSS {peak_rss_mb():.0f} MB; "
              f"load average {os.getloadavg()[0]:.1f} (last id {last_id})", flush=True)
    return 0


if __name__ == "__main__":
    from harness.core.errors import HarnessError

    try:
        sys.exit(main())
    except HarnessError as exc:  # e.g. the data set is not pulled: one sentence, not a traceback
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(exc.exit_code)
