"""Pipeline steps a user plugs in (targets.toml: api_call = "tod_steps:KeywordApiCall"), for the tests.

Real steps, deterministic and fast: a keyword API-call model, a template response generator, and a
database that fails, to check that a broken step is one error line per turn and never a crash.
"""

from __future__ import annotations

from typing import Any

CUISINES = ("American", "Mexican", "Italian", "Chinese", "Indian", "Japanese", "Thai", "Asian", "French", "Korean",
            "Vietnamese", "Greek", "Ethiopian", "Lebanese", "Brazilian")


class KeywordApiCall:
    """Calls the service's first search intent with the categorical values and the cuisine named by the user."""

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings

    def __call__(self, request: Any) -> dict[str, Any] | None:
        intents = [i["name"] for i in request.schema.get("intents") or [] if not i.get("is_transactional")]
        if not intents:
            return None
        said = " ".join(text for speaker, text in request.history if speaker == "USER").lower()
        params = {}
        for slot in request.schema.get("slots") or []:
            for value in slot.get("possible_values") or []:
                if value.lower() in said and len(value) > 2:
                    params[slot["name"]] = value
        cuisine = [c for c in CUISINES if c.lower() in said.split()]
        if cuisine and any(s["name"] == "category" for s in request.schema.get("slots") or []):
            params["category"] = cuisine[-1]
        return {"method": intents[0], "parameters": params}


async def template_response(request: Any, call: dict[str, Any] | None, rows: list[dict[str, Any]]) -> str:
    """An async step: says what was asked and what came back (so a perturbed turn changes the reply)."""
    said = " ".join(text for speaker, text in request.history if speaker == "USER")
    first = next((v for k, v in (rows[0].items() if rows else []) if k.endswith("name")), "nothing")
    return f"You said: {said} I found {len(rows)} results; the first is {first}."


class BrokenDatabase:
    def __init__(self, settings: dict[str, Any]) -> None:
        pass

    def query(self, call: Any, service: str, **kwargs: Any) -> list[dict[str, Any]]:
        raise RuntimeError("the disk is on fire")


class FlakyDatabase:
    """The SQLite database of the split, except that it raises on a call for `fail_on` food while the file named
    `fail_flag` exists: some turns answered, some failed in one run, the way a real backend goes down."""

    def __init__(self, settings: dict[str, Any]) -> None:
        from harness.adapters.tod.sgd_db import SgdDatabase

        self.inner = SgdDatabase(settings.get("data"), settings.get("db_path"))
        self.fail_on = str(settings.get("fail_on", "Mexican"))
        self.flag = str(settings["fail_flag"])

    def query(self, call: Any, service: str, **kwargs: Any) -> list[dict[str, Any]]:
        from pathlib import Path

        if Path(self.flag).exists() and (call or {}).get("parameters", {}).get("category") == self.fail_on:
            raise ConnectionError(f"the {self.fail_on} table is offline")
        return self.inner.query(call, service, **kwargs)
