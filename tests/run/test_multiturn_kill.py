"""kill -9 in the middle of a multi-turn `harness run -p mutate=pressure`, then the same command again.

A real OpenAI-compatible server on 127.0.0.1 (written here) counts every conversation it is asked (the
whole messages list) and answers second turns slowly, so the kill lands with conversations cut after
their first turn. Proves: every complete line is valid JSON, no line written before the kill is lost or
rewritten, no answered turn is asked again (each recorded first turn's conversation reaches the server
no more often after the resume than before it), each cut conversation ends with the reply recorded
before the kill as its first turn, and the run ends with one outcome per probe. --no-cache, so the
resume cannot hide a repeat request behind the response cache.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HARNESS = str(Path(sys.executable).with_name("harness"))
N = 12


class ChatServer:
    """/v1/chat/completions: answers 'reply to <last message> (<n> messages)', second turns after 0.4 s."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802 - stdlib naming
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                messages = [m for m in body["messages"] if m["role"] != "system"]
                with owner.lock:
                    owner.asked[json.dumps(messages, ensure_ascii=False)] += 1
                if len(messages) > 1:
                    time.sleep(0.4)
                text = f"reply to {messages[-1]['content']} ({len(messages)} messages)"
                out = json.dumps({"id": "x", "object": "chat.completion", "model": body["model"],
                                  "choices": [{"index": 0, "finish_reason": "stop",
                                               "message": {"role": "assistant", "content": text}}],
                                  "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        class Quiet(ThreadingHTTPServer):
            def handle_error(self, request: object, client_address: object) -> None:
                return  # a client killed mid-request (the point of the test) is not a server fault

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def complete_lines(path: Path) -> list[bytes]:
    data = path.read_bytes() if path.exists() else b""
    return data[: data.rfind(b"\n") + 1].splitlines(keepends=True)


def cut_conversations(lines: list[bytes]) -> dict[str, dict]:
    """Partial lines whose probe has no final line yet."""
    records = [json.loads(x) for x in lines]
    final = {r["probe"]["id"] for r in records if r["reply"]["status"] != "partial"}
    return {r["probe"]["id"]: r for r in records if r["reply"]["status"] == "partial" and r["probe"]["id"] not in final}


def test_kill9_mid_conversation_loses_no_answered_turn(run_env: Path) -> None:
    server = ChatServer()
    try:
        (run_env / "targets.toml").write_text(
            f'[targets.chat]\nadapter = "openai"\nmodel = "chat"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        cmd = [HARNESS, "run", "--suite", "builtin-en", "--sample", str(N), "--seed", "5", "-p", "mutate=pressure",
               "--target", "chat", "--concurrency", "4", "--no-cache", "--no-report", "--no-progress"]
        proc = subprocess.Popen(cmd, cwd=run_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        transcript = None
        while True:
            assert proc.poll() is None, "the run ended before the kill"
            assert time.monotonic() < deadline, "no conversation was ever cut after its first turn"
            found = list((run_env / "transcripts").glob("*/transcript.jsonl"))
            if found:
                transcript = found[0]
                if cut_conversations(complete_lines(transcript)):
                    break
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        before = complete_lines(transcript)
        cut = cut_conversations(before)
        assert cut, "the kill came after every conversation ended"
        asked_before = Counter(server.asked)
        second = subprocess.run(cmd, cwd=run_env, capture_output=True, text=True, timeout=300)
        assert second.returncode == 0, second.stdout + second.stderr
    finally:
        server.close()
    run_dir = transcript.parent
    lines = transcript.read_bytes().splitlines(keepends=True)
    assert lines[: len(before)] == before  # nothing written before the kill was lost or rewritten
    records = [json.loads(x) for x in lines]
    finals = [r for r in records if r["reply"]["status"] != "partial"]
    assert all(r["reply"]["status"] == "ok" for r in finals)
    ids = Counter(r["probe"]["id"] for r in finals)
    assert len(ids) == 2 * N and set(ids.values()) == {1}  # N bases + N pressure variants, once each
    by_id = {r["probe"]["id"]: r for r in finals}
    answered_before = {json.loads(x)["probe"]["id"] for x in before if json.loads(x)["reply"]["status"] == "ok"}
    for pid, partial in cut.items():
        first_turn = [{"role": "user", "content": partial["probe"]["text"]}]
        key = json.dumps(first_turn, ensure_ascii=False)
        # The same first message is also the base question (asked alone): it may be asked once more if the
        # base had no answer at the kill; the variant's answered first turn is never asked again.
        base_open = partial["probe"]["meta"]["metamorphic"]["base"] not in answered_before
        assert server.asked[key] == asked_before[key] + int(base_open)
        done = by_id[pid]["reply"]
        assert done["turns"][0] == partial["reply"]["text"] and len(done["turns"]) == 2
        follow_up = partial["probe"]["meta"]["turns"][0]  # "Please just answer yes or no." (or the choice form)
        assert done["text"] == done["turns"][1] == f"reply to {follow_up} (3 messages)"
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["counts"]["answered"] == 2 * N
