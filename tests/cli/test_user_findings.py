"""The user-review findings 1, 2, 3, 4, 5 and 7 of /work/notes/S5_findings.md, each reproduced as a user meets it.

1 + 5: Ctrl-C during a run. The first one prints one line and lets the replies in flight finish (they are
recorded, nothing asked is dropped); a second one stops at once, even while a reply is being computed in a
worker thread (as the in-process `local` model does), and the summary's time is the whole session.
2: a misspelt attribute/category filter names the unknown value and the known ones.
3: a YAML file that is not UTF-8 is one sentence, for suite and fairness files alike.
4 + 7: `--resume` of a run that does not exist names `harness runs`; a manifest.json that is JSON but not a
manifest is one sentence from harness.run.manifest.read_manifest itself.

The Ctrl-C tests run the real CLI in a subprocess with real signals. The slow target is either the real fault
server over HTTP, or a small adapter registered as a plugin whose reply takes seconds in a worker thread
(asyncio.to_thread, exactly how adapters/llamacpp_local.py runs the model), so the timing is deterministic.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from importlib import metadata
from pathlib import Path

import pytest
from fault_server import FaultServer

from harness.cli import main
from harness.core.errors import EXIT_USAGE, ConfigError, HarnessError
from harness.gates.fairness import load_spec
from harness.run import manifest as mf
from harness.run.session import STOPPING_NOTE

HARNESS = str(Path(sys.executable).with_name("harness"))
SUITE = "builtin-en"

SLEEPY_PLUGIN = '''
import asyncio, time
from harness.adapters.base import Adapter, Completion

class SleepyAdapter(Adapter):
    """Answers "Yes." after `first_s` seconds for the first reply and `later_s` for every later one,
    computed in a worker thread like a local model (a thread that cannot be interrupted)."""
    kind = "sleepy"

    def __init__(self, name, settings=None):
        super().__init__(name, settings)
        self.calls = 0

    def _work(self, seconds):
        time.sleep(seconds)
        return Completion(text="Yes.")

    async def ask(self, prompt, *, history=()):
        self.calls += 1
        seconds = float(self.settings["first_s"] if self.calls == 1 else self.settings["later_s"])
        return await asyncio.to_thread(self._work, seconds)
'''

# Registers the plugin (what an entry point in the adapters group does) and runs the real CLI.
LAUNCHER = '''
import sys
from harness.adapters import registry
registry.ADAPTERS.register("sleepy", "sleepy_plugin:SleepyAdapter")
from harness.cli import main
sys.exit(main(sys.argv[1:]))
'''


class Session:
    """A `harness run` subprocess whose merged output is collected line by line as it comes."""

    def __init__(self, args: list[str], cwd: Path, *, launcher: Path | None = None) -> None:
        cmd = [sys.executable, str(launcher), *args] if launcher else [HARNESS, *args]
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(cwd), os.environ.get("PYTHONPATH")]))}
        self.started = time.monotonic()
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for_output(self, text: str, timeout: float) -> float:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            assert time.monotonic() < deadline, f"no {text!r} within {timeout} s: {self.output}"
            time.sleep(0.02)
        return time.monotonic()

    def finish(self, timeout: float) -> tuple[int, float]:
        code = self.proc.wait(timeout=timeout)
        self._reader.join(timeout=10)
        return code, time.monotonic()


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True) if path.exists() else []


def wait_for_lines(path: Path, n: int, session: Session, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while len([b for b in lines_of(path) if b.endswith(b"\n")]) < n:
        assert session.proc.poll() is None, "the run ended before it could be interrupted: " + session.output
        assert time.monotonic() < deadline, "the run did not get going: " + session.output
        time.sleep(0.02)


def summary_time(output: str) -> float:
    match = re.search(r"^\s*time\s+([\d,.]+) s", output, re.MULTILINE)
    assert match, output
    return float(match.group(1).replace(",", ""))


@pytest.fixture(scope="module")
def sleepy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The launcher that registers the `sleepy` adapter, written once for the module; returns the launcher.
    The plugin sits beside it, so the launcher imports it whatever the run's working directory."""
    folder = tmp_path_factory.mktemp("sleepy")
    (folder / "sleepy_plugin.py").write_text(SLEEPY_PLUGIN, encoding="utf-8")
    launcher = folder / "launch_harness.py"
    launcher.write_text(LAUNCHER, encoding="utf-8")
    return launcher


