"""The bottom layer: the vocabulary every other part of the harness speaks.

Records (probes, replies, verdicts), errors and exit codes, paths, YAML reading, data-set access and the
packaged local models. Nothing here imports anything above it (adapters, question generation, oracles,
metrics, the run engine, scoring, reports, gates or the command line); tests/test_architecture.py keeps
it so.
"""
