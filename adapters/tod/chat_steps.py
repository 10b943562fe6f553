"""The reference pipeline's model steps: one chat model prompted as API-call model and as response writer.

Any chat target serves (`chat_target`, default the offline `local-zh` Qwen model): the steps only send it
a user message. The prompts are short on purpose (a small CPU model reads every token): the service's
intents with their required and optional slots, the last turns of the dialogue, and the instruction.

The API-call model answers one line of JSON; small models bend it ({"method": FindRestaurants, ...}
without quotes, a trailing comment), so `parse_call` reads what it can: the intent (one of the
service's, matched case- and underscore-insensitively) and every "slot": "value" pair of a known slot.
An answer with no known intent is "no call" (None), recorded as such, never an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from harness.adapters.base import Adapter

_PAIR = re.compile(r'"?([A-Za-z_]+)"?\s*:\s*"([^"\n]*)"')
_METHOD = re.compile(r'"?method"?\s*:\s*"?([A-Za-z_]+)"?', re.IGNORECASE)


@dataclass(frozen=True)
class TurnRequest:
    """What a pipeline step sees of one turn: the service, its schema, the dialogue so far, the language."""

    service: str
    history: Sequence[Sequence[str]]  # [speaker, utterance] pairs, the user's turn last
    schema: Mapping[str, Any] = field(default_factory=dict)
    lang: str = "en"


def _norm(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


def intents(schema: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return list(schema.get("intents") or [])


def describe_service(request: TurnRequest) -> str:
    lines = []
    for intent in intents(request.schema):
        optional = ", ".join(intent.get("optional_slots") or {})
        lines.append(f"- {intent['name']}({', '.join(intent.get('required_slots') or [])}"
                     f"{'; optional: ' + optional if optional else ''})")
    return "\n".join(lines) or f"- (the intents of {request.service})"


def conversation(history: Sequence[Sequence[str]]) -> str:
    return "\n".join(f"{speaker}: {text}" for speaker, text in history)


def parse_call(text: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
    """{"method", "parameters"} read from a model's answer, or None when it names no intent of the service."""
    names = {_norm(i["name"]): i["name"] for i in intents(schema)}
    slots = {s["name"] for s in schema.get("slots") or []}
    found = _METHOD.search(text)
    method = names.get(_norm(found.group(1))) if found else None
    if method is None:
        method = next((names[n] for n in sorted(names, key=len, reverse=True) if n and n in _norm(text)), None)
    if method is None:
        return None
    params = {}
    for slot, value in _PAIR.findall(text):
        if slot.lower() != "method" and (slot in slots or not slots) and value.strip():
            params[slot] = value.strip()
    return {"method": method, "parameters": params}


def format_call(call: Mapping[str, Any] | None) -> str:
    if not call:
        return "none"
    params = ", ".join(f"{k}={v}" for k, v in (call.get("parameters") or {}).items())
    return f"{call['method']}({params})"


def format_rows(rows: Sequence[Mapping[str, Any]], shown: int) -> str:
    if not rows:
        return "no results"
    parts = ["; ".join(f"{k}={v}" for k, v in row.items()) for row in rows[:shown]]
    return f"{len(rows)} found, first {min(shown, len(rows))}:\n" + "\n".join(f"- {p}" for p in parts)


class ChatApiCall:
    """API-call model: the chat model writes the call as JSON."""

    name = "chat"

    def __init__(self, chat: Adapter) -> None:
        self.chat = chat

    def prompt(self, request: TurnRequest) -> str:
        return (f"You turn a conversation into one API call of the service {request.service}.\n"
                f"Intents (required slots; optional slots):\n{describe_service(request)}\n"
                f"Conversation:\n{conversation(request.history)}\n"
                'Answer with one line of JSON, {"method": "<intent>", "parameters": {"<slot>": "<value from the '
                'conversation>"}}, and nothing else.')

    async def __call__(self, request: TurnRequest) -> dict[str, Any] | None:
        answer = await self.chat.ask(self.prompt(request))
        return parse_call(answer.text, request.schema)


class ChatResponse:
    """Response generator: the chat model writes the assistant's reply from the call and the rows."""

    name = "chat"

    def __init__(self, chat: Adapter, shown: int = 3) -> None:
        self.chat = chat
        self.shown = shown

    def prompt(self, request: TurnRequest, call: Mapping[str, Any] | None, rows: Sequence[Mapping[str, Any]]) -> str:
        return (f"You are the virtual assistant of the service {request.service}.\n"
                f"Conversation:\n{conversation(request.history)}\n"
                f"API call: {format_call(call)}\nResults: {format_rows(rows, self.shown)}\n"
                "Write the assistant's next reply to the user in one or two short sentences.")

    async def __call__(self, request: TurnRequest, call: Mapping[str, Any] | None,
                       rows: Sequence[Mapping[str, Any]]) -> str:
        answer = await self.chat.ask(self.prompt(request, call, rows))
        return answer.text.strip()


def call_key(call: Mapping[str, Any] | None) -> str:
    return json.dumps(call, sort_keys=True, ensure_ascii=False)
