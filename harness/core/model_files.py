"""What a model file says it is: the name in a GGUF file's own metadata, for manifests and reports.

A report must name the model under test exactly. Target labels are written by people and can be wrong:
the packaged "Qwen2.5-0.5B-Instruct" was Qwen2.5-**Coder**-0.5B-Instruct all along (its header:
`general.name = "Qwen2.5 Coder 0.5B Instruct AWQ"`). So when the model is a GGUF file, the manifest and
the report carry the name its header gives, with the base name, fine-tune, size and quantisation.

Why not `gguf.GGUFReader`: it maps every tensor and decodes every metadata array (the 151,000-entry
vocabulary included), which took 54 s for the 491 MB Qwen file on a busy 2-core machine; this reads the
header's key-value section only, stops as soon as it has the keys it wants, and skips arrays without
decoding them (GGUF v2/v3 layout, github.com/ggml-org/ggml/blob/master/docs/gguf.md).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import IO, Any

GGUF_MAGIC = b"GGUF"
#: The header keys a report names the model by.
NAME_KEYS = ("general.name", "general.basename", "general.finetune", "general.size_label",
             "general.architecture", "general.file_type")

# GGUF value types: struct format of the fixed-size ones; 8 = string, 9 = array.
_FIXED = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_STRING, _ARRAY = 8, 9
# llama.cpp's LLAMA_FTYPE values for the quantisations a GGUF chat model usually ships in.
_FILE_TYPES = {0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K",
               11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S",
               17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 24: "IQ1_S", 25: "IQ4_NL", 32: "BF16"}


class NotGGUF(ValueError):
    """The file is not a GGUF file this reader understands (wrong magic, version 1, truncated)."""


def _read(fh: IO[bytes], fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = fh.read(size)
    if len(data) != size:
        raise NotGGUF("truncated header")
    return struct.unpack("<" + fmt, data)[0]


def _string(fh: IO[bytes]) -> str:
    length = _read(fh, "Q")
    data = fh.read(length)
    if len(data) != length:
        raise NotGGUF("truncated string")
    return data.decode("utf-8", errors="replace")


def _skip(fh: IO[bytes], vtype: int) -> None:
    if vtype in _FIXED:
        fh.seek(struct.calcsize(_FIXED[vtype]), 1)
    elif vtype == _STRING:
        fh.seek(_read(fh, "Q"), 1)
    elif vtype == _ARRAY:
        etype, count = _read(fh, "I"), _read(fh, "Q")
        if etype in _FIXED:
            fh.seek(struct.calcsize(_FIXED[etype]) * count, 1)
        else:
            for _ in range(count):
                _skip(fh, etype)
    else:
        raise NotGGUF(f"unknown value type {vtype}")


def gguf_metadata(path: str | Path, keys: tuple[str, ...] = NAME_KEYS) -> dict[str, Any]:
    """The scalar values of `keys` in a GGUF file's header (absent keys are left out); NotGGUF if it is none."""
    wanted, found = set(keys), {}
    with Path(path).open("rb") as fh:
        if fh.read(4) != GGUF_MAGIC:
            raise NotGGUF("no GGUF magic")
        version = _read(fh, "I")
        if version < 2:
            raise NotGGUF(f"GGUF version {version} is not supported")
        _read(fh, "Q")  # tensor count
        for _ in range(_read(fh, "Q")):
            key, vtype = _string(fh), _read(fh, "I")
            if key in wanted and vtype in _FIXED:
                found[key] = _read(fh, _FIXED[vtype])
            elif key in wanted and vtype == _STRING:
                found[key] = _string(fh)
            else:
                _skip(fh, vtype)
            if len(found) == len(wanted):
                break
    return found


def describe_model_file(path: str | Path) -> dict[str, Any]:
    """{"name", "file", "source", ...} for a manifest: the header's name when the file is GGUF and has one,
    else the file name (source says which)."""
    path = Path(path)
    info: dict[str, Any] = {"file": path.name}
    try:
        meta = gguf_metadata(path)
    except (OSError, NotGGUF):
        meta = {}
    if meta.get("general.name"):
        info.update(name=str(meta["general.name"]), source="GGUF metadata general.name")
    else:
        info.update(name=path.name, source="file name (no general.name in the file)")
    for key in ("basename", "finetune", "size_label", "architecture"):
        if meta.get(f"general.{key}"):
            info[key] = str(meta[f"general.{key}"])
    if "general.file_type" in meta:
        info["quantization"] = _FILE_TYPES.get(int(meta["general.file_type"]), f"file_type {meta['general.file_type']}")
    return info
