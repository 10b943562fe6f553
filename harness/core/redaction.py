"""Keep secrets out of anything written or shown: whole keys, and the shortened forms servers echo back.

Providers quote the key they were sent in error bodies, and not only in 401s and not only whole: OpenAI
answers a wrong key with `Incorrect API key provided: sk-SENTI****6789` (an HTTP 400 from some
compatible servers), others write `sk-...6789`, and a proxy's 429 or 500 may carry either. A prefix plus
the last four characters is enough to tell which key of a team's set leaked, so such a fragment is a
secret too. `mask_secrets` removes, for every configured secret value:

* the value itself;
* a *shortened form*: a word made of a start of the secret (possibly empty), a run of two or more mask
  characters (`*`, `.`, `…`, `•`, `x`/`X` runs of three or more), and an end of the secret (possibly
  empty), which reveals at least three characters of the key's end or six of its start;
* any run of 8 or more consecutive characters of the secret inside a word (a cut-off echo such as
  `sk-SENTINEL-q8Xw3...`).

and, whatever the configured secrets, anything key-shaped: `sk-` followed by 8+ key characters, a
shortened `sk-` key (`sk-...6789`, `sk-ab12****wxyz`), and the token after `Bearer`.

Every error reason, the command line in the manifest and an unexpected exception's message pass through
here (harness.run.manifest.redact and harness.adapters.transport.redact are this function).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "***"

#: A word that may hold a key: key characters and mask characters, nothing else.
_WORD = re.compile(r"[A-Za-z0-9_\-+/=.*…•]+")
#: One run of mask characters inside such a word.
_MASK_RUN = re.compile(r"\*{2,}|\.{2,}|…+|•+|[xX]{3,}")
_MIN_FRAGMENT = 8  # consecutive characters of a secret that count as a leak of it
_MIN_SUFFIX = 3
_MIN_PREFIX = 6

# Key-shaped tokens (sk-..., Bearer xyz) are masked even when we were not told they are secrets.
_KEY_PATTERNS = [
    re.compile(r"\bsk-[A-Za-z0-9_\-]*(?:\*{2,}|\.{2,}|…|•+)[A-Za-z0-9_\-]*"),  # shortened: sk-...6789
    re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._\-]{8,}"),
]


def _is_shortened_form(word: str, secret: str) -> bool:
    """start-of-secret + mask run + end-of-secret, revealing enough of the key to identify it."""
    for mask in _MASK_RUN.finditer(word):
        head, tail = word[: mask.start()], word[mask.end():].rstrip(".")
        if head and not secret.startswith(head):
            continue
        if tail and not secret.endswith(tail):
            continue
        if len(tail) >= _MIN_SUFFIX or len(head) >= _MIN_PREFIX:
            return True
    return False


def _fragments(secret: str) -> set[str]:
    return {secret[i: i + _MIN_FRAGMENT] for i in range(len(secret) - _MIN_FRAGMENT + 1)}


def _holds_fragment(word: str, fragments: set[str]) -> bool:
    return any(word[i: i + _MIN_FRAGMENT] in fragments for i in range(len(word) - _MIN_FRAGMENT + 1))


def mask_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every configured secret, every recognisable piece of one, and anything key-shaped
    replaced by ***."""
    usable = [s for s in secrets if s and len(s) >= 4]
    for secret in usable:
        text = text.replace(secret, REDACTED)
    long_secrets = [(s, _fragments(s)) for s in usable if len(s) >= _MIN_FRAGMENT]
    if long_secrets:
        def check(match: re.Match[str]) -> str:
            word = match.group()
            for secret, fragments in long_secrets:
                if _is_shortened_form(word, secret) or _holds_fragment(word, fragments):
                    return REDACTED + ("." if word.endswith(".") and not word.endswith("..") else "")
            return word

        text = _WORD.sub(check, text)
    for pattern in _KEY_PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.groups() else "") + REDACTED, text)
    return text
