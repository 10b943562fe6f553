"""Shared test fixtures: the data directory, isolated run folders, and real local chat servers.

The model servers are real `llama_cpp.server` processes on 127.0.0.1 serving GGUF models that ship inside
PyPI packages (see ../shared/models.md), started once per test session because loading costs seconds.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import data_pass
import data_sets
import httpx
import pytest
from run_builders import fake_score

from harness import oracles
from harness.core.errors import DataMissingError

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"

if not os.environ.get("HARNESS_DATA_DIR") and SHARED_DATA.is_dir():
    os.environ["HARNESS_DATA_DIR"] = str(SHARED_DATA)
#: The data directory of this session (a test may point HARNESS_DATA_DIR elsewhere for a while).
SESSION_DATA_DIR = Path(os.environ["HARNESS_DATA_DIR"]) if os.environ.get("HARNESS_DATA_DIR") else None
# The joined Qwen GGUF of the user's cache for every test, whatever HARNESS_CACHE_DIR a test isolates: else each
# test with its own cache joins its own 400 MB copy, and the in-process loads of two paths are two 3 GB models.
if not os.environ.get("HARNESS_QWEN_GGUF"):
    from harness.core.local_models import QWEN_FILE
    from harness.core.paths import cache_dir

    os.environ["HARNESS_QWEN_GGUF"] = str(cache_dir() / "models" / QWEN_FILE)
data_pass.start_recording(SESSION_DATA_DIR)  # HARNESS_TEST_DATA_USERS: .ci/run's no-data pass (tests/data_pass.py)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_data(*names): skip, naming `harness data pull NAME`, unless the "
                                       "data directory holds these upstream data sets (tests/data_sets.py)")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests using a fixture declared with data_sets.needs are marked needs_data; HARNESS_TEST_DATA_PASS: only
    the tests that need data (tests/data_pass.py)."""
    data_sets.mark_fixture_users(items)
    data_pass.keep_data_tests(config, items)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    data_pass.write_readers()


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip a test marked needs_data(...) whose data sets are missing, with the command that fetches them."""
    names = tuple(n for mark in item.iter_markers("needs_data") for n in mark.args)
    lacking = data_sets.missing(names, SESSION_DATA_DIR) if names else []
    if lacking:
        pytest.skip(data_sets.skip_reason(lacking, SESSION_DATA_DIR))


#: the errors turned into skips, with the data sets they lacked (a cached fixture error is raised again)
_DATA_FAILURES: list[tuple[BaseException, list[str]]] = []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """A test that failed because a data set is missing is a skip naming the command that fetches it.

    "Because" is read strictly: the session's data directory lacks the set, and the failure is a
    DataMissingError or quotes the harness's own sentence for it (`harness data pull NAME`, e.g. in the
    output of a `harness` command that exited 2). With the data there, the same failure stays a failure.
    """
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.when not in ("setup", "call"):
        return
    lacking = data_sets.missing(tuple(data_sets.datasets.registry()), SESSION_DATA_DIR)
    if not lacking:
        return
    said = str(report.longrepr) + "".join(content for _, content in report.sections)
    error = call.excinfo.value if call.excinfo is not None else None
    if call.excinfo is not None and call.excinfo.errisinstance(DataMissingError):
        said += str(error)
    # a module or session fixture that failed for want of data fails the later tests with the same error,
    # without the output that named the data set: they are the same skip
    named = next((names for seen, names in _DATA_FAILURES if seen is error), None) if error is not None else None
    named = named or [name for name in lacking if f"harness data pull {name}" in said]
    if named:
        if error is not None:
            _DATA_FAILURES.append((error, named))
        report.outcome = "skipped"
        report.longrepr = (str(item.path), item.location[1] or 0,
                           f"Skipped: {data_sets.skip_reason(named, SESSION_DATA_DIR)}")


#: HARNESS_TEST_RSS=FILE: after each test, append the process's memory to FILE (benchmarks/test_memory.py)
RSS_LOG = os.environ.get("HARNESS_TEST_RSS")


def pytest_runtest_logfinish(nodeid: str, location: tuple[str, int | None, str]) -> None:
    """With HARNESS_TEST_RSS set, one JSON line per test: its id, the resident memory after it and the
    process's peak so far (ru_maxrss), in MB, so the module that raised the peak can be named."""
    if not RSS_LOG:
        return
    import json
    import resource

    import psutil

    line = {"test": nodeid, "rss_mb": psutil.Process().memory_info().rss / 2**20,
            "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    with open(RSS_LOG, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(line) + "\n")


#: the adapters' process-wide model tables: (module, table), emptied when a test module ends
MODEL_TABLES = (("harness.adapters.hf_local", "_LOADED"), ("harness.adapters.llamacpp_local", "_MODELS"))


@pytest.fixture(autouse=True, scope="module")
def _release_models() -> Iterator[None]:
    """Let go of the models a test module loaded in this process when it ends.

    The adapters keep every model they load for the life of the process (right for a run, which asks one
    model thousands of times), so in one pytest process the models of every module piled up: the in-process
    Qwen alone holds 3.1 GB dequantised to float32. A later module that needs a model loads it again (the
    served ones are the session's llama_cpp.server processes, not affected); benchmarks/test_memory.py
    measures the peak.
    """
    yield
    emptied = False
    for name, table in MODEL_TABLES:
        module = sys.modules.get(name)
        models = getattr(module, table, None) if module is not None else None
        if models:
            models.clear()
            emptied = True
    emptied |= _forget_data_caches()
    if emptied:
        import contextlib
        import ctypes
        import gc

        gc.collect()
        with contextlib.suppress(OSError, AttributeError):  # not glibc: the freed heap stays with the process
            ctypes.CDLL("libc.so.6").malloc_trim(0)  # hand it back, so the next module starts from what is in use


#: packages whose functools caches hold data sets read from disk (BBQ's released files alone held 460 MB)
DATA_CACHE_PACKAGES = ("harness.question_gen.", "harness.perturb.")
#: caches kept for the session: a model that is slow to load and small beside what it serves (spaCy's pipeline)
KEPT_CACHES = frozenset({"harness.question_gen.english_tagging._nlp"})


def _forget_data_caches() -> bool:
    """Empty the data loaders' caches a test module filled (a run reads a data set once per process; a test
    session reads many); True if one held anything."""
    emptied = False
    for name, module in list(sys.modules.items()):
        if not name.startswith(DATA_CACHE_PACKAGES) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if (info is not None and getattr(value, "__module__", None) == name
                    and f"{name}.{attr}" not in KEPT_CACHES and info().currsize):
                value.cache_clear()
                emptied = True
    return emptied


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_llama_server(model: Path, log_path: Path, *, n_ctx: int = 2048) -> Iterator[str]:
    port = free_port()
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", str(n_ctx), "--model_alias", "local", "--n_threads", "2",
         "--verbose", "false"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited early; see {log_path}")
            try:
                if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama_cpp.server did not come up; see {log_path}")
            time.sleep(0.5)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def smollm2_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenAI-compatible server on 127.0.0.1 serving SmolLM2-135M-Instruct (English)."""
    from harness.core.local_models import smollm2_gguf_path

    yield from _start_llama_server(smollm2_gguf_path(), tmp_path_factory.mktemp("llama") / "smollm2.log")


@pytest.fixture(scope="session")
def qwen_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real OpenAI-compatible server serving Qwen2.5-Coder-0.5B-Instruct (Chinese and English)."""
    from harness.core.local_models import qwen_gguf_path

    yield from _start_llama_server(qwen_gguf_path(), tmp_path_factory.mktemp("llama") / "qwen.log")


@pytest.fixture
def run_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Isolate transcripts, cache and user config in a temporary directory; returns it (also the cwd)."""
    monkeypatch.setenv("HARNESS_TRANSCRIPTS_DIR", str(tmp_path / "transcripts"))
    monkeypatch.setenv("HARNESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def fake_oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deterministic stand-in for the oracle ("Yes..." is biased), so report code is tested on known verdicts."""
    monkeypatch.setattr(oracles, "score", fake_score, raising=False)
