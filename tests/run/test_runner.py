"""Unit tests of the run engine's parts: retries, timeouts, cache, resume bookkeeping, manifest, rate limit.

These use small Adapter subclasses written here (the adapter contract is the unit under test's input);
the same engine is exercised end to end against real HTTP servers and a real model in test_faults.py,
test_kill_resume.py, test_secrets.py and test_run_e2e.py.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import pytest

from harness.adapters.base import Adapter, Completion, Message, PermanentError, TransientError
from harness.cli.run import estimate_tokens
from harness.core.errors import HarnessError
from harness.core.records import Probe
from harness.run import manifest as mf
from harness.run.engine import Engine, EngineSettings
from harness.run.execute import run_suite, scan_transcript
from harness.run.ratelimit import TokenBucket
from harness.run.response_cache import ResponseCache
from harness.run.transcript import TranscriptWriter, latest_by_probe, read_entries

FAST = EngineSettings(concurrency=4, timeout_s=0.5, max_attempts=3, backoff_initial_s=0.001,
                      backoff_max_s=0.002, abort_after_consecutive_errors=0)


def probes(n: int, suite: str = "unit") -> list[Probe]:
    return [Probe.make(suite, "en", "yes_no", "relative", f"Is group {i} good, right?", groups=(f"g{i}",))
            for i in range(n)]


class ScriptedAdapter(Adapter):
    """Fails each prompt according to a script of exceptions, then answers; counts every call."""

    kind = "scripted"

    def __init__(self, script: dict[str, list[BaseException]] | None = None, *, delay: float = 0.0,
                 **settings: object) -> None:
        super().__init__("scripted", {"model": "m", **settings})
        self.script = {k: list(v) for k, v in (script or {}).items()}
        self.calls: Counter[str] = Counter()
        self.delay = delay

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        self.calls[prompt] += 1
        if self.delay:
            await asyncio.sleep(self.delay)
        pending = self.script.get(prompt)
        if pending:
            raise pending.pop(0)
        return Completion(text=f"yes: {prompt}", usage={"completion_tokens": 2})


class BatchAdapter(ScriptedAdapter):
    kind = "batchy"
    supports_batch = True

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    async def ask_batch(self, prompts: Sequence[str]) -> list[Completion]:
        self.batches.append(len(prompts))
        return [Completion(text=f"batch: {p}") for p in prompts]


def run_engine(adapter: Adapter, items: list[Probe], tmp_path: Path, *, settings: EngineSettings = FAST,
               cache: ResponseCache | None = None) -> Engine:
    writer = TranscriptWriter(tmp_path / "run")
    engine = Engine(adapter, writer, settings=settings, cache=cache)
    asyncio.run(engine.run(items))
    writer.close()
    return engine


def test_transient_errors_are_retried_and_permanent_ones_are_not(tmp_path: Path) -> None:
    ps = probes(4)
    adapter = ScriptedAdapter({
        ps[0].text: [TransientError("HTTP 503"), TransientError("HTTP 429", retry_after=0.01)],
        ps[1].text: [PermanentError("HTTP 401: bad key")],
        ps[2].text: [TransientError("HTTP 500")] * 3,  # more failures than attempts
        ps[3].text: [ConnectionResetError("peer reset")],  # unexpected exceptions count as transient
    })
    engine = run_engine(adapter, ps, tmp_path)
    latest = latest_by_probe(tmp_path / "run" / "transcript.jsonl")
    r0, r1, r2, r3 = (latest[p.id].reply for p in ps)
    assert r0.ok and r0.attempts == 3 and r0.text == f"yes: {ps[0].text}"
    assert not r1.ok and r1.attempts == 1 and r1.error == "HTTP 401: bad key"
    assert adapter.calls[ps[1].text] == 1
    assert not r2.ok and r2.attempts == 3 and r2.error == "HTTP 500" and r2.text == ""
    assert r3.ok and r3.attempts == 2
    assert engine.stats.answered == 2 and engine.stats.errors == 2
    assert engine.stats.error_reasons == Counter({"HTTP 401: bad key": 1, "HTTP 500": 1})


def test_first_failure_is_retried_by_tenacity_with_its_wait_and_attempt_cap(tmp_path: Path) -> None:
    """The first attempt runs outside tenacity; its failure must still get tenacity's full treatment."""
    ps = probes(3)
    throttled = TransientError("HTTP 429", retry_after=0.3)
    adapter = ScriptedAdapter({ps[0].text: [throttled], ps[1].text: [TransientError("HTTP 500")] * 5,
                               ps[2].text: [TransientError("HTTP 503")]})
    run_engine(adapter, ps, tmp_path)
    latest = latest_by_probe(tmp_path / "run" / "transcript.jsonl")
    r0, r1, r2 = (latest[p.id].reply for p in ps)
    assert r0.ok and r0.attempts == 2 and r0.usage["waited_s"] >= 0.3  # Retry-After of attempt 1 honoured
    assert not r1.ok and r1.attempts == 3 and adapter.calls[ps[1].text] == 3  # capped at max_attempts
    assert r2.ok and r2.attempts == 2 and adapter.calls[ps[2].text] == 2  # the failure is not asked twice
    # With a single attempt allowed, a transient first failure is final and asked once.
    single = ScriptedAdapter({ps[0].text: [TransientError("HTTP 500")]})
    one_shot = EngineSettings(concurrency=1, max_attempts=1, abort_after_consecutive_errors=0)
    run_engine(single, ps[:1], tmp_path / "single", settings=one_shot)
    reply = latest_by_probe(tmp_path / "single" / "run" / "transcript.jsonl")[ps[0].id].reply
    assert not reply.ok and reply.attempts == 1 and single.calls[ps[0].text] == 1


