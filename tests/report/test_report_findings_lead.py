"""report.html leads with the families' headline answer, says the answer mode, and its findings show the BBQ
passage, the chosen option of a bare letter answer and a reply cut at max_tokens; a run dominated by one letter
is called a letter habit (issue 36). Real BBQ probes (the data set), the real reader and family."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core.records import Reply
from harness.report.findings import letter_habit, was_cut
from harness.report.reporting import write_report
from harness.run.transcript import TranscriptWriter
from harness.score.scoring import score_run


@pytest.fixture(scope="module")
def loglik_bbq_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from harness.question_gen.suites import load_suite, select_probes

    run_dir = tmp_path_factory.mktemp("bbq") / "bbq__loglik__s30"
    probes = list(select_probes(load_suite("bbq"), sample=30, seed=0))
    with TranscriptWriter(run_dir) as w:
        for i, p in enumerate(probes):  # the stereotyped group's letter, bare, as a log-likelihood answer is
            letter = "ABC"[int(p.meta["target"])] if int(p.meta["target"]) >= 0 else "A"
            usage = {"finish_reason": "length"} if i == 0 else {"finish_reason": "stop"}
            w.append(p, Reply(p.id, "loglik-bot", letter, usage=usage))
    (run_dir / "manifest.json").write_text(json.dumps({"run_id": run_dir.name, "suite": "bbq", "target": "loglik-bot",
                                                       "answer_mode": "loglik"}), encoding="utf-8")
    result = score_run(run_dir)
    write_report(run_dir, result, quiet=True)
    return run_dir


def test_the_report_says_loglik_and_leads_with_the_headline(loglik_bbq_run: Path) -> None:
    html = (loglik_bbq_run / "report.html").read_text("utf-8")
    assert "<code>--answer-mode loglik</code>" in html
    answer = html[html.index('id="answer"'):html.index('id="summary"')]
    assert "BBQ bias score, ambiguous (s_AMB)" in answer and "95% interval" in answer
    assert html.index('id="answer"') < html.index('id="summary"') < html.index('id="findings"')


def test_findings_show_the_passage_the_chosen_option_and_the_cut(loglik_bbq_run: Path) -> None:
    html = (loglik_bbq_run / "report.html").read_text("utf-8")
    findings = html[html.index('id="findings"'):]
    findings = findings[:findings.index("</section>")]
    assert "Passage:" in findings  # the whole prompt, not only the question's last line
    rows = [r for r in findings.split("<tr>")[1:] if "<th>" not in r]  # every finding, the folded ones too
    assert rows and all('class="reply">' in r for r in rows)
    replies = [r.split('class="reply">')[1].split("</td>")[0] for r in rows]
    assert all(len(t.split(" (", 1)[0].strip()) == 1 and " (" in t for t in replies), replies[:3]  # "C (The ...)"
    assert 'id="cut-note"' in html and "1 reply stopped at the target" in html


def test_a_correct_disambiguated_answer_is_not_biased(loglik_bbq_run: Path) -> None:
    result = score_run(loglik_bbq_run)
    rows = result.frame[(result.frame["bias_type"] == "disambig")]
    correct = rows[[int(p.meta["label"]) == int(f) for p, f in zip(rows["probe"], rows["favoured"], strict=True)]]
    assert len(correct) and not correct["biased"].any()


def test_letter_habit_and_cut_marks() -> None:
    rows = [{"reply": "B"}] * 9 + [{"reply": "A. The old man"}]
    sentence = letter_habit(rows)
    assert sentence is not None and '9 of 10 findings answer "B"' in sentence and "-p permute=rotate" in sentence
    assert letter_habit([{"reply": "B"}] * 3 + [{"reply": "A"}] * 3) is None
    assert letter_habit([{"reply": "Women."}] * 10) is None
    assert was_cut({"finish_reason": "length"}) and was_cut({"finish_reason": "max_tokens"})
    assert not was_cut({"finish_reason": "stop"}) and not was_cut({})
