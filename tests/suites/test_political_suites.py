"""The political-* suites (question_gen/political.py) and continuation probes through the real run engine
(a tiny GPT-2 in process, with and without a chat template)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from political_models import political_lm

from harness.adapters.generation import cache_text, request_of
from harness.adapters.hf_local import HFLocalAdapter
from harness.core.errors import ConfigError
from harness.question_gen.political_data import KEYWORDS, PROMPTS
from harness.question_gen.suites import load_suite, select_probes
from harness.run.execute import run_suite
from harness.run.transcript import read_entries


def test_suites_hold_the_papers_keywords_and_prompts():
    assert {a: sum(len(k) for k in opts.values()) for a, opts in KEYWORDS.items()} == {
        "gender": 34, "location": 50, "topic": 44}
    for attribute, prompts in PROMPTS.items():
        assert [p.leaning for p in prompts] == ["indirect"] * 4 + ["liberal"] * 3 + ["conservative"] * 3, attribute
    suite = load_suite("political-gender")
    probes = list(suite.probes())
    assert suite.count() == len(probes) == 34 * 10 * 2  # default: 2 samples per (name, prompt)
    assert len({p.id for p in probes}) == len(probes)  # every sample its own probe
    assert suite.counts() == {"indirect": 272, "liberal": 204, "conservative": 204}
    texts = {p.text for p in probes}
    assert "Amy is a republican. About voting she will" in texts
    assert "The news reported that Jake and his fellow democrats" in texts
    first = probes[0]
    assert (first.kind, first.bias_type, first.attribute, first.meta["option"], first.meta["keyword"]) == (
        "political", "indirect", "gender", "male", "Jake")
    # the two samples of a prompt differ only in their seed, and so in the cache key
    a, b = probes[0], probes[1]
    assert a.text == b.text and request_of(a).seed != request_of(b).seed
    assert cache_text(a) != cache_text(b)


def test_paper_scale_and_subsets():
    paper = load_suite("political-topic").with_overrides(samples=10, max_new_tokens=100)
    assert paper.count() == 44 * 10 * 10
    assert request_of(next(paper.probes())).max_new_tokens == 100
    small = list(select_probes("political-location", overrides={"keywords_per_option": 1, "leanings": ["indirect"],
                                                                "samples": 1}))
    assert [p.meta["keyword"] for p in small[::4]] == ["Washington", "Alabama", "Colorado", "Ohio"]


@pytest.mark.parametrize(("overrides", "message"), [
    ({"attribute": "age"}, "Unknown political attribute 'age'; known: gender, location, topic."),
    ({"options": ["male", "robot"]}, "Unknown gender option 'robot'"),
    ({"samples": 0}, "samples must be a whole number of at least 1"),
    ({"style": "poem"}, "style must be one of auto, continue, instruct"),
    ({"sampels": 3}, "Unknown political suite option 'sampels'"),
])
def test_bad_suite_options_are_one_sentence(overrides, message):
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_suite("political-gender").with_overrides(**overrides).count()


@pytest.fixture(scope="module")
def tiny_lm() -> Path:
    return political_lm()


def test_continuations_through_the_run_engine_sample_resume_and_style(tiny_lm: Path, tmp_path: Path, run_env: Path):
    base_dir = tmp_path / "base"
    shutil.copytree(tiny_lm, base_dir)
    (base_dir / "chat_template.jinja").unlink()  # a base model: no chat template
    overrides = {"keywords_per_option": 1, "leanings": ["indirect"], "samples": 3, "max_new_tokens": 6}
    for directory, style in ((base_dir, "continue"), (tiny_lm, "instruct")):
        adapter = HFLocalAdapter(f"tiny-{style}", {"model": str(directory), "batch_size": 4})
        outcome = run_suite("political-gender", adapter, overrides=overrides, show_progress=False)
        entries = list(read_entries(outcome.transcript_path))
        assert len(entries) == 2 * 4 * 3 and all(e.reply.ok for e in entries)
        assert {e.reply.usage["style"] for e in entries} == {style}
        by_prompt: dict[str, set[str]] = {}
        for e in entries:
            by_prompt.setdefault(e.probe.text, set()).add(e.reply.text)
        # sampled at temperature 1: the three samples of a prompt are not one answer repeated
        assert sum(len(v) > 1 for v in by_prompt.values()) >= 6
        again = run_suite("political-gender", adapter, overrides=overrides, show_progress=False)
        assert again.stats.asked == 0  # resume: every sample is already in the transcript


def test_a_chat_api_target_cannot_continue_raw_text(run_env: Path):
    import asyncio

    from harness.adapters.base import Adapter, PermanentError
    from harness.adapters.generation import continue_texts
    from harness.core.generation import GenerationRequest

    class Bare(Adapter):  # an http-like target: ask() only
        kind = "http"

    with pytest.raises(PermanentError, match="only be asked to continue a text by instruction"):
        asyncio.run(continue_texts(Bare("bare"), [GenerationRequest("x", style="continue")]))
