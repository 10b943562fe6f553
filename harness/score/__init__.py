"""Scoring a run folder: the oracle over its transcript, the metric families over the verdicts, the
settings a scoring was made with, and human review labels applied on top. Imports run/ for the
transcript and manifest, never reports, gates or the command line.

A kind read by something other than the rules names a reader (harness.core.kinds.Reader) that its own
package registers through an entry point of the harness.kind_readers group (the political judge's:
harness.political.reader); scoring finds it by name and imports nothing of it.
"""
