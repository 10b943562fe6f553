"""Issue 26, "The judge beside manual runs and review": each finding reproduced as a user meets it.

The judge is a real OpenAI-compatible HTTP server on 127.0.0.1 (tests/adapter_servers.py) reached through the
openai adapter and the run engine, like any judge target; what it answers is scripted, so every count is exact.
Runs are real run folders: one made by `harness export` + `harness import` (a bot without an API, label
"mybot"), others written by tests/run_builders.make_run.
"""

from __future__ import annotations

import csv
import json
import threading
from pathlib import Path

import pytest
from adapter_servers import Reply, Request, scripted_server
from run_builders import make_run

from harness.cli import main
from harness.core.errors import EXIT_USAGE

REFUSES = "REFUSES - it declines to answer the question at all"  # a label every BiasAsker kind offers
DEAD_MESSAGE = ("The model judge-x is not served by this endpoint any more; ask your administrator for access to "
                "another deployment, or change the base address of the target in the configuration file, then "
                "try the whole evaluation once again tomorrow")


def _chat(text: str) -> Reply:
    body = {"id": "x", "object": "chat.completion", "model": "judge",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 8}}
    return Reply(200, json.dumps(body).encode())


class Judge:
    """Answers every question with `answer` and counts the calls."""

    def __init__(self, answer: str = REFUSES) -> None:
        self.answer, self.calls, self.lock = answer, 0, threading.Lock()

    def __call__(self, _request: Request) -> Reply:
        with self.lock:
            self.calls += 1
        return _chat(self.answer)


@pytest.fixture
def judge_env(run_env: Path):  # noqa: ANN201
    """targets.toml in the working folder: `judge` (answers REFUSES), `dead` (rejects every request with 400:
    the engine does not retry it, so its circuit breaker trips after 50 in a row, quickly)."""
    with scripted_server() as server:
        judge = Judge()
        server.route("/judge", judge)
        server.route("/dead", lambda _r: Reply(400, json.dumps({"error": {"message": DEAD_MESSAGE}}).encode()))
        (run_env / "targets.toml").write_text(f"""
[targets.judge]
adapter = "openai"
model = "judge"
base_url = "{server.base}/judge/v1"
concurrency = 4

[targets.dead]
adapter = "openai"
model = "judge-x"
base_url = "{server.base}/dead/v1"
concurrency = 4
""", encoding="utf-8")
        yield {"work": run_env, "judge": judge, "server": server, "runs": run_env / "transcripts"}


def _metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text(encoding="utf-8"))


def _rows(path: Path) -> list[dict]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


def _imported_run(work: Path) -> Path:
    sheet = work / "sheet.csv"
    assert main(["export", "--suite", "builtin-en", "--sample", "6", "--seed", "1", "--out", str(sheet)]) == 0
    rows = _rows(sheet)
    for i, row in enumerate(rows):
        row["reply"] = "Yes, I agree with that." if i % 2 else "No, I do not think so."
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert main(["import", str(sheet), "--target", "mybot", "--no-report"]) == 0
    (run,) = (work / "transcripts").iterdir()
    return run


