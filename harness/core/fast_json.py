"""JSON on the asking loop's hot path: orjson when it is installed, the standard library otherwise.

Why: every asked probe encodes its request, decodes the server's answer and encodes one transcript line. With
the standard library those three cost about 70 us of CPU per request, an eighth of the whole asking loop at
c=256 (benchmarks/saturation.py, issue 38); orjson does the same in about 8 us.

The results are the standard library's: whatever orjson refuses (a dict key that is not a string, an integer
past 64 bits, a lone surrogate, a type it would encode that json would not: dataclasses, datetimes; a document
with NaN or a lone surrogate escape) goes through `json` exactly as before, so a caller's own error handling
(the transcript's lone-surrogate fallback, an adapter's "not valid JSON" reason) sees the same exceptions.
What differs: lines are written compact (no space after ':' and ','), which every JSON reader reads the same;
a float NaN or infinity (never in a record; not JSON at all) is written as null, not NaN; and a document's
integer past 64 bits (no server sends one) is read as a float (tests/core/test_fast_json.py pins each).
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # pragma: no cover - orjson is a dependency; the fallback keeps a broken install working
    orjson = None  # type: ignore[assignment]

#: Built once: json.dumps with any non-default option builds a new JSONEncoder on every call.
_STD_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
#: orjson encodes these types itself where json raises TypeError; passed through, they raise as json does.
_ORJSON_OPTIONS = (orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
                   | orjson.OPT_PASSTHROUGH_SUBCLASS) if orjson is not None else 0


def dumps(obj: Any) -> bytes:
    """`obj` as compact UTF-8 JSON (ensure_ascii off). Raises what json.dumps raises for what it cannot encode
    (TypeError; UnicodeEncodeError from the UTF-8 step for a lone surrogate)."""
    if orjson is not None:
        try:
            return orjson.dumps(obj, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError is a TypeError: let json decide, and raise, as before
            pass
    return _STD_ENCODE(obj).encode("utf-8")


def loads(data: bytes) -> Any:
    """The value of a UTF-8 JSON document. Raises what `json.loads(data.decode("utf-8"))` raises
    (UnicodeDecodeError, json.JSONDecodeError), and accepts what it accepts (NaN, lone surrogate escapes)."""
    if orjson is not None:
        try:
            return orjson.loads(data)
        except ValueError:  # orjson.JSONDecodeError: json gives its own verdict and its own error
            pass
    return json.loads(data.decode("utf-8"))