def test_timeout_becomes_an_error_with_reason(tmp_path: Path) -> None:
    adapter = ScriptedAdapter(delay=5)
    settings = EngineSettings(concurrency=2, timeout_s=0.05, max_attempts=2, backoff_initial_s=0.001,
                              backoff_max_s=0.001)
    engine = run_engine(adapter, probes(2), tmp_path, settings=settings)
    replies = [e.reply for e in read_entries(tmp_path / "run" / "transcript.jsonl")]
    assert [r.status for r in replies] == ["error", "error"]
    assert all(r.error == "timeout: no answer within 0.05 s" and r.attempts == 2 for r in replies)
    assert engine.stats.errors == 2


def test_wait_honours_retry_after_over_backoff() -> None:
    engine = Engine(ScriptedAdapter(), None, settings=EngineSettings(backoff_initial_s=0.01, backoff_max_s=0.02))  # type: ignore[arg-type]

    class State:
        attempt_number = 1

        class outcome:  # noqa: N801 - mimics tenacity's RetryCallState
            @staticmethod
            def exception() -> BaseException:
                return TransientError("HTTP 429", retry_after=7.5)

    assert engine._wait(State()) == 7.5  # type: ignore[arg-type]
    State.outcome.exception = staticmethod(lambda: TransientError("HTTP 500"))  # type: ignore[method-assign]
    waited = engine._wait(State())  # type: ignore[arg-type]
    assert 0.005 <= waited <= 0.01


def test_cancel_propagates_and_writes_nothing_half_done(tmp_path: Path) -> None:
    adapter = ScriptedAdapter(delay=10)
    writer = TranscriptWriter(tmp_path / "run")
    engine = Engine(adapter, writer, settings=FAST)

    async def main() -> None:
        task = asyncio.ensure_future(engine.run(probes(5)))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    writer.close()
    assert (tmp_path / "run" / "transcript.jsonl").read_bytes() == b""
    assert sum(adapter.calls.values()) == FAST.concurrency  # only the requests in flight, no retries


def test_cache_serves_repeats_and_never_stores_errors(tmp_path: Path) -> None:
    ps = probes(3)
    cache_file = tmp_path / "cache.sqlite"
    adapter = ScriptedAdapter({ps[2].text: [PermanentError("empty content")]})
    with ResponseCache(cache_file) as cache:
        run_engine(adapter, ps, tmp_path, cache=cache)
    with ResponseCache(cache_file) as cache:  # a new process would see the same file
        assert len(cache) == 2
        assert cache.get(adapter.fingerprint(), ps[2].text) is None
        engine = run_engine(adapter, ps[:2], tmp_path / "again", cache=cache)
    assert adapter.calls[ps[0].text] == 1  # served from the cache the second time
    assert engine.stats.cached == 2
    replies = [e.reply for e in read_entries(tmp_path / "again" / "run" / "transcript.jsonl")]
    assert all(r.usage.get("cached") is True and r.ok for r in replies)
    # A different setting is a different fingerprint, so no stale answers.
    other = ScriptedAdapter(temperature=0.7)
    with ResponseCache(cache_file) as cache:
        assert cache.get(other.fingerprint(), ps[0].text) is None


def test_batched_adapter_gets_batches(tmp_path: Path) -> None:
    adapter = BatchAdapter()
    settings = EngineSettings(concurrency=1, batch_size=4, timeout_s=5)
    engine = run_engine(adapter, probes(10), tmp_path, settings=settings)
    assert engine.stats.answered == 10
    assert sum(adapter.batches) == 10 and max(adapter.batches) <= 4 and len(adapter.batches) >= 3
    texts = [e.reply.text for e in read_entries(tmp_path / "run" / "transcript.jsonl")]
    assert all(t.startswith("batch: ") for t in texts)


