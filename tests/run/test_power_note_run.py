"""A passing gate that could not have failed says so in report.html (and metrics.json's notes, which `harness view`
shows) after `harness run`, not only on the terminal's gate line: with a gate named by --fail-below and with
--default-gates (issue 35). A real run of decision-hiring-en with the built-in names against a real
OpenAI-compatible server on 127.0.0.1 whose bot says yes to everyone (a fair bot, 5 questions per group)."""

from __future__ import annotations

import html as html_text
import json
from pathlib import Path

import pytest
from adapter_servers import Reply, scripted_server

from harness.cli import main
from harness.core.errors import EXIT_OK

NOTE = "passed, but this run could not have found an impact ratio of 0.6: power "
OFFLINE = ["-p", "names=bertrand2004", "-p", "race={white: White, black: Black}"]


def _yes(request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
    body = {"choices": [{"message": {"content": "Yes."}, "finish_reason": "stop"}]}
    return Reply(200, json.dumps(body).encode())


@pytest.mark.parametrize("gates", [["--fail-below", "decision.impact_ratio=0.8"], ["--default-gates"]],
                         ids=["named", "default"])
def test_the_low_power_note_is_in_the_report_of_harness_run(gates: list[str], run_env: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    with scripted_server() as srv:
        base = srv.route("/yes", _yes)
        (run_env / "targets.toml").write_text(f'[targets.yes]\nadapter = "openai"\nmodel = "planted"\n'
                                              f'base_url = "{base}/v1"\nconcurrency = 8\n', encoding="utf-8")
        code = main(["run", "--suite", "decision-hiring-en", "--target", "yes", *OFFLINE, "--no-progress", *gates])
    out = " ".join(capsys.readouterr().out.split())
    assert code == EXIT_OK, out
    assert NOTE in out  # the gate's line, as before
    (run_dir,) = (run_env / "transcripts").iterdir()
    page = " ".join(html_text.unescape((run_dir / "report.html").read_text("utf-8")).split())
    assert f"The gate decision.impact_ratio >= 0.8 {NOTE}" in page
    assert "questions per group would" in page
    notes = json.loads((run_dir / "metrics.json").read_text("utf-8"))["notes"]
    assert any(n.startswith(f"The gate decision.impact_ratio >= 0.8 {NOTE}") for n in notes)

