"""A fingerprint of the oracle's rules, so two scorings can tell whether the same rules read their replies.

The harness version is bumped by hand and says nothing about a rule edited since; comparing two runs, or a
run against a CI baseline, needs to know whether a change in the numbers can come from the oracle. The
fingerprint is a hash of the oracle's own source (every .py file under oracles/, lexicons included), so
any edit to a rule, a word list or a threshold changes it, and a reinstall of the same code does not.
Two files are left out because they decide no verdict: measured.py (the report's note quoting the
measured accuracy, re-worded or re-measured with every blind batch) and this file. Hashing them made
two runs scored by the very same rules read "scored by different oracle rules".

Because it hashes source, not behaviour, a change of layout changes it too. Session 6 restructured the
package into readers over shared reading code (docs/oracles.md, "Restructured into readers"): the
fingerprint moved on from f25703298fb3, on purpose and once, while not one verdict changed (16,235
verdicts compared field by field before and after every step, and 80,000 more on spliced replies).
Runs scored on either side of it read the same replies the same way; re-score one to compare them
without the warning.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_ROOT = Path(__file__).resolve().parent
#: Source files of the oracle package that decide no verdict (paths relative to the package).
NOT_RULES = frozenset({"fingerprint.py", "measured.py"})


@lru_cache(maxsize=1)
def rules_fingerprint() -> str:
    """12 hex digits of sha256 over the oracle package's source files but NOT_RULES (relative path and
    bytes, in path order). Line endings are normalised, so a Windows checkout of the same code gives the
    same value."""
    digest = hashlib.sha256()
    for path in sorted(p for p in _ROOT.rglob("*.py")
                       if "__pycache__" not in p.parts and p.relative_to(_ROOT).as_posix() not in NOT_RULES):
        digest.update(path.relative_to(_ROOT).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
        digest.update(b"\0")
    return digest.hexdigest()[:12]
