"""Planted bots for the end-to-end refusal and decision tests: a real OpenAI-compatible HTTP server on 127.0.0.1
whose replies follow a policy the test plants, and the `harness run` against it.

Why one module: the refusal-disparity, pair-refusal, decision-audit and decision-refusal tests each wrote the
same suite file, scripted server, targets.toml and run-directory lookup, and the same prompt hash; a change to
the target format or the CLI's run is now made once. Each test says only its suite, its bot and its gates.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from adapter_servers import Reply, Request, scripted_server

from harness.cli import main

#: (prompt, its hash in [0, 1)) -> reply text
Policy = Callable[[str, float], str]


def unit_hash(text: str) -> float:
    """`text`'s blake2b hash read as a number in [0, 1): a bot's fixed "random" draw, so each run is stable."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") / 2**64


def prompt_of(request: Request) -> str:
    """The last message of a chat-completions request: the question the harness asked."""
    return json.loads(request.body)["messages"][-1]["content"]


def chat_reply(text: str) -> Reply:
    """A chat-completions response whose one choice says `text`."""
    body = {"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}
    return Reply(200, json.dumps(body).encode())


def prompt_bot(policy: Policy) -> Callable[[Request], Reply]:
    """A server handler that answers each prompt with policy(prompt, unit_hash(prompt))."""

    def answer(request: Request) -> Reply:
        prompt = prompt_of(request)
        return chat_reply(policy(prompt, unit_hash(prompt)))

    return answer


#: (the candidate's group, the case's merit u, the prompt's hash v) -> reply text
DecisionPolicy = Callable[[str, float, float], str]


def decision_bot(group_of: dict[str, tuple[str, int]], policy: DecisionPolicy) -> Callable[[Request], Reply]:
    """A server handler for a run_builders.decision_suite run: it reads the candidate's first name, looks up
    (group, place in its name list) in `group_of` and answers policy(group, u, v). The merit u hashes the case
    and the place, so it is the same for every variant of one counterfactual set (a bot that judges the case,
    then applies a group's own threshold); v hashes the whole prompt (a draw of its own, e.g. a refusal)."""

    def answer(request: Request) -> Reply:
        prompt = prompt_of(request)
        name, case = prompt.split(" ", 1)[0], prompt.split("opening number ", 1)[1].split(";", 1)[0]
        group, place = group_of[name]
        return chat_reply(policy(group, unit_hash(f"{case}/{place}"), unit_hash(prompt)))

    return answer


@dataclass
class PlantedRun:
    """What `harness run` against a planted bot left: its exit code, run directory and the requests it sent."""

    code: int
    run_dir: Path
    requests: int

    def document(self) -> dict:
        """The run's metrics.json (metrics, intervals, counts, tables)."""
        return json.loads((self.run_dir / "metrics.json").read_text("utf-8"))

    def metrics(self) -> dict:
        """The run's metrics.json "metrics"."""
        return self.document()["metrics"]


def planted_run(run_env: Path, name: str, suite: str, bot: Callable[[Request], Reply], args: Sequence[str]
                ) -> PlantedRun:
    """`harness run --suite <name>.yaml --target <name> *args` in `run_env` (conftest's run_env fixture: the
    cwd), the suite text `suite`, the target an OpenAI-compatible server at 127.0.0.1 that answers with `bot`."""
    suite_file = run_env / f"{name}.yaml"
    suite_file.write_text(suite, encoding="utf-8")
    with scripted_server() as srv:
        base = srv.route(f"/{name}", bot)
        (run_env / "targets.toml").write_text(f'[targets.{name}]\nadapter = "openai"\nmodel = "planted"\n'
                                              f'base_url = "{base}/v1"\nconcurrency = 8\n', encoding="utf-8")
        code = main(["run", "--suite", str(suite_file), "--target", name, *args])
    run_dir = next(p for p in (run_env / "transcripts").iterdir() if name in p.name)
    return PlantedRun(code, run_dir, len(srv.requests))
