"""Pass/fail for CI: --fail-above gates, stored baselines, fairness files and the pytest plugin."""
