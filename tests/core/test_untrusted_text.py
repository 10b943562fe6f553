"""Untrusted text stays text (issue 18, item 1): replies and error reasons full of rich markup, CJK and
emoji, served by a real OpenAI-compatible server on 127.0.0.1, shown unchanged by `harness run`'s
summary (errors by reason), `harness targets --check`, `harness review` and report.html.

Before: `[/INST]` in a reply made `targets --check` exit 3 with MarkupError, `[/messages]` in a reason
crashed the errors-by-reason table (no scoring, no report), and `REPLY[f3a...]` printed as `REPLY`.
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

import pytest
from fault_server import FaultServer
from rich.console import Console

from harness.cli import main
from harness.core.display import assemble, shown, untrusted
from harness.run.plan import load_suite_any, select_any

# A reply Llama-style models leak ([/INST]), markup that would restyle or link, a tag-shaped id, and a
# trailing backslash (rich's escape() doubles it).
MARKUP_REPLY = ("Yes. [/INST] [bold red]They are[/bold red] [link=https://evil.example/x]better[/link] "
                "REPLY[8f3a...] REPLY[f3a...] [@click=quit] C:\\temp\\")
CJK_REPLY = "是的，[/INST] 他们更勤劳。【注意】[粗体]"
EMOJI_REPLY = "Yes 👍🏽 absolutely 😀 [i]sure[/i] 🇨🇳"
MARKUP_REASON = "[/messages] bad request: [bold red]boom[/] REPLY[f3a...] [link=https://evil.example]x[/link]"


def _write_target(directory: Path, base_url: str) -> None:
    (directory / "targets.toml").write_text(
        f'[targets.scripted]\nadapter = "openai"\nmodel = "m"\nbase_url = "{base_url}"\nmax_tokens = 16\n',
        encoding="utf-8")


def test_shown_makes_terminal_controls_visible_and_keeps_everything_else() -> None:
    assert shown(MARKUP_REPLY) == MARKUP_REPLY and shown(CJK_REPLY) == CJK_REPLY and shown(EMOJI_REPLY) == EMOJI_REPLY
    assert shown("red\x1b[31m!\rX\x07 \u202eevil \ud800 tab\tline\nend") == (
        "red\\x1b[31m!\\x0dX\\x07 \\u202eevil \\ud800 tab\tline\nend")
    console = Console(file=io.StringIO(), width=300, color_system=None)
    console.print(assemble(("label:", "bold"), " ", MARKUP_REPLY), untrusted(MARKUP_REASON, "red"))
    assert console.file.getvalue() == f"label: {MARKUP_REPLY} {MARKUP_REASON}\n"


def test_markup_cjk_and_emoji_replies_and_reasons_shown_unchanged(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # rich wraps at the width; one reason per line keeps the check exact
    probes = list(select_any(load_suite_any("builtin-en"), sample=6, seed=0, limit=None, overrides={}))
    replies = {probes[0].text: MARKUP_REPLY, probes[1].text: CJK_REPLY, probes[2].text: EMOJI_REPLY}
    script = {p: (200, r) for p, r in replies.items()} | {probes[3].text: (400, MARKUP_REASON)}
    with FaultServer(fault_rate=0.0, script=script) as server:
        _write_target(run_env, server.base_url)
        code = main(["run", "-s", "builtin-en", "-t", "scripted", "--sample", "6", "--no-progress",
                     "--max-attempts", "1", "--max-error-rate", "0.5"])
        out = capsys.readouterr().out
        assert code == 0, out
        # the end-of-run summary's errors-by-reason table, then the report's summary: no MarkupError
        assert f"HTTP 400: {MARKUP_REASON}" in out
        assert "errors by reason" in out and "Report:" in out

        check_script = {"Reply with the single word OK.": (200, "[/INST] OK [bold red]REPLY[f3a...]")}
        server.script.update(check_script)
        assert main(["targets", "--check", "scripted"]) == 0
        assert "'[/INST] OK [bold red]REPLY[f3a...]'" in capsys.readouterr().out

    run_dir = next((run_env / "transcripts").iterdir())
    html = (run_dir / "report.html").read_text("utf-8")
    assert f"HTTP 400: {MARKUP_REASON}" in html
    with (run_dir / "verdicts.csv").open(encoding="utf-8", newline="") as fh:
        assert set(replies.values()) <= {row["reply"] for row in csv.DictReader(fh)}

    # harness review shows each reply as it is (Enter accepts the oracle's label)
    screen = Console(file=io.StringIO(), width=1000, highlight=False)
    monkeypatch.setattr("harness.cli.review.console", screen)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n" * 10))
    assert main(["review", str(run_dir), "--sample", "6", "--no-report"]) == 0
    seen = screen.file.getvalue()
    for reply in replies.values():
        assert f"Reply: {reply}\n" in seen, reply
