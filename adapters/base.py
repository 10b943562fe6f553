"""The one interface every target implements.

Adapters know transport, not bias: they turn a prompt into text and classify what went wrong. Retries,
timeouts, rate limits and bookkeeping belong to the run engine (harness.run.engine), so a new adapter is a
few dozen lines and behaves like every other one under faults.

Failure contract: `ask` returns a Completion or raises
  * TransientError  - worth retrying (429, 5xx, timeout, dropped connection); may carry retry_after seconds;
  * PermanentError  - retrying cannot help (401, 400, malformed response, empty content).
Any other exception is treated by the runner as transient.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

#: Settings that change how we talk to a target but not what it answers; excluded from fingerprints so
#: a longer timeout or a bigger batch does not invalidate the response cache.
TRANSPORT_KEYS = frozenset({"timeout_s", "batch_size", "concurrency", "rpm", "max_connections", "threads",
                            "n_threads", "http_client"})


def settings_fingerprint(kind: str, settings: Mapping[str, Any]) -> str:
    """Hash of what changes the answer: adapter kind plus settings minus transport-only keys."""
    relevant = {k: v for k, v in settings.items() if k not in TRANSPORT_KEYS}
    blob = json.dumps({"kind": kind, **relevant}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Message:
    role: str  # "system" | "user" | "assistant"
    content: str


@dataclass(frozen=True, slots=True)
class Completion:
    text: str
    usage: dict[str, Any] = field(default_factory=dict)


class AdapterError(Exception):
    """Base for transport failures. `reason` is one line, safe to store in a transcript (no secrets)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class TransientError(AdapterError):
    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class PermanentError(AdapterError):
    pass


class Adapter:
    """Base class for targets. Subclasses set `kind` and implement `ask` (and optionally `ask_batch`).

    `settings` are the public target settings (model, endpoint, temperature, ...). Secrets are passed
    separately and must never be put in `settings`, `fingerprint()` or an error message.
    """

    kind: ClassVar[str] = "base"
    #: What the target's configuration calls the model (a preset's model_label, else its model setting), set by
    #: harness.adapters.registry.create_adapter; reports show it first and the model file's own name as detail.
    label: str = ""
    #: True when ask_batch() is cheaper than concurrent ask() calls (local models batch on one device).
    supports_batch: ClassVar[bool] = False
    #: False when ask() cannot hand `history` (the earlier turns of a conversation, as Message values) on to
    #: the target: a task pipeline, an http request template without a "{messages}" slot. The run engine
    #: then records a multi-turn probe (Probe.turns) as an error with that reason instead of asking its later
    #: turns without their context.
    supports_history: ClassVar[bool] = True

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None) -> None:
        self.name = name
        self.settings: dict[str, Any] = dict(settings or {})

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        raise NotImplementedError

    async def ask_batch(self, prompts: Sequence[str]) -> list[Completion]:
        return [await self.ask(p) for p in prompts]

    def fingerprint(self) -> str:
        """Identifies everything that changes the answer (kind + settings minus transport knobs such as
        timeouts and batch sizes), for the response cache."""
        return settings_fingerprint(self.kind, self.settings)

    def __repr__(self) -> str:
        # Secrets are never in `settings` (they are passed to adapters separately), so this is safe to log.
        return f"{type(self).__name__}(name={self.name!r}, settings={self.public_settings()!r})"

    def public_settings(self) -> dict[str, Any]:
        """Settings safe to write to a manifest or report."""
        return dict(self.settings)

    def model_info(self) -> dict[str, Any]:
        """The model under test as exactly as this adapter can name it, for the manifest and the report:
        {"name", "source", ...}. Here the `model` setting (what was asked for; an API may serve a dated
        snapshot of it); local adapters read the name from the model file itself (harness.core.model_files)."""
        model = str(self.settings.get("model") or self.name)
        return {"name": model, "source": "the target's model setting"}

    async def aclose(self) -> None:
        return None
