"""Log-likelihood answer mode: a real (tiny, randomly initialised) GPT-2 behind the hf adapter scores the
three letters; the runner must pick the argmax, write the same transcript format, resume and record errors."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from data_sets import needs
from tiny_models import build_tiny_gpt2

from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR
from harness.oracles.cbbq import score_cbbq
from harness.question_gen import cbbq
from harness.run.loglik import choose, run_loglik
from harness.run.transcript import TRANSCRIPT_FILE, TranscriptWriter, read_entries


@pytest.fixture(scope="module")
@needs("cbbq")  # its corpus is CBBQ's questions
def tiny_hf(tmp_path_factory: pytest.TempPathFactory):
    from harness.adapters.hf_local import HFLocalAdapter

    corpus = [p.text for p in cbbq.generate({"per_category": 2, "seed": 1}, "cbbq")] + ["A", "B", "C"] * 10
    directory = build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2-cbbq"), corpus, vocab_size=600,
                                n_positions=1024)
    return HFLocalAdapter("tiny", {"model": str(directory)})


def _probes(n: int = 6):
    return list(cbbq.generate({"categories": ["gender", "SES"], "per_category": n // 4 or 1, "seed": 2,
                               "prompt": "instruction"}, "cbbq"))


def test_loglik_picks_the_argmax_and_writes_the_transcript(tiny_hf, tmp_path: Path) -> None:
    probes = _probes(8)
    with TranscriptWriter(tmp_path) as writer:
        summary = asyncio.run(run_loglik(probes, tiny_hf, writer))
    assert summary.asked == len(probes) and summary.errors == 0
    entries = list(read_entries(tmp_path / TRANSCRIPT_FILE))
    assert [e.probe.id for e in entries] == [p.id for p in probes]
    for e in entries:
        scores = e.reply.usage["loglik"]
        assert e.reply.usage["answer_mode"] == "loglik" and e.reply.usage["continuations"] == ["A", "B", "C"]
        # the recorded scores are the model's own, and the reply is their argmax
        again = tiny_hf.loglikelihoods(e.probe.text, ["A", "B", "C"])
        assert scores == pytest.approx(again, abs=1e-4)
        assert e.reply.text == "ABC"[max(range(3), key=lambda i: scores[i])]
        assert all(s < 0 for s in scores)
        v = score_cbbq(e.probe, e.reply)  # a loglik reply always parses
        assert v.favoured == str("ABC".index(e.reply.text))


def test_option_texts_mode_and_resume_skip(tiny_hf, tmp_path: Path) -> None:
    probes = _probes(4)
    with TranscriptWriter(tmp_path) as writer:
        s = asyncio.run(run_loglik(probes, tiny_hf, writer, continuations="options", normalise=True,
                                   skip={probes[0].id}))
    assert s.skipped == 1 and s.asked == len(probes) - 1
    e = list(read_entries(tmp_path / TRANSCRIPT_FILE))[0]
    assert e.reply.usage["continuations"] == list(e.probe.options) and e.reply.usage["normalised"] is True


def test_choose_normalises_by_length_and_breaks_ties_first() -> None:
    assert choose([-6.0, -4.0, -5.0], ["AAAAAA", "B", "CC"], normalise=False) == 1
    assert choose([-6.0, -4.0, -5.0], ["AAAAAA", "B", "CC"], normalise=True) == 0
    assert choose([-1.0, -1.0, -2.0], ["A", "B", "C"], normalise=False) == 0


class _Broken:
    """Unit test of the error path only (the real model is tested above)."""

    name = "broken"

    def loglikelihoods(self, prompt: str, continuations: list[str]) -> list[float]:
        raise RuntimeError("CUDA out of memory")


@pytest.mark.needs_data("cbbq")
def test_a_failure_is_an_error_reply_not_a_lost_run(tmp_path: Path) -> None:
    probes = _probes(4)[:2]
    with TranscriptWriter(tmp_path) as writer:
        s = asyncio.run(run_loglik(probes, _Broken(), writer))
    assert s.errors == 2
    entries = list(read_entries(tmp_path / TRANSCRIPT_FILE))
    assert [e.reply.status for e in entries] == [STATUS_ERROR, STATUS_ERROR]
    assert "CUDA out of memory" in entries[0].reply.error


def test_probes_without_options_are_a_usage_error(tmp_path: Path) -> None:
    from harness.core.records import Probe

    p = Probe.make("biasasker-en", "en", "yes_no", "relative", "Are X lazy?")
    with TranscriptWriter(tmp_path) as writer, pytest.raises(HarnessError, match="only works for CBBQ"):
        asyncio.run(run_loglik([p], _Broken(), writer))