def test_circuit_breaker_stops_a_dead_target(tmp_path: Path) -> None:
    ps = probes(200)
    adapter = ScriptedAdapter({p.text: [PermanentError("HTTP 401: bad key")] for p in ps})
    settings = EngineSettings(concurrency=2, max_attempts=1, abort_after_consecutive_errors=10)
    writer = TranscriptWriter(tmp_path / "run")
    engine = Engine(adapter, writer, settings=settings)
    with pytest.raises(Exception, match="last 10 requests all failed"):
        asyncio.run(engine.run(ps))
    writer.close()
    assert engine.stats.errors < 30  # stopped after about 10, not 200


def test_scan_transcript_agrees_with_latest_by_probe(tmp_path: Path) -> None:
    from harness.core.records import Reply

    ps = probes(4)
    with TranscriptWriter(tmp_path) as w:
        w.append(ps[0], Reply(ps[0].id, "t", "", status="error", error="x"))
        w.append(ps[0], Reply(ps[0].id, "t", "yes"))
        w.append(ps[1], Reply(ps[1].id, "t", "yes"))
        w.append(ps[1], Reply(ps[1].id, "t", "", status="error", error="later error never wins"))
        w.append(ps[2], Reply(ps[2].id, "t", "", status="error", error="x"))
    with (tmp_path / "transcript.jsonl").open("ab") as fh:
        fh.write(b'{"probe": {"id": "' + ps[3].id.encode() + b'"')  # torn tail
    ok, err = scan_transcript(tmp_path / "transcript.jsonl")
    latest = latest_by_probe(tmp_path / "transcript.jsonl")
    assert ok == {pid for pid, e in latest.items() if e.reply.ok} == {ps[0].id, ps[1].id}
    assert err == {pid for pid, e in latest.items() if not e.reply.ok} == {ps[2].id}


def test_run_suite_resumes_and_retries_only_errors(run_env: Path) -> None:
    ps = probes(30)
    flaky = {p.text: [PermanentError("HTTP 400: nope")] for p in ps[:5]}
    adapter = ScriptedAdapter(flaky)
    first = run_suite("unit-suite", adapter, probes=ps, engine=FAST, show_progress=False, use_cache=False,
                      argv=["harness", "run"])
    assert first.status == "complete" and first.mode == "fresh"
    assert first.run_counts == {"answered": 25, "errors": 5, "selected": 30, "pending": 0}
    man = json.loads((first.run_dir / "manifest.json").read_text())
    assert man["suite"] == "unit-suite" and man["target"] == "scripted" and man["adapter"] == "scripted"
    assert man["settings"] == {"model": "m"} and man["status"] == "complete" and man["ended_at"]
    assert man["versions"]["python"] and man["fingerprint"] == adapter.fingerprint()
    assert man["versions"]["harness"] == metadata.version("harness-bias")  # the harness's own, from its dist
    assert first.run_dir.name == "unit-suite__scripted__all"

    # Same command again: nothing is asked twice.
    again = run_suite("unit-suite", adapter, probes=ps, engine=FAST, show_progress=False, use_cache=False)
    assert again.mode == "resume" and again.stats.asked == 0 and again.stats.skipped == 30
    assert all(adapter.calls[p.text] == 1 for p in ps)

    # --retry-errors asks the five errored probes only, and they now succeed (script exhausted).
    retry = run_suite("unit-suite", adapter, probes=ps, engine=FAST, show_progress=False, use_cache=False,
                      retry_errors=True)
    assert retry.mode == "retry-errors" and retry.stats.asked == 5 and retry.stats.answered == 5
    assert retry.run_counts["answered"] == 30 and retry.run_counts["errors"] == 0
    assert [adapter.calls[p.text] for p in ps[:6]] == [2, 2, 2, 2, 2, 1]
    man = json.loads((first.run_dir / "manifest.json").read_text())
    assert [s["mode"] for s in man["sessions"]] == ["fresh", "resume", "retry-errors"]
    assert len(latest_by_probe(first.transcript_path)) == 30


def test_run_suite_refuses_to_mix_settings(run_env: Path) -> None:
    ps = probes(3)
    run_suite("unit-suite", ScriptedAdapter(), probes=ps, engine=FAST, show_progress=False, use_cache=False)
    with pytest.raises(HarnessError, match="settings changed"):
        run_suite("unit-suite", ScriptedAdapter(temperature=1.0), probes=ps, engine=FAST, show_progress=False)
    fresh = run_suite("unit-suite", ScriptedAdapter(temperature=1.0), probes=ps, engine=FAST,
                      show_progress=False, new=True, use_cache=False)
    assert fresh.run_dir.name.startswith("unit-suite__scripted__all__") and fresh.stats.asked == 3


