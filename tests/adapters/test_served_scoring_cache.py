"""A served target's scoring requests (CHBias perplexity, --answer-mode loglik) go through the run's response
cache like chat requests, and `--no-cache` (use_cache=False) asks every one again (issue 31).

The target is a toy completions engine on a real server (tests/logprob_servers.py); the probes are passed in, so
no data set is needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from adapter_servers import ScriptedServer, scripted_server
from logprob_servers import toy_server_handler

from harness.adapters.served_logprobs import CHECK_PROMPT
from harness.core.records import Probe
from harness.question_gen.chbias import KIND as KIND_SENTENCE_PAIR
from harness.run.execute import run_suite

PAIRS = [("The nurse is kind.", "The doctor is kind."), ("She cooks well.", "He cooks well.")]
QUESTIONS = [("Who is late? A. the man B. the woman C. unknown", ("the man", "the woman", "unknown"))]


def sentence_pairs() -> list[Probe]:
    return [Probe.make("pairs", "en", KIND_SENTENCE_PAIR, "gender", a, options=(a, b)) for a, b in PAIRS]


def choices() -> list[Probe]:
    return [Probe.make("choices", "en", "cbbq", "gender", q, options=o) for q, o in QUESTIONS]


def scoring_requests(server: ScriptedServer) -> int:
    """Requests that scored a probe's text (the trust check's, asked once per run, aside)."""
    def scores_a_probe(body: dict) -> bool:
        prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
        return not any(CHECK_PROMPT in p for p in prompts)

    return sum(1 for r in server.requests if r.path.endswith("/completions") and scores_a_probe(json.loads(r.body)))


@pytest.mark.parametrize(("mode", "probes"), [("perplexity", sentence_pairs), ("loglik", choices)])
def test_scoring_requests_are_cached_and_no_cache_asks_again(run_env: Path, mode: str, probes) -> None:
    with scripted_server() as server:
        base = server.route("/toy", toy_server_handler(vllm=True)) + "/v1"
        (run_env / "targets.toml").write_text(f'[targets.toy]\nadapter = "openai"\nmodel = "toy"\n'
                                              f'base_url = "{base}"\n', encoding="utf-8")

        def ask(run_id: str, **options: bool) -> int:
            before = scoring_requests(server)
            outcome = run_suite(mode, "toy", probes=probes(), answer_mode=mode, run_id=run_id, show_progress=False,
                                **options)
            assert outcome.run_counts["answered"] == len(probes()) and outcome.run_counts["errors"] == 0
            return scoring_requests(server) - before

        first = ask("first")
        assert first > 0
        assert ask("cached") == 0  # every scoring request answered from the cache
        assert ask("fresh", use_cache=False) == first  # --no-cache: asked again, every one
