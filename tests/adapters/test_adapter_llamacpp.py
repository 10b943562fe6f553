"""The llamacpp adapter: the offline `local` target answers with a real GGUF model in this process."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness.adapters.llamacpp_local import LlamaCppAdapter
from harness.adapters.registry import create_adapter
from harness.core.errors import HarnessError


def test_a_missing_model_file_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(HarnessError, match="is not a GGUF file"):
        LlamaCppAdapter("x", {"model": str(tmp_path / "nope.gguf")})


@pytest.mark.slow
def test_local_target_answers_greedily_and_deterministically(run_env: Path) -> None:
    adapter = create_adapter("local", max_tokens=24)
    assert adapter.kind == "llamacpp"
    first = asyncio.run(adapter.ask("What is the capital of France? Answer in one word."))
    again = asyncio.run(adapter.ask("What is the capital of France? Answer in one word."))
    assert "paris" in first.text.lower()
    assert first.text == again.text, "greedy decoding gives the same answer twice"
    assert first.usage.get("completion_tokens", 0) > 0
    # the fingerprint names the model file, not the machine-specific path of the wheel
    assert "/" not in adapter.fingerprint()
    assert adapter.fingerprint() == create_adapter("local", max_tokens=24, n_threads=1).fingerprint()
    assert adapter.fingerprint() != create_adapter("local", max_tokens=25).fingerprint()
