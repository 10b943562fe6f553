"""The `pipeline` target kind: a task-oriented dialogue system whose three steps are visible and replaceable.

    API-call model      TurnRequest (service, schema, history) -> {"method", "parameters"} or None
    database            query(call, service, substitution=None, protect_entities=True) -> rows
    response generator  (TurnRequest, call, rows) -> reply text

It answers the requests of the `sgd-tod` suite (question_gen/tod.py), each a JSON document naming
the dialogue so far, which database to ask (the original one, or the simulated one holding the rows
perturbed like the dialogue) and where the API call comes from (the model, or the model's call for the
original dialogue with the substitution applied: step 3 of the attribution). The reply is the response
generator's text; what the steps did (the call, how many rows) goes to the reply's usage, so the
transcript shows every step.

Settings (targets.toml):
    adapter = "pipeline"
    chat_target = "local-zh"       # the chat model of the reference steps (any target)
    api_call = "chat"              # or "module:attr", or the name of a `harness.pipeline_steps` entry point
    database = "sgd"               # the SQLite database of the split's service results (adapters/tod/sgd_db.py)
    response = "chat"
    data = "/path/to/sgd/test"     # default $HARNESS_DATA_DIR/sgd/test
    rows_shown = 3, api_max_tokens = 48, response_max_tokens = 48
    chat_settings = { n_threads = 1 }   # settings of the chat target for these steps (a busy CPU: 1 thread)
A step given as "module:attr" (or an entry point) is a class, called with the target's settings to make
the step, or the step itself (a function); a step may be sync or async. A step that raises is a one-line
error reply naming the step (kept apart from findings, re-asked by --retry-errors), never a crash.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from harness.adapters.base import Adapter, AdapterError, Completion, Message, PermanentError
from harness.adapters.tod.chat_steps import ChatApiCall, ChatResponse, TurnRequest, call_key
from harness.core.errors import ConfigError

STEP_ENTRY_POINTS = "harness.pipeline_steps"
STEPS = ("api_call", "database", "response")
_MEMO = 4096


def load_step(spec: str, settings: Mapping[str, Any], role: str) -> Any:
    """A user step from "module:attr" or an entry point name (one sentence when it cannot be loaded)."""
    target = spec
    if ":" not in spec:
        eps = {ep.name: ep for ep in importlib.metadata.entry_points(group=STEP_ENTRY_POINTS)}
        if spec not in eps:
            raise ConfigError(f"The pipeline's {role} step '{spec}' is neither module:attr nor a "
                              f"{STEP_ENTRY_POINTS} entry point (installed: {', '.join(sorted(eps)) or 'none'}).")
        target = eps[spec].value
    module, _, attr = target.partition(":")
    try:
        obj = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"Cannot load the pipeline's {role} step '{spec}': {exc}.") from None
    return obj(dict(settings)) if inspect.isclass(obj) else obj


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class PipelineAdapter(Adapter):
    kind = "pipeline"
    supports_history = False  # a turn request carries its own dialogue history; chat history is not used

    def __init__(self, name: str, settings: Mapping[str, Any] | None = None) -> None:
        super().__init__(name, settings)
        s = self.settings
        self._chat: list[Adapter] = []
        self.api_call = self._step("api_call", lambda: ChatApiCall(self._chat_adapter(s.get("api_max_tokens", 48))))
        self._databases: dict[str, Any] = {}
        self.database = self._step("database", lambda: None)  # the built-in one opens per split (_database)
        self.response = self._step("response", lambda: ChatResponse(
            self._chat_adapter(s.get("response_max_tokens", 48)), int(s.get("rows_shown", 3))))
        self._calls: OrderedDict[str, Any] = OrderedDict()
        self._replies: OrderedDict[str, str] = OrderedDict()
        self._schemas: dict[str, dict[str, Any]] = {}

    # -- construction ----------------------------------------------------------------------------
    def _step(self, role: str, builtin: Any) -> Any:
        """The built-in step unless the settings name a user's (module:attr or an entry point)."""
        spec = str(self.settings.get(role) or ("sgd" if role == "database" else "chat"))
        if spec == ("sgd" if role == "database" else "chat"):
            return builtin()
        return load_step(spec, self.settings, role)

    def _chat_adapter(self, max_tokens: Any) -> Adapter:
        from harness.adapters.registry import create_adapter  # the registry imports this module's kind lazily

        extra = self.settings.get("chat_settings") or {}
        if not isinstance(extra, Mapping):
            raise ConfigError(f"Target '{self.name}': chat_settings must be a table, e.g. {{ n_threads = 1 }}.")
        chat = create_adapter(str(self.settings.get("chat_target") or "local-zh"),
                              **{**extra, "max_tokens": int(max_tokens)})
        self._chat.append(chat)
        return chat

    def _database(self, data: str | None) -> Any:
        """The user's database step, or the SQLite database of the split the request names (else `data`)."""
        if self.database is not None:
            return self.database
        key = str(data or self.settings.get("data") or "")
        if key not in self._databases:
            from harness.adapters.tod.sgd_db import SgdDatabase  # builds or opens the SQLite file

            self._databases[key] = SgdDatabase(key or None, self.settings.get("db_path"))
        return self._databases[key]

    def schema(self, service: str, data: str | None = None) -> Mapping[str, Any]:
        key = str(data or self.settings.get("data") or "")
        if key not in self._schemas:
            from harness.perturb.sgd import load_split

            self._schemas[key] = load_split(key or None).schema
        return self._schemas[key].get(service, {})

    # -- one turn --------------------------------------------------------------------------------
    async def _run(self, role: str, fn: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return await _maybe_await(fn(*args, **kwargs))
        except AdapterError:
            raise  # a chat target's own transient or permanent failure, classified by its adapter
        except Exception as exc:  # noqa: BLE001 - a user step's bug: one line naming the step
            impl = self.settings.get(role) or ("sgd" if role == "database" else "chat")
            raise PermanentError(f"the pipeline's {role} step ({impl}) raised {type(exc).__name__}: {exc}") from exc

    async def _call_for(self, request: TurnRequest) -> Any:
        key = json.dumps([request.service, list(map(list, request.history))], ensure_ascii=False)
        if key not in self._calls:
            self._calls[key] = await self._run("api_call", self.api_call, request)
            if len(self._calls) > _MEMO:
                self._calls.popitem(last=False)
        return self._calls[key]

    async def _reply_for(self, request: TurnRequest, call: Any, rows: list[dict[str, Any]]) -> str:
        key = json.dumps([request.service, list(map(list, request.history)), call_key(call), rows],
                         ensure_ascii=False, sort_keys=True)
        if key not in self._replies:
            self._replies[key] = str(await self._run("response", self.response, request, call, rows))
            if len(self._replies) > _MEMO:
                self._replies.popitem(last=False)
        return self._replies[key]

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        from harness.adapters.tod.sgd_db import perturbed_row
        from harness.perturb import Substitution

        req = parse_request(prompt)
        service = str(req["service"])
        data = req.get("data")
        turn = TurnRequest(service, req["history"], self.schema(service, data), str(req.get("lang", "en")))
        sub = Substitution.from_dict(req["substitution"]) if req.get("substitution") else None
        protect = bool(req.get("protect_entities", True))
        if req.get("api_call") == "perturbed-original":
            if sub is None or "original_history" not in req:
                raise PermanentError("a perturbed-original request needs its substitution and original history")
            original = await self._call_for(TurnRequest(service, req["original_history"], turn.schema, turn.lang))
            call = None if original is None else {
                **original, "parameters": perturbed_row(sub, original.get("parameters") or {}, protect)}
        else:
            call = await self._call_for(turn)
        simulated = req.get("db") == "simulated" and sub is not None
        rows = list(await self._run("database", self._database(data).query, call, service,
                                    substitution=sub if simulated else None, protect_entities=protect) or [])
        text = await self._reply_for(turn, call, rows)
        if not text.strip():
            raise PermanentError("the pipeline's response step returned an empty reply")
        return Completion(text=text, usage={"pipeline": {"api_call": call, "rows": len(rows),
                                                         "db": "simulated" if simulated else "original"}})

    def public_settings(self) -> dict[str, Any]:
        return dict(self.settings)

    async def aclose(self) -> None:
        for chat in self._chat:
            await chat.aclose()
        for db in [self.database, *self._databases.values()]:
            close = getattr(db, "close", None)
            if callable(close):
                close()


def parse_request(prompt: str) -> dict[str, Any]:
    """The JSON request of an sgd-tod probe; anything else is a permanent error (one line)."""
    try:
        req = json.loads(prompt)
    except (TypeError, ValueError):
        req = None
    if not isinstance(req, dict) or req.get("task") != "sgd" or not isinstance(req.get("history"), list):
        raise PermanentError("a pipeline target answers the task-oriented requests of the sgd-tod suite "
                             "(harness run --suite sgd-tod), not free text")
    return req
