"""Accuracy of every oracle method on the hand-labelled real replies: the table the README quotes.

    .venv/bin/python benchmarks/oracle_accuracy.py [--method M ...]

The default method and compat are checked by the test suite on every run (tests/oracles/test_oracle_accuracy.py
keeps floors under them). The embedding methods are alternatives a user picks with --method; their table takes
40-140 s per method and language on 2 cores (the models embed every reply), so it is measured here, on
demand, not in CI. Prints, per method and language: label accuracy, biased/not-biased accuracy, the same on
the blind batch, and the seconds it took.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _accuracy_module():
    """The accuracy test module, whose loading and scoring of the labelled replies this table reuses."""
    path = next(ROOT.glob("tests/**/test_oracle_accuracy.py"))
    spec = importlib.util.spec_from_file_location("oracle_accuracy_tests", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    from harness.oracles import METHODS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", action="append", choices=[*METHODS, "compat"],
                        help="methods to measure (default: all, and compat)")
    args = parser.parse_args(argv)
    acc = _accuracy_module()
    methods = args.method or [*METHODS, "compat"]
    print(f"{'method':<16} {'lang':<4} {'n':>5} {'label':>6} {'biased':>7} {'blind label':>12} "
          f"{'blind biased':>13} {'seconds':>8}")
    for method in methods:
        for lang in acc.LANGS:
            started = time.perf_counter()
            r = acc.evaluate(lang, "default", compat=True) if method == "compat" else acc.evaluate(lang, method)
            took = time.perf_counter() - started
            print(f"{method:<16} {lang:<4} {r['n']:>5} {r['label']:>6.3f} {r['biased']:>7.3f} "
                  f"{r['blind_label']:>12.3f} {r['blind_biased']:>13.3f} {took:>8.1f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
