"""Fuzz (issue 18): 500 seeded random strings, as replies and as error reasons, through `harness run`,
`harness report`, `harness review` and `harness compare`, against a real OpenAI-compatible server on
127.0.0.1 (tests/fault_server.py): no crash, and every string recoverable from the transcript.

The strings mix rich markup and its brackets, backslashes, control characters (ESC sequences, CR, NUL),
lone surrogates (sent as JSON escapes, as a server may), bidi overrides, CJK, emoji and lines up to
80,000 characters (past the reply-size cap). "Recoverable": a reply reads back from transcript.jsonl
exactly (its first 65,536 characters, marked cut_from, when longer); an error reason reads back as the
one line the engine makes of the server's message (whitespace collapsed, the first 200 characters).
"""

from __future__ import annotations

import io
import json
import random
import shutil
import sys
from pathlib import Path

import pytest
from fault_server import FaultServer
from rich.console import Console

from harness.adapters.transport import one_line as reason_line
from harness.cli import main
from harness.core.display import shown
from harness.run.engine import EngineSettings
from harness.run.engine import one_line as stored_line
from harness.run.plan import load_suite_any, select_any
from harness.run.transcript import latest_by_probe

N = 500
SEED = 18
CAP = EngineSettings().max_reply_chars
NARROW = {"attributes": ["gender"], "groups_per_attribute": 3}
PIECES = ["[", "]", "[/", "[/]", "[bold red]", "[/INST]", "[link=https://x.example]", "[@click=quit]", "\\",
          "\\[", "[#ff0000]", "REPLY[8f3a...]", "\x1b[2J", "\x1b]8;;http://x\x07", "\r", "\x00", "\x7f", "\x9b",
          "\t", "\n", "\u202e", "\u2066", "\ufeff", "中文回答", "是的", "👍🏽", "🇨🇳", "\U0001f600", "<script>", "&amp;",
          '"', "'", "{", "}", "Yes", "No", " ", "  "]


def fuzz_string(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(1, 30)):
        roll = rng.random()
        if roll < 0.55:
            parts.append(rng.choice(PIECES))
        elif roll < 0.7:
            parts.append(chr(rng.choice([rng.randint(0, 0x1F), rng.randint(0xD800, 0xDFFF), rng.randint(0x80, 0x9F)])))
        elif roll < 0.996:
            parts.append("".join(chr(rng.randint(0x20, 0x2FFF)) for _ in range(rng.randint(1, 12))))
        else:
            parts.append("x" * rng.randint(1_000, 8_000))  # a long line (in about 5% of the strings)
    text = "".join(parts)
    return text if text.strip() else text + "[/]"  # a blank reply is an error by design, not text


def test_500_random_strings_survive_run_report_review_and_compare(
        run_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    rng = random.Random(SEED)
    # one attribute, three groups: the report's figures (a heatmap per pair of groups) stay few and fast
    probes = list(select_any(load_suite_any("builtin-en"), sample=N, seed=SEED, limit=None, overrides=NARROW))
    # as JSON carries them: a high surrogate that happens to precede a low one is one astral character there
    strings = [json.loads(json.dumps(fuzz_string(rng))) for _ in probes]
    strings[0] += "y" * (CAP + 10)  # one reply past the cap, whatever the draw
    statuses = [200] + [rng.choice([200, 200, 200, 400, 404, 429, 500, 503]) for _ in probes[1:]]
    script = {p.text: (status, s) for p, status, s in zip(probes, statuses, strings, strict=True)}
    assert sum(any(0xD800 <= ord(c) <= 0xDFFF for c in s) for s in strings) > 20  # the hard cases are there
    assert sum(len(s) > CAP for s in strings) >= 1 and sum("\x1b" in s for s in strings) > 20
    monkeypatch.setenv("COLUMNS", "200")
    with FaultServer(fault_rate=0.0, script=script) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.fuzz]\nadapter = "openai"\nmodel = "m"\nbase_url = "{server.base_url}"\nconcurrency = 16\n',
            encoding="utf-8")
        code = main(["run", "-s", "builtin-en", "-t", "fuzz", "--sample", str(N), "--seed", str(SEED),
                     "-p", "attributes=[gender]", "-p", "groups_per_attribute=3",
                     "--no-progress", "--max-attempts", "1", "--no-cache", "--no-report", "--max-error-rate", "0.9"])
        out = capsys.readouterr()
        assert code == 0, out.err
        assert "errors by reason" in out.out and "internal error" not in out.err

    run_dir = next((run_env / "transcripts").iterdir())
    latest = latest_by_probe(run_dir / "transcript.jsonl")
    assert len(latest) == N
    for probe, status, text in zip(probes, statuses, strings, strict=True):
        reply = latest[probe.id].reply
        if status == 200:
            assert reply.ok and reply.text == text[:CAP], probe.id
            assert reply.cut_from == (len(text) if len(text) > CAP else None)
        else:
            assert not reply.ok and reply.error == stored_line(f"HTTP {status}: {reason_line(text)}"), probe.id

    # report: every file written is valid UTF-8 (lone surrogates became U+FFFD there, not in the transcript)
    assert main(["report", str(run_dir), "--max-error-rate", "0.9"]) == 0
    assert "internal error" not in capsys.readouterr().err
    for name in ("report.html", "metrics.json", "verdicts.csv"):
        (run_dir / name).read_bytes().decode("utf-8")
    assert json.loads((run_dir / "metrics.json").read_text("utf-8"))["metrics"]["total"] == N

    # review: each reply shown as text, terminal controls as visible escapes
    screen = Console(file=io.StringIO(), width=20_000, highlight=False)
    monkeypatch.setattr("harness.cli.review.console", screen)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 60))
    assert main(["review", str(run_dir), "--sample", "60", "--no-report"]) == 0
    seen = screen.file.getvalue()
    assert "\x1b" not in seen and "\r" not in seen
    shown_replies = [t for p, s, t in zip(probes, statuses, strings, strict=True)
                     if s == 200 and len(t) < 20_000 and f"Reply: {shown(t)}\n" in seen]
    assert len(shown_replies) >= 20, len(shown_replies)  # replies with tabs are shown with tabs expanded

    # compare: the run against a copy of itself (its metrics.json holds the fuzzed error reasons)
    shutil.copytree(run_dir, run_env / "transcripts" / "fuzz-copy")
    capsys.readouterr()
    assert main(["compare", str(run_dir), str(run_env / "transcripts" / "fuzz-copy"), "--all"]) == 0
    assert "internal error" not in capsys.readouterr().err
