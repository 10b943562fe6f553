"""The response cache's look-ahead (issue 38): the asking loop looks a group of questions up in one query, and
what get() then answers is exactly what a lookup of its own would have answered."""

from __future__ import annotations

from pathlib import Path

from harness.run.response_cache import ResponseCache


def _selects(cache: ResponseCache) -> list[str]:
    """Every SELECT the cache's own SQLite connection runs from now on (sqlite3's trace callback)."""
    seen: list[str] = []
    cache._db.set_trace_callback(lambda sql: seen.append(sql) if sql.lstrip().upper().startswith("SELECT") else None)
    return seen


def test_prefetched_questions_are_answered_without_a_query_each(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "r.sqlite") as cache:
        for i in range(0, 1200, 3):  # every third question answered before
            cache.put("fp", f"q{i}", f"a{i}", {"prompt_tokens": i})
        cache.flush()
        selects = _selects(cache)
        cache.prefetch("fp", [f"q{i}" for i in range(1200)])
        assert len(selects) == 3  # 1,200 keys in groups of 500
        got = [cache.get("fp", f"q{i}") for i in range(1200)]
        assert len(selects) == 3  # no query per question
    assert got[0] == ("a0", {"prompt_tokens": 0}) and got[3] == ("a3", {"prompt_tokens": 3})
    assert got[1] is None and got[2] is None
    assert sum(g is not None for g in got) == 400 and cache.hits == 400 and cache.misses == 800


def test_an_answer_put_after_the_lookup_is_seen(tmp_path: Path) -> None:
    """The same words asked twice in one run: the second get sees the first answer, committed or not."""
    with ResponseCache(tmp_path / "r.sqlite", commit_every=1) as cache:
        cache.prefetch("fp", ["same words", "other"])
        assert cache.get("fp", "same words") is None
        cache.put("fp", "same words", "answer", {})  # committed at once (commit_every=1)
        assert cache.get("fp", "same words") == ("answer", {})
    with ResponseCache(tmp_path / "r2.sqlite") as cache:
        cache.prefetch("fp", ["pending"])
        cache.put("fp", "pending", "not yet committed", {})
        assert cache.get("fp", "pending") == ("not yet committed", {})


def test_a_lookup_is_used_once_and_other_fingerprints_are_apart(tmp_path: Path) -> None:
    with ResponseCache(tmp_path / "r.sqlite") as cache:
        cache.put("fp", "q", "a", {})
        cache.flush()
        cache.prefetch("fp", ["q"])
        cache.prefetch("fp", ["q"])  # looked up already: no second entry
        assert cache.get("fp", "q") == ("a", {})
        selects = _selects(cache)
        assert cache.get("fp", "q") == ("a", {}) and len(selects) == 1  # the second get asks the database again
        assert cache.get("other-fp", "q") is None
