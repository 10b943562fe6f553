"""Pass/fail for CI: --fail-above / --fail-below gates, stored baselines, fairness files and the pytest plugin."""
