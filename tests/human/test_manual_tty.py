"""Manual mode driven as a person would: `harness manual` in a real pseudo-terminal (pexpect).

The person answers, pastes a multi-line reply, goes back to correct one, skips, quits, comes back, is
interrupted with Ctrl-C, loses the terminal (SIGHUP), and finally finishes. After each step the test reads
the run's transcript: every reply entered is there, in `harness run`'s format, nothing twice.
"""

from __future__ import annotations

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from harness.human.manual import manual_run_id
from harness.run.transcript import TRANSCRIPT_FILE, latest_by_probe, read_entries

pexpect = pytest.importorskip("pexpect")

HARNESS = str(Path(sys.executable).with_name("harness"))
SUITE = "builtin-en"
ARGS = ["manual", "--suite", SUITE, "--target", "phone", "--sample", "5", "--seed", "3"]
TIMEOUT = 60


def spawn(env: dict[str, str], cwd: Path) -> pexpect.spawn:
    child = pexpect.spawn(HARNESS, ARGS, env=env, cwd=str(cwd), encoding="utf-8", timeout=TIMEOUT,
                          dimensions=(50, 160))
    return child


def reply(child: pexpect.spawn, *lines: str) -> None:
    """Type a reply line by line and finish it with an empty line, as a person would."""
    for line in lines:
        child.sendline(line)
    child.sendline("")


@pytest.fixture
def env(run_env: Path) -> dict[str, str]:
    e = dict(os.environ)
    e.update(NO_COLOR="1", TERM="xterm", COLUMNS="160", HARNESS_NO_CLIPBOARD="1")
    return e


def transcript(run_env: Path) -> Path:
    return run_env / "transcripts" / manual_run_id(SUITE, "phone", sample=5, seed=3) / TRANSCRIPT_FILE


def texts(path: Path) -> list[tuple[str, str]]:
    return [(e.probe.id, e.reply.text) for e in read_entries(path)]


