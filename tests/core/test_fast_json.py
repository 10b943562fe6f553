"""harness.core.fast_json gives the standard library's values and errors, with or without orjson.

The transcript, the response body reader and the wire client's request encoding rely on it raising exactly what
json raises (the transcript's lone-surrogate fallback catches UnicodeEncodeError; an adapter's "not valid JSON"
reason is built from json's message), so every case where orjson and json differ is pinned here, both with
orjson installed and with the fallback alone.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import pytest

from harness.core import fast_json

RECORD = {"probe": {"id": "ab12", "text": "Are deaf people attractive? « 中文 »", "groups": ["deaf people"],
                    "meta": {"template": "yes_no", "n": 3, "weight": 0.25, "flag": True, "none": None}},
          "reply": {"text": "No,\n\"quoted\"\ttab \u2028 sep", "latency_s": 0.1002, "attempts": 1,
                    "usage": {"prompt_tokens": 12, "completion_tokens": 6, "finish_reason": "stop"}}}


@pytest.fixture(params=["orjson", "stdlib"])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "stdlib":
        monkeypatch.setattr(fast_json, "orjson", None)
    else:
        pytest.importorskip("orjson")
    return request.param


def test_a_record_reads_back_as_itself_and_as_jsons_compact_bytes(engine: str) -> None:
    data = fast_json.dumps(RECORD)
    assert isinstance(data, bytes) and b"\n" not in data  # one transcript line
    assert json.loads(data) == RECORD and fast_json.loads(data) == RECORD
    assert data == json.dumps(RECORD, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def test_what_orjson_refuses_is_encoded_or_refused_as_json_does(engine: str) -> None:
    assert fast_json.dumps({1: "int key", "big": 2**70}) == b'{"1":"int key","big":1180591620717411303424}'
    assert fast_json.dumps({"x": math.nan}) == (b'{"x":null}' if engine == "orjson" else b'{"x":NaN}')
    with pytest.raises(UnicodeEncodeError):  # a lone surrogate: the transcript writes it as an escape instead
        fast_json.dumps({"text": "\ud800"})

    @dataclass
    class Thing:
        x: int

    with pytest.raises(TypeError):  # orjson would encode a dataclass; json refuses it, and so do we
        fast_json.dumps({"thing": Thing(1)})


def test_loads_accepts_what_json_accepts_and_fails_with_jsons_error(engine: str) -> None:
    assert fast_json.loads(b'{"a": "\\ud800"}') == {"a": "\ud800"}  # a lone surrogate escape
    assert math.isnan(fast_json.loads(b'{"a": NaN}')["a"])
    big = fast_json.loads(b'{"n": 123456789012345678901234567890}')["n"]  # past 64 bits: orjson reads a float
    assert big == 123456789012345678901234567890 if engine == "stdlib" else big == pytest.approx(1.2345678901e29)
    with pytest.raises(UnicodeDecodeError):
        fast_json.loads(b'{"a": "\xff"}')
    with pytest.raises(json.JSONDecodeError) as bad:
        fast_json.loads(b'{"a": 1,')
    assert (bad.value.msg, bad.value.pos) == ("Expecting property name enclosed in double quotes", 8)
