"""Liu et al.'s political bias (AAAI 2021) with reinforced calibration: the method's own package.

The political suites' continuations are read by a judge of P(conservative) instead of the rules, and
`harness calibrate` measures what reinforced calibration does to an open model. The package holds all of
the method the generic layers must not name:

  judge              the pluggable judge of P(conservative) (f_judge of the paper) and its score cache
  reader             scoring's reader of the political kind ("political-judge", harness.core.kinds.Reader)
  calibration_table  `harness calibrate`'s measuring: the calibrated model at several lambdas (Table 3)
  cli                the `harness calibrate` command

Nothing in the harness imports it: the reader and the command are reached through their entry points in
pyproject.toml (harness.kind_readers, harness.commands), exactly as another package's would be, so it sits
above every layer (tests/test_architecture.py). The metric family (harness.metrics.political), the suites'
generator (harness.question_gen.political) and the calibration algorithm (harness.whitebox.calibration)
stay in their layers: each is an ordinary member of its registry.
"""