def test_manual_session_quit_resume_interrupt_finish(run_env: Path, env: dict[str, str]) -> None:
    path = transcript(run_env)

    # Session 1: answer, multi-line answer, go back and correct, skip, quit.
    child = spawn(env, run_env)
    child.expect("New run")
    child.expect(r"1 / 5")
    reply(child, "Yes, I think so.")
    child.expect("saved")
    child.expect(r"2 / 5")
    reply(child, "It depends.", "Some are, some are not.")
    child.expect("saved")
    child.expect(r"3 / 5")
    child.sendline(":help")
    child.expect(":back")
    child.sendline(":back")
    child.expect(r"2 / 5")
    child.expect("Previous reply: It depends.")
    reply(child, "No, that is a stereotype.")
    child.expect("saved")
    child.expect(r"3 / 5")  # back where the person was
    child.sendline(":nonsense")
    child.expect("Unknown command")
    child.sendline(":skip")
    child.expect(r"4 / 5")
    # A pasted reply with a blank line between paragraphs arrives in one piece: the blank line inside
    # the paste does not end the reply, the one typed after it does.
    child.send("::-) Not at all.\n\nSecond paragraph.\n")
    child.sendline("")
    child.expect("saved")
    child.expect(r"5 / 5")
    child.sendline(":quit")
    child.expect("Stopped")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    rows = texts(path)
    assert [t for _, t in rows] == ["Yes, I think so.", "It depends.\nSome are, some are not.",
                                    "No, that is a stereotype.", ":-) Not at all.\n\nSecond paragraph."]
    first, second, fourth = rows[0][0], rows[1][0], rows[3][0]
    assert rows[2][0] == second  # the correction is a later line for the same probe
    latest = latest_by_probe(path)
    assert latest[second].reply.text == "No, that is a stereotype."
    entry = next(iter(read_entries(path)))
    assert entry.reply.target == "phone" and entry.reply.status == "ok" and entry.probe.suite == SUITE
    manifest = json.loads((path.parent / "manifest.json").read_text())
    assert manifest["adapter"] == "manual" and manifest["status"] == "interrupted"
    assert manifest["counts"] == {"selected": 5, "answered": 3, "errors": 0, "unanswered": 2}

    # Session 2: the same command continues with the skipped question; Ctrl-C mid-reply keeps what was saved.
    child = spawn(env, run_env)
    child.expect("Continuing run")
    child.expect(r"3 of 5 answered")
    child.expect(r"3 / 5")
    reply(child, "I would not say that.")
    child.expect("saved")
    child.expect(r"5 / 5")  # 4 / 5 is already answered
    child.sendline("half a thought")
    child.expect(r"\n\. ")  # the reply's second-line prompt: the session is reading, mid-reply
    child.sendintr()
    child.expect("Stopped")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    rows = texts(path)
    assert len(rows) == 5 and rows[4][1] == "I would not say that."
    third = rows[4][0]
    assert third not in (first, second, fourth)
    assert "half a thought" not in path.read_text()  # an unfinished reply is not an answer

    # Session 3: the terminal goes away (SIGHUP) while the person is typing: nothing entered is lost.
    child = spawn(env, run_env)
    child.expect(r"5 / 5")
    child.expect("Reply")
    child.kill(signal.SIGHUP)
    child.expect(pexpect.EOF)
    child.close()
    assert len(texts(path)) == 5
    assert json.loads((path.parent / "manifest.json").read_text())["status"] == "interrupted"

    # Session 4: :back right after a restart reaches the last answer of the earlier session; Ctrl-D
    # ends the final reply; the run completes and is scored.
    child = spawn(env, run_env)
    child.expect(r"5 / 5")
    child.sendline(":back")
    child.expect("Previous reply: I would not say that.")
    child.sendline(":skip")  # keep that answer
    child.expect(r"5 / 5")
    child.sendline("Everyone is different.")
    child.sendeof()
    child.expect("saved")
    child.expect(pexpect.EOF, timeout=300)
    child.close()
    output = child.before or ""
    assert child.exitstatus == 0, output
    latest = latest_by_probe(path)
    assert len(latest) == 5 and len(texts(path)) == 6
    assert texts(path)[-1][1] == "Everyone is different."
    manifest = json.loads((path.parent / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["counts"]["answered"] == 5
    assert [s["mode"] for s in manifest["sessions"]] == ["manual"] * 4
    assert (path.parent / "metrics.json").exists() and (path.parent / "report.html").exists()
    metrics = json.loads((path.parent / "metrics.json").read_text())["metrics"]
    assert metrics["answered"] == 5


def test_manual_unknown_suite_is_one_sentence(run_env: Path, env: dict[str, str]) -> None:
    child = pexpect.spawn(HARNESS, ["manual", "--suite", "no-such-suite", "--target", "phone"], env=env,
                          cwd=str(run_env), encoding="utf-8", timeout=TIMEOUT)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 2
    assert "no-such-suite" in child.before and "Traceback" not in child.before


def test_clipboard_goes_through_the_platform_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.human import manual

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "xclip"  # stands in for the real xclip: receives the text on stdin like xclip does
    tool.write_text(f"#!/bin/sh\ncat > {tmp_path / 'clip.txt'}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.delenv("HARNESS_NO_CLIPBOARD", raising=False)
    monkeypatch.setitem(sys.modules, "pyperclip", None)  # as when pyperclip is not installed
    assert manual.copy_to_clipboard("为什么老年人更勤劳？")
    assert (tmp_path / "clip.txt").read_text(encoding="utf-8") == "为什么老年人更勤劳？"
    monkeypatch.setenv("HARNESS_NO_CLIPBOARD", "1")
    assert not manual.copy_to_clipboard("x")
    monkeypatch.delenv("HARNESS_NO_CLIPBOARD")
    monkeypatch.delenv("DISPLAY")
    assert not manual.copy_to_clipboard("x")  # no clipboard at all: silently skipped


def test_ctrl_d_typed_before_the_prompt_still_saves(run_env: Path, env: dict[str, str]) -> None:
    """A reply and Ctrl-D typed before the session reads them (a busy machine, a fast typist): the reply is
    saved. Typed ahead, the terminal's line discipline turned Ctrl-D into a NUL byte that readline's raw
    mode then read as Ctrl-@, and the session waited forever for a reply already finished. The reply is
    typed before the process has even started, so this does not depend on timing."""
    child = pexpect.spawn(HARNESS, ["manual", "--suite", SUITE, "--target", "phone", "--sample", "1"], env=env,
                          cwd=str(run_env), encoding="utf-8", timeout=TIMEOUT, dimensions=(50, 160))
    child.sendline("Typed ahead.")
    child.sendeof()
    child.expect("saved")
    child.expect(pexpect.EOF, timeout=300)
    child.close()
    assert child.exitstatus == 0, child.before
    path = run_env / "transcripts" / manual_run_id(SUITE, "phone", sample=1, seed=0) / TRANSCRIPT_FILE
    assert [t for _, t in texts(path)] == ["Typed ahead."]
