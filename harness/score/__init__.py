"""Scoring a run folder: the oracle over its transcript, the metric families over the verdicts, the
settings a scoring was made with, and human review labels applied on top. Imports run/ for the
transcript and manifest, never reports, gates or the command line."""
