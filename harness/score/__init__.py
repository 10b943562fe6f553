"""Scoring a run folder: the oracle over its transcript, the metric families over the verdicts, the
settings a scoring was made with, and human review labels applied on top. Imports run/ for the
transcript and manifest, never reports, gates or the command line.

The readers this package ships register themselves when it is imported (harness.core.kinds.Reader):
harness.score.political, the political judge's reading of continuations.
"""

from harness.score import political as _political  # noqa: F401 - registers its reader
