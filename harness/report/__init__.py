"""What a person reads: the terminal summary, report.html, plots, and the comparison of runs."""