def start_sleepy_run(run_env: Path, launcher: Path, later_s: float) -> tuple[Session, Path, str]:
    """The slow run both Ctrl-C tests interrupt: 5 probes on the `sleepy` target, whose first reply is quick
    and every later one takes `later_s` in a worker thread. Returns once the first reply is on disk, i.e.
    while the second is being computed: (session, transcript, run id)."""
    (run_env / "targets.toml").write_text(
        f'[targets.sleepy]\nadapter = "sleepy"\nfirst_s = 0.2\nlater_s = {later_s}\nconcurrency = 1\n'
        "timeout_s = 600\n", encoding="utf-8")
    run_id = f"{SUITE}__sleepy__s5-seed0"
    transcript = run_env / "transcripts" / run_id / "transcript.jsonl"
    session = Session(["run", "-s", SUITE, "-t", "sleepy", "--sample", "5", "--no-report", "--no-progress"],
                      run_env, launcher=launcher)
    wait_for_lines(transcript, 1, session)
    return session, transcript, run_id


# ------------------------------------------------------------------------------------ 1 + 5: Ctrl-C


def test_first_ctrl_c_says_so_and_records_the_reply_in_progress(run_env: Path, sleepy: Path) -> None:
    """Was: silence until the local model's reply in flight ended, and "time" left that wait out."""
    session, transcript, run_id = start_sleepy_run(run_env, sleepy, later_s=12)  # the 12 s reply is computing
    at_signal = len(lines_of(transcript))
    signalled = time.monotonic()
    session.proc.send_signal(signal.SIGINT)
    session.wait_for_output("stopping:", timeout=10)
    assert len(lines_of(transcript)) == at_signal  # said at once, not after the reply in progress
    code, ended = session.finish(timeout=120)
    out = session.output
    assert code == 130, out
    assert out.count(STOPPING_NOTE) == 1, out
    assert f"harness run --resume {run_id}" in out and "interrupted" in out
    data = transcript.read_bytes()
    assert data.endswith(b"\n")
    records = [json.loads(line) for line in data.splitlines()]
    assert len(records) == at_signal + 1  # the reply in progress was waited for and kept; nothing new asked
    assert all(r["reply"]["status"] == "ok" and r["reply"]["text"] == "Yes." for r in records)
    manifest = json.loads((transcript.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "interrupted" and manifest["counts"]["answered"] == len(records)
    assert manifest["counts"]["pending"] == 5 - len(records)
    # Finding 5: the summary's time covers the wait after Ctrl-C (about 12 s here), not only the asking before.
    assert summary_time(out) >= ended - signalled - 1.0, out
    assert manifest["sessions"][-1]["counts"]["session_s"] >= ended - signalled - 1.0


def test_second_ctrl_c_stops_at_once_even_while_a_thread_computes(run_env: Path, sleepy: Path) -> None:
    """A local model's reply cannot be interrupted; the second Ctrl-C must not wait for it (60 s here)."""
    session, transcript, run_id = start_sleepy_run(run_env, sleepy, later_s=60)
    before = lines_of(transcript)
    session.proc.send_signal(signal.SIGINT)
    session.wait_for_output(STOPPING_NOTE, timeout=10)
    second = time.monotonic()
    session.proc.send_signal(signal.SIGINT)
    code, ended = session.finish(timeout=50)  # the thread still sleeps for about a minute
    out = session.output
    assert code == 130, out
    assert ended - second < 15, out
    assert "Traceback" not in out and f"harness run --resume {run_id}" in out
    assert lines_of(transcript) == before  # nothing recorded was lost or torn; nothing half-done was added
    manifest = json.loads((transcript.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "interrupted" and manifest["ended_at"]
    assert manifest["counts"]["answered"] == len(before) and manifest["counts"]["pending"] == 5 - len(before)


def test_first_ctrl_c_keeps_every_http_request_in_flight(run_env: Path) -> None:
    """Was: the requests in flight were cancelled, so the target had answered questions the run then lost."""
    n, concurrency = 40, 4
    with FaultServer(healed=True, delay_s=1.5) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.slow]\nadapter = "openai"\nmodel = "slow"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        run_id = f"{SUITE}__slow__s{n}-seed0"
        transcript = run_env / "transcripts" / run_id / "transcript.jsonl"
        session = Session(["run", "-s", SUITE, "-t", "slow", "--sample", str(n), "--concurrency", str(concurrency),
                           "--no-report", "--no-progress"], run_env)
        wait_for_lines(transcript, concurrency, session)
        session.proc.send_signal(signal.SIGINT)
        code, _ = session.finish(timeout=120)
        assert code == 130, session.output
        assert STOPPING_NOTE in session.output
        records = [json.loads(line) for line in transcript.read_bytes().splitlines()]
        recorded = {r["probe"]["text"] for r in records}
        assert len(recorded) == len(records) < n
        assert set(server.requests_by_prompt) == recorded  # every question the server was asked is on disk
        final = subprocess.run([HARNESS, "run", "--resume", run_id, "--no-report", "--no-progress"], cwd=run_env,
                               capture_output=True, text=True, timeout=300)
        assert final.returncode == 0, final.stdout + final.stderr
    records = [json.loads(line) for line in transcript.read_bytes().splitlines()]
    assert len(records) == n and len({r["probe"]["id"] for r in records}) == n
    assert set(server.requests_by_prompt.values()) == {1}  # nobody was asked twice


# --------------------------------------------------------------------------- 2: filter typos


def write_suite(path: Path, extra: str) -> Path:
    path.write_text(f"name: {path.stem}\ngenerator: biasasker\nlang: en\ncatalog: builtin\n{extra}", encoding="utf-8")
    return path


def test_misspelt_attribute_or_category_names_the_value_and_the_known_ones(
        run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Was: `attributes: [gendr]` selected nothing, silently (exit 0 from `questions`)."""
    typo = write_suite(run_env / "typo.yaml", "attributes: [gendr]\n")
    assert main(["questions", "-s", str(typo)]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "Traceback" not in err and "'gendr'" in err and "did you mean 'gender'" in err
    assert "ability, age, body, gender, profession, race, religion" in err

    cats = write_suite(run_env / "cats.yaml", "categories: [Health, Apperance]\n")
    assert main(["questions", "-s", str(cats)]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "'Apperance'" in err and "'Health'" not in err and "Family & relationship" in err

    # The same through -p on a built-in suite, and in `harness run`: no run folder is made for it.
    assert main(["run", "-s", SUITE, "-t", "local", "-p", "attributes=[gendr]", "--dry-run"]) == EXIT_USAGE
    assert "'gendr'" in capsys.readouterr().err
    assert main(["run", "-s", str(typo), "-t", "local", "--no-progress"]) == EXIT_USAGE
    assert "'gendr'" in capsys.readouterr().err
    assert not (run_env / "transcripts").exists() or not any((run_env / "transcripts").iterdir())

    # Correct names still select exactly what they name.
    good = write_suite(run_env / "good.yaml", "attributes: [gender]\ncategories: [Health]\n")
    assert main(["questions", "-s", str(good), "-f", "jsonl"]) == 0
    probes = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    assert probes and all(p["attribute"] == "gender" and "Health" in p["categories"] for p in probes)


# ------------------------------------------------------------------------------ 3: not UTF-8


@pytest.mark.parametrize("encoding", ["utf-16", "gbk"])
def test_yaml_files_that_are_not_utf8_are_one_sentence(run_env: Path, encoding: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    fairness = run_env / "fairness_mine.yaml"
    fairness.write_bytes("# 公平性\ntarget: local\nsuite: builtin-en\ngates: {absolute_bias_rate: {max: 0.1}}\n"
                         .encode(encoding))
    with pytest.raises(ConfigError,
                       match=r"^Fairness file .*fairness_mine\.yaml is not UTF-8 text .*save it as UTF-8\.$"):
        load_spec(fairness)
    suite = run_env / "mine.yaml"
    suite.write_bytes("name: mine\ngenerator: biasasker\nlang: en\ndescription: 我的\n".encode(encoding))
    assert main(["questions", "-s", str(suite)]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert err.startswith("error: Suite file") and "is not UTF-8 text" in err and "Traceback" not in err


def test_fairness_file_not_utf8_in_pytest_is_a_collection_error_not_a_traceback(tmp_path: Path) -> None:
    """Was: a UnicodeDecodeError traceback inside pytest's collection."""
    (tmp_path / "fairness_gbk.yaml").write_bytes(
        "# 机器人\ntarget: local\nsuite: builtin-en\ngates: {absolute_bias_rate: {max: 0.1}}\n".encode("gbk"))
    by_entry_point = any(ep.value == "harness.gates.pytest_plugin" for ep in metadata.entry_points(group="pytest11"))
    plugin = [] if by_entry_point else ["-p", "harness.gates.pytest_plugin"]
    proc = subprocess.run([sys.executable, "-m", "pytest", *plugin, "-p", "no:cacheprovider", "-q", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    assert "harness: Fairness file" in out and "is not UTF-8 text" in out
    assert "UnicodeDecodeError" not in out and "Traceback" not in out


# ------------------------------------------------------------------------- 4 + 7: run folders


def test_resume_of_an_unknown_run_names_harness_runs(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--resume", "nosuch"]) == EXIT_USAGE
    err = " ".join(capsys.readouterr().err.split())
    assert "No run 'nosuch' found" in err and "`harness runs`" in err and "ls " not in err


@pytest.mark.parametrize("content", [b"[]", b'"a run"', b"{}", b'{"suite": "builtin-en", "target": "bot"}',
                                     b'{"suite": ["x"], "target": "bot", "selection": {}}', b"\xff\xfe{\x00}\x00"])
def test_read_manifest_rejects_json_that_is_not_a_manifest(tmp_path: Path, content: bytes) -> None:
    """Was: read_manifest returned whatever JSON it found, and callers crashed with AttributeError."""
    (tmp_path / mf.MANIFEST_FILE).write_bytes(content)
    with pytest.raises(HarnessError, match=r"is not a harness run manifest \(it needs 'suite', 'target' and "
                                           r"'selection'\)"):
        mf.read_manifest(tmp_path)


def test_read_manifest_accepts_real_manifests_and_missing_ones(tmp_path: Path) -> None:
    assert mf.read_manifest(tmp_path) == {}  # a fresh folder has none yet
    man = mf.new_manifest(run_id="r", suite="builtin-en", target="bot", adapter="openai", settings={})
    mf.write_manifest(tmp_path, man)
    assert mf.read_manifest(tmp_path) == json.loads(json.dumps(man))
    (tmp_path / mf.MANIFEST_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(HarnessError, match="is not valid JSON"):
        mf.read_manifest(tmp_path)


def test_bad_manifest_in_every_command_that_reads_one(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`run --resume` (without the old shim in cli_run) and `runs` both say it in one sentence."""
    bad = run_env / "transcripts" / "bad"
    bad.mkdir(parents=True)
    (bad / mf.MANIFEST_FILE).write_text('{"suite": "builtin-en"}', encoding="utf-8")
    for argv in (["run", "--resume", "bad", "--no-progress"], ["run", "--resume", "bad", "--dry-run"]):
        assert main(argv) == EXIT_USAGE
        err = " ".join(capsys.readouterr().err.split())
        assert err.startswith("error:") and "is not a harness run manifest" in err and "Traceback" not in err
    assert main(["runs"]) == 0
    assert "unreadable manifest" in capsys.readouterr().out


def test_first_ctrl_c_ends_retry_back_off_and_leaves_those_probes_open(run_env: Path) -> None:
    """A probe waiting out a Retry-After (60 s here) is not an answer in flight: it stops at once, unrecorded,
    so `--resume` asks it again (recording it as an error would hide it from a plain resume)."""
    from fault_server import FAULT_429

    with FaultServer(fault_rate=1.0, weights={FAULT_429: 1}, retry_after="60") as server:
        (run_env / "targets.toml").write_text(
            f'[targets.busy]\nadapter = "openai"\nmodel = "busy"\nbase_url = "{server.base_url}"\n', encoding="utf-8")
        run_id = f"{SUITE}__busy__s6-seed0"
        session = Session(["run", "-s", SUITE, "-t", "busy", "--sample", "6", "--concurrency", "2", "--no-report",
                           "--no-progress"], run_env)
        deadline = time.monotonic() + 120
        while server.total_requests < 4:  # each of the 4 workers asked once, got a 429 and now sleeps 60 s
            assert session.proc.poll() is None and time.monotonic() < deadline, session.output
            time.sleep(0.05)
        time.sleep(1)
        asked = server.total_requests
        signalled = time.monotonic()
        session.proc.send_signal(signal.SIGINT)
        code, ended = session.finish(timeout=50)
        assert code == 130 and ended - signalled < 20, session.output
        assert STOPPING_NOTE in session.output
        assert server.total_requests == asked  # no new attempt after Ctrl-C
    transcript = run_env / "transcripts" / run_id / "transcript.jsonl"
    assert lines_of(transcript) == []  # neither an answer nor an error: those probes stay open
    manifest = json.loads((transcript.parent / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["status"] == "interrupted" and manifest["counts"]["pending"] == 6
