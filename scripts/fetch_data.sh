#!/usr/bin/env bash
# Fetch the pinned upstream data sets (BiasAsker, CBBQ, CHBias, SGD, BBQ, CrowS-Pairs) into the data directory
# ($HARNESS_DATA_DIR, else the user cache directory) when it does not already hold them. `harness data pull`
# keeps a file only when its sha256 is the one data_registry.json pins, so a broken download never stays.
# Called by scripts/setup.sh; safe to run again. It never fails the setup: when a set cannot be fetched
# (offline, a firewall) one line says which, and the suites and tests that need it are skipped until
# `harness data pull NAME` succeeds. HARNESS_DATA_MIRROR points the pull at another server with the same
# layout. Usage: bash scripts/fetch_data.sh [NAME ...]   (default: every data set the suites read)
set -uo pipefail
cd "$(dirname "$0")/.."
HARNESS=${HARNESS_BIN:-.venv/bin/harness}
unfetched=""
SETS=("$@")
[ ${#SETS[@]} -gt 0 ] || SETS=(biasasker cbbq chbias sgd bbq crows-pairs)
for ds in "${SETS[@]}"; do
  "$HARNESS" data verify "$ds" >/dev/null 2>&1 && continue
  "$HARNESS" data pull "$ds" >/dev/null 2>&1 || unfetched="$unfetched $ds"
done
if [ -n "$unfetched" ]; then
  echo "note: could not fetch the data sets$unfetched into $("$HARNESS" data path 2>/dev/null) (offline?); their suites and tests are skipped until 'harness data pull NAME' succeeds" >&2
fi
exit 0
