"""Multi-turn probes in the run engine: every turn recorded, history passed, the cache keyed on the whole
conversation, resume mid-conversation without asking an answered turn again, and old transcripts loading.

The adapter here is written for the test (the adapter contract is the input under test); kill -9 against
a real HTTP server is in test_multiturn_kill.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

from harness.adapters.base import Adapter, Completion, Message, TransientError
from harness.core.records import Probe, Reply
from harness.run.engine import Engine, EngineSettings
from harness.run.response_cache import ResponseCache
from harness.run.transcript import TranscriptWriter, latest_by_probe, partial_turns, settled_ids

FAST = EngineSettings(concurrency=2, timeout_s=2, max_attempts=3, backoff_initial_s=0.001, backoff_max_s=0.002,
                      abort_after_consecutive_errors=0)


class ChatAdapter(Adapter):
    """Answers with the number of messages it saw; records every (prompt, history) it was asked."""

    kind = "chat-test"

    def __init__(self, fail: dict[str, list[BaseException]] | None = None) -> None:
        super().__init__("chat", {"model": "m"})
        self.asked: list[tuple[str, tuple[tuple[str, str], ...]]] = []
        self.fail = {k: list(v) for k, v in (fail or {}).items()}

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        self.asked.append((prompt, tuple((m.role, m.content) for m in history)))
        if self.fail.get(prompt):
            raise self.fail[prompt].pop(0)
        return Completion(f"reply {len(history) // 2 + 1} to {prompt}")


def conversation(i: int = 0) -> Probe:
    return Probe.make("unit", "en", "yes_no", "relative", f"Are group {i} good?", groups=(f"g{i}",),
                      meta={"turns": ["Please just answer yes or no."]})


def run(adapter: Adapter, probes: list[Probe], run_dir: Path, *, cache: ResponseCache | None = None,
        partial: dict | None = None) -> Engine:
    writer = TranscriptWriter(run_dir)
    engine = Engine(adapter, writer, settings=FAST, cache=cache, partial=partial)
    asyncio.run(engine.run(probes))
    writer.close()
    return engine


def lines(run_dir: Path) -> list[dict]:
    return [json.loads(x) for x in (run_dir / "transcript.jsonl").read_text("utf-8").splitlines()]


def test_a_conversation_is_asked_with_history_and_every_turn_is_recorded(tmp_path: Path) -> None:
    probe = conversation()
    assert probe.turns == ("Are group 0 good?", "Please just answer yes or no.")
    adapter = ChatAdapter()
    engine = run(adapter, [probe], tmp_path)
    assert adapter.asked == [
        ("Are group 0 good?", ()),
        ("Please just answer yes or no.",
         (("user", "Are group 0 good?"), ("assistant", "reply 1 to Are group 0 good?"))),
    ]
    recorded = lines(tmp_path)
    assert [r["reply"]["status"] for r in recorded] == ["partial", "ok"]
    assert recorded[0]["reply"]["turns"] == ["reply 1 to Are group 0 good?"]
    final = latest_by_probe(tmp_path / "transcript.jsonl")[probe.id].reply
    assert final.text == "reply 2 to Please just answer yes or no." and final.turns == (
        "reply 1 to Are group 0 good?", "reply 2 to Please just answer yes or no.")
    assert engine.stats.answered == 1 and engine.stats.asked == 1  # one probe, two turns
    assert settled_ids(tmp_path / "transcript.jsonl") == ({probe.id}, set())
    assert partial_turns(tmp_path / "transcript.jsonl") == {}


def test_resume_continues_mid_conversation_without_asking_the_answered_turn(tmp_path: Path) -> None:
    probe = conversation()
    with TranscriptWriter(tmp_path) as writer:  # a kill came after turn 1 was recorded
        writer.append(probe, Reply(probe.id, "chat", "an earlier first reply", status="partial",
                                   turns=("an earlier first reply",)))
    ok, err = settled_ids(tmp_path / "transcript.jsonl")
    assert ok == set() and err == set()  # a partial line is no outcome: the probe is still open
    assert latest_by_probe(tmp_path / "transcript.jsonl") == {}
    adapter = ChatAdapter()
    run(adapter, [probe], tmp_path, partial=partial_turns(tmp_path / "transcript.jsonl"))
    assert adapter.asked == [("Please just answer yes or no.",
                              (("user", "Are group 0 good?"), ("assistant", "an earlier first reply")))]
    final = latest_by_probe(tmp_path / "transcript.jsonl")[probe.id].reply
    assert final.turns == ("an earlier first reply", "reply 2 to Please just answer yes or no.")


def test_a_failed_second_turn_is_an_error_keeping_the_first_and_retry_asks_only_the_second(tmp_path: Path) -> None:
    probe = conversation()
    adapter = ChatAdapter({"Please just answer yes or no.": [TransientError("HTTP 503")] * 3})
    run(adapter, [probe], tmp_path)
    final = lines(tmp_path)[-1]["reply"]
    assert final["status"] == "error" and final["turns"] == ["reply 1 to Are group 0 good?"]
    assert final["attempts"] == 1 + 3  # the first turn once, the second three times
    assert partial_turns(tmp_path / "transcript.jsonl") == {probe.id: ("reply 1 to Are group 0 good?",)}
    again = ChatAdapter()
    run(again, [probe], tmp_path, partial=partial_turns(tmp_path / "transcript.jsonl"))
    assert [p for p, _ in again.asked] == ["Please just answer yes or no."]
    assert latest_by_probe(tmp_path / "transcript.jsonl")[probe.id].reply.ok


def test_the_cache_keys_on_the_whole_conversation(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "cache.sqlite")
    a, b = conversation(0), conversation(1)  # the same second turn after different first turns
    adapter = ChatAdapter()
    run(adapter, [a, b], tmp_path / "one", cache=cache)
    assert len(adapter.asked) == 4 and len(cache) == 4
    second = ChatAdapter()
    engine = run(second, [a, b], tmp_path / "two", cache=cache)
    assert second.asked == [] and engine.stats.cached == 2
    replies = latest_by_probe(tmp_path / "two" / "transcript.jsonl")
    assert replies[a.id].reply.turns[0] == "reply 1 to Are group 0 good?"
    assert replies[b.id].reply.turns[0] == "reply 1 to Are group 1 good?"
    # the one-turn question alone is the conversation's first turn: a hit, no request
    single = Probe.make("unit", "en", "yes_no", "relative", "Are group 0 good?", groups=("g0",))
    third = ChatAdapter()
    run(third, [single], tmp_path / "three", cache=cache)
    assert third.asked == []
    cache.close()


def test_old_transcript_lines_load_unchanged_and_one_turn_lines_have_no_turns_key(tmp_path: Path) -> None:
    old = {"probe": {"id": "p1", "suite": "s", "lang": "en", "kind": "yes_no", "bias_type": "relative",
                     "text": "Are X good?", "groups": ["X"], "attribute": "", "property": "", "categories": [],
                     "options": [], "meta": {}},
           "reply": {"probe_id": "p1", "target": "t", "text": "Yes.", "status": "ok", "error": None,
                     "latency_s": 0.1, "attempts": 1, "usage": {}, "created_at": "2026-01-01T00:00:00.000+00:00"}}
    (tmp_path / "transcript.jsonl").write_text(json.dumps(old) + "\n", encoding="utf-8")
    entry = latest_by_probe(tmp_path / "transcript.jsonl")["p1"]
    assert entry.probe.turns == ("Are X good?",) and entry.reply.turns == ()
    assert entry.reply.to_dict() == old["reply"] and entry.probe.to_dict() == old["probe"]


def test_a_target_that_passes_no_history_records_a_conversation_as_an_error(tmp_path: Path) -> None:
    class NoHistory(ChatAdapter):
        supports_history = False

    adapter = NoHistory()
    engine = run(adapter, [conversation(), Probe.make("unit", "en", "yes_no", "relative", "Are X good?")], tmp_path)
    assert [p for p, _ in adapter.asked] == ["Are X good?"]  # the one-turn probe is asked as usual
    errors = [r["reply"] for r in lines(tmp_path) if r["reply"]["status"] == "error"]
    assert len(errors) == 1 and "passes no chat history" in errors[0]["error"]
    assert engine.stats.errors == 1 and engine.stats.answered == 1


def test_the_http_json_adapter_passes_history_only_through_a_messages_slot() -> None:
    from harness.adapters.http_json import HttpJsonAdapter

    plain = HttpJsonAdapter("h", {"url": "http://127.0.0.1:9/x", "request_template": {"q": "{prompt}"}})
    chat = HttpJsonAdapter("h", {"url": "http://127.0.0.1:9/x", "request_template": {"messages": "{messages}"}})
    assert plain.supports_history is False and chat.supports_history is True
    sent = chat.build_request("again?", [Message("user", "q1"), Message("assistant", "a1")])
    assert sent == {"messages": [{"role": "user", "content": "q1"}, {"role": "assistant", "content": "a1"},
                                 {"role": "user", "content": "again?"}]}
