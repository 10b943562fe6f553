"""Running a suite against a target: planning a run, the async engine, the transcript, the manifest, the
response cache, rate limiting, progress and the log-likelihood answer mode. Imports the layers below
(core, adapters, question generation) and nothing above (scoring, reports, gates, the command line)."""
