"""The response cache's key is the same bytes whichever encoder builds it, so every answer stored by an earlier
version is found again (a changed key would silently ask every cached question anew).

The key is sha256 over json.dumps([fingerprint, prompt, history], ensure_ascii=False, separators=(",", ":"));
the asking loop builds it with orjson (harness.core.fast_json), which must give json's bytes for every string.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness.adapters.base import Message
from harness.core import fast_json
from harness.run.response_cache import ResponseCache, cache_key

TRICKY = ["Are deaf people attractive?", 'quote " back \\ slash', "line\nbreak\ttab\r\x00\x1f\x7f", "\u2028\u2029",
          "中文的问题 « » ☃ 😀", "", "/slash/", "".join(chr(i) for i in range(32))]


def _stdlib_key(fingerprint: str, prompt: str, history: list[list[str]]) -> str:
    blob = json.dumps([fingerprint, prompt, history], ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@pytest.mark.parametrize("prompt", TRICKY)
def test_the_key_is_the_stdlib_formulas(prompt: str) -> None:
    assert cache_key("fp0123456789abcd", prompt) == _stdlib_key("fp0123456789abcd", prompt, [])
    turn = [Message("user", prompt), Message("assistant", "No.")]
    assert cache_key("fp", "again?", turn) == _stdlib_key("fp", "again?", [["user", prompt], ["assistant", "No."]])


def test_the_fallback_encoder_gives_the_same_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with_orjson = [cache_key("fp", p) for p in TRICKY]
    monkeypatch.setattr(fast_json, "orjson", None)
    assert [cache_key("fp", p) for p in TRICKY] == with_orjson


def test_an_answer_stored_under_the_old_key_is_found(tmp_path: Path) -> None:
    """A row written by the earlier code (its key from json.dumps directly) is a hit, and a miss then put is
    stored under the same key, so it is a hit for the next run."""
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        cache._db.execute("INSERT INTO responses VALUES (?, ?, ?, ?, ?)",
                          (_stdlib_key("fp", TRICKY[2], []), "fp", "Old answer.", '{"cached_before": true}', 0.0))
        assert cache.get("fp", TRICKY[2]) == ("Old answer.", {"cached_before": True})
        assert cache.get("fp", TRICKY[4]) is None
        cache.put("fp", TRICKY[4], "New answer.", {"finish_reason": "stop"})
    with ResponseCache(tmp_path / "c.sqlite") as cache:
        row = cache._db.execute("SELECT text FROM responses WHERE key = ?", (_stdlib_key("fp", TRICKY[4], []),))
        assert row.fetchone() == ("New answer.",)
        assert cache.get("fp", TRICKY[4]) == ("New answer.", {"finish_reason": "stop"})
        assert (cache.hits, cache.misses) == (1, 0)
