"""`harness view`: a local web app over a transcripts folder (browse, compare and review runs).

One module per job:
  folder.py   the transcripts folder: which sub-folders are runs, their summaries, safe name -> path lookups
  index.py    a run's findings as an SQLite index built once per version of its files (paging on the server)
  review.py   the review bridge: the same labels, sample and reviews.jsonl as `harness review`, plus undo
  compare.py  N runs side by side (harness.report.leaderboard) and one probe's replies across runs
  api.py      the JSON endpoints the pages (and scripts) read
  security.py headers (strict Content-Security-Policy), the token for a non-loopback host, host and CSRF
              checks
  app.py      the Starlette application and the uvicorn server
  static/     the pages: HTML shells and their scripts (no inline script; data goes in with textContent)
"""