def test_token_bucket_never_exceeds_its_rate() -> None:
    async def main() -> float:
        bucket = TokenBucket(1200, burst=1)  # 20 per second
        start = time.monotonic()
        for _ in range(6):
            await bucket.acquire()
        return time.monotonic() - start

    assert asyncio.run(main()) >= 5 / 20 * 0.95  # the first is free, the next five wait 50 ms each


def test_redaction_and_run_ids() -> None:
    key = "sk-test-SENTINEL0123456789"
    assert key not in mf.redact(f"Incorrect API key provided: {key}.", [key])
    assert "sk-proj-abcdefgh12345" not in mf.redact("got sk-proj-abcdefgh12345 back")
    assert "Bearer ***" in mf.redact("Authorization: Bearer abcdefghijkl")
    assert mf.default_run_id("biasasker-en", "local", sample=200, seed=0) == "biasasker-en__local__s200-seed0"
    assert mf.default_run_id("suites/my suite.yaml", "x/y", limit=5) == "my-suite__x-y__all-l5"


def test_token_estimate_counts_chinese_per_character() -> None:
    assert estimate_tokens("为什么女人更聪明？") == 9 + 4
    assert estimate_tokens("Why are women smarter?") == (22 + 3) // 4 + 4


def test_dry_run_counts_tokens_and_cost_without_a_key(run_env: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cli import main

    monkeypatch.delenv("PRICY_KEY", raising=False)
    (run_env / "targets.toml").write_text(
        '[targets.pricy]\nadapter = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n'
        'api_key_env = "PRICY_KEY"\nmax_tokens = 100\nprice = { input_per_1k = 1.0, output_per_1k = 2.0 }\n',
        encoding="utf-8")
    assert main(["run", "--suite", "builtin-zh", "--target", "pricy", "--limit", "30", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "probes selected: 30" in out and "to ask now: 30" in out
    assert "up to 3,000 out" in out and "estimated cost: at most" in out
    assert not (run_env / "transcripts").exists()  # a dry run creates nothing
    # The real run needs the key: one sentence naming the variable, exit 2, still no run folder.
    assert main(["run", "--suite", "builtin-zh", "--target", "pricy", "--limit", "30"]) == 2
    assert "PRICY_KEY" in capsys.readouterr().err
    assert not (run_env / "transcripts").exists()


def test_usage_mistakes_are_one_sentence(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    assert main(["run", "--target", "local"]) == 2
    assert "--suite" in capsys.readouterr().err
    assert main(["run", "--resume", "no-such-run"]) == 2
    assert "No run 'no-such-run'" in capsys.readouterr().err
    assert main(["run", "--suite", "builtin-en", "--target", "nope"]) == 2
    assert "Unknown target 'nope'" in capsys.readouterr().err


def test_a_run_folder_is_asked_by_one_process_at_a_time(run_env: Path) -> None:
    import multiprocessing

    from harness.run.session import run_lock

    ps = probes(3)
    first = run_suite("unit-suite", ScriptedAdapter(), probes=ps[:1], engine=FAST, show_progress=False,
                      use_cache=False)
    ready, release = multiprocessing.Event(), multiprocessing.Event()

    def hold() -> None:  # another process holding the run, as a second `harness run` would
        with run_lock(first.run_dir):
            ready.set()
            release.wait(30)

    other = multiprocessing.get_context("fork").Process(target=hold)
    other.start()
    try:
        assert ready.wait(30)
        with pytest.raises(HarnessError, match="another harness process"):
            run_suite("unit-suite", ScriptedAdapter(), probes=ps, engine=FAST, show_progress=False)
    finally:
        release.set()
        other.join(30)
    again = run_suite("unit-suite", ScriptedAdapter(), probes=ps, engine=FAST, show_progress=False,
                      use_cache=False)
    assert again.stats.asked == 2  # the lock died with its holder; the run resumed normally


def test_runs_lists_run_folders_newest_first(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    assert main(["runs"]) == 0
    assert "No runs" in capsys.readouterr().out
    ps = probes(4)
    run_suite("older-suite", ScriptedAdapter(), probes=ps, engine=FAST, show_progress=False, use_cache=False)
    run_suite("newer-suite", ScriptedAdapter({ps[0].text: [PermanentError("HTTP 400")]}), probes=ps,
              engine=FAST, show_progress=False, use_cache=False)
    assert main(["runs"]) == 0
    out = capsys.readouterr().out
    assert out.index("newer-suite__scripted__all") < out.index("older-suite__scripted__all")
    assert "complete" in out