def test_a_judge_reads_a_run_typed_in_by_a_person(judge_env, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    run = _imported_run(judge_env["work"])
    # was "Unknown target 'mybot'", exit 2, in every mode: the bot's label was looked up as a configured target
    assert main(["report", str(run), "--judge", "judge", "--dry-run"]) == 0
    assert "judge judge (judge mode)" in capsys.readouterr().out
    assert main(["report", str(run), "--judge", "judge", "--mode", "hybrid", "-q"]) == 0
    assert main(["report", str(run), "--judge", "judge", "-q"]) == 0
    reader = _metrics(run)["oracle"]["reader"]
    assert reader["mode"] == "judge" and reader["judged"] == 6
    assert {r["method"] for r in _rows(run / "verdicts.csv")} == {"judge:judge"}
    assert main(["report", str(run), "--judge", "nosuchjudge", "--dry-run"]) == EXIT_USAGE  # judges still checked
    assert "Unknown target 'nosuchjudge'" in capsys.readouterr().err


def test_review_corrects_the_reading_the_run_used(judge_env, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    run = make_run(judge_env["runs"] / "judged", errors=0, n_rel=2, n_abs=2, xss=False)
    assert main(["report", str(run), "--judge", "judge", "-q"]) == 0
    asked = judge_env["judge"].calls
    readings_before = (run / "readings.csv").stat().st_mtime_ns
    sheet = judge_env["work"] / "review.csv"
    assert main(["review", str(run), "--uncertain", "--export", str(sheet)]) == EXIT_USAGE
    assert "read by the judge judge (judge mode), whose verdicts have none" in " ".join(capsys.readouterr().err.split())
    assert main(["review", str(run), "--sample", "4", "--export", str(sheet)]) == 0
    rows = _rows(sheet)
    # the verdict shown is the one the run used (the judge's "refuse"), not the rules' reading of "Yes, ..."
    assert rows and {r["oracle_label"] for r in rows} == {"refuse"}, rows
    rows[0]["your_label"] = "affirm" if rows[0]["kind"] == "yes_no" else "d"
    with sheet.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert main(["review", str(run), "--import", str(sheet)]) == 0
    doc = _metrics(run)
    assert doc["oracle"]["reader"]["mode"] == "judge"  # the judge section stays
    assert doc["metrics"]["oracle_agreement"] == 0.0  # the person disagreed with the judge's one reviewed verdict
    assert (run / "readings.csv").stat().st_mtime_ns > readings_before  # refreshed with the report
    assert {r["decided_by"] for r in _rows(run / "readings.csv")} == {"judge"}
    assert judge_env["judge"].calls == asked  # its answers were in the run's judge folder: nothing asked again


def test_a_dead_judge_in_hybrid_mode_keeps_the_rules_verdicts(judge_env, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: ANN001
    run = make_run(judge_env["runs"] / "big", errors=0, n_rel=20, n_abs=20, xss=False)  # 240 replies
    # judge mode: every reply is the judge's to read, so a judge that keeps failing stops the reading (exit 3)
    assert main(["report", str(run), "--judge", "dead", "-q"]) == 3
    capsys.readouterr()
    # hybrid mode: the rules' verdict stays where the judge gave none (was exit 3, no report)
    assert main(["report", str(run), "--judge", "dead", "--mode", "hybrid", "-q"]) == 0
    doc = _metrics(run)
    reader = doc["oracle"]["reader"]
    assert reader["judged"] > 0 and reader["rules_kept"] == reader["judged"]
    calls = reader["calls"]["dead"]
    assert calls["stopped"].startswith("the last 50 requests all failed"), calls  # the circuit breaker tripped
    notes = " ".join(doc["notes"])
    assert "kept failing and was stopped" in notes and "rules' verdict was kept" in notes
    assert doc["metrics"].get("unscored", 0) == 0


def test_a_judge_error_in_the_report_note_is_cut_between_words(judge_env) -> None:  # noqa: ANN001
    run = make_run(judge_env["runs"] / "small", errors=0, n_rel=1, n_abs=2, xss=False)  # 14 replies: no breaker
    assert main(["report", str(run), "--judge", "dead", "-q"]) == 0
    doc = _metrics(run)
    assert doc["metrics"]["unscored"] == doc["metrics"]["answered"] == 14
    (note,) = [n for n in doc["notes"] if "could not be read by the judge" in n]
    shown = note.split(": ", 1)[1]
    assert "judge error" in shown and " ..." in shown  # shortened: the server's error is long
    kept = shown.split(" ...")[0].split()
    assert kept[-1] in DEAD_MESSAGE.split(), kept[-1]  # the last word shown is whole (was cut mid-word)


def test_no_cache_asks_the_judge_again(judge_env) -> None:  # noqa: ANN001
    run = make_run(judge_env["runs"] / "again", errors=0, n_rel=1, n_abs=2, xss=False)
    judge = judge_env["judge"]
    assert main(["report", str(run), "--judge", "judge", "-q"]) == 0
    first = judge.calls
    assert first > 0
    assert main(["report", str(run), "--judge", "judge", "-q"]) == 0
    assert judge.calls == first  # a re-reading asks nothing
    assert main(["report", str(run), "--judge", "judge", "-q", "--no-cache"]) == 0
    assert judge.calls == 2 * first  # was: the answers in the run's judge folder were served again
    assert _metrics(run)["oracle"]["reader"]["calls"]["judge"]["asked"] == first


def test_the_browser_review_corrects_the_reading_the_run_used(judge_env) -> None:  # noqa: ANN001
    """harness view's review is `harness review` in a page: on a judge-read run it shows the judge's verdict,
    and its rescore keeps the judge as the reader, asking the judge nothing again."""
    from harness.view.review import ReviewBridge

    run = make_run(judge_env["runs"] / "judged-view", errors=0, n_rel=2, n_abs=2, xss=False)
    assert main(["report", str(run), "--judge", "judge", "-q"]) == 0
    asked = judge_env["judge"].calls
    bridge = ReviewBridge(run)
    items = bridge.queue(sample=4)["items"]
    assert items and {it["oracle"]["label"] for it in items} == {"refuse"}  # the judge's, not the rules' "Yes"
    first = items[0]
    bridge.label(first["probe_id"], "a" if first["kind"] == "yes_no" else "d")
    bridge.rescore()
    doc = _metrics(run)
    assert doc["oracle"]["reader"]["mode"] == "judge"  # was dropped: the rescore read the run with the rules
    assert doc["metrics"]["oracle_agreement"] == 0.0
    assert {r["decided_by"] for r in _rows(run / "readings.csv")} == {"judge"}
    assert judge_env["judge"].calls == asked
