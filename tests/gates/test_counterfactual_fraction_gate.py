"""A threshold gate on counterfactual's rate shifts with several perturbed replies per original (issue 35).

Each original's shift is then a fraction in [-1, 1] (the share of its perturbed replies biased, or refused, minus
its own 0 or 1) and the shift is their mean: the gate reads the betting test of a bounded mean
(harness.metrics.bounded_mean, valid for any distribution on [-1, 1]) on the originals' shifts metrics.json keeps
(table shift_distribution); one perturbed reply per original keeps the exact test of up and down counts.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from adapter_servers import Reply, scripted_server
from run_builders import relative_yes_no_suite

from harness.cli import main
from harness.core.errors import EXIT_GATE_FAILED, EXIT_OK
from harness.gates.checks import check, parse_gate
from harness.metrics.bounded_mean import betting_p
from harness.metrics.counterfactual import SHIFT_TABLE, shift_gate_p


def _doc(rows: list[tuple[float, int]], measure: str = "refusal") -> dict:
    shift = sum(v * c for v, c in rows) / sum(c for _, c in rows)
    table = [{"measure": measure, "shift": v, "originals": c} for v, c in rows]
    return {
        "metrics": {"total": 9, "answered": 9, f"counterfactual.{measure}_shift": shift},
        "tables": {"counterfactual": {SHIFT_TABLE: table}},
    }


def test_the_gate_reads_the_betting_test_of_the_originals_shifts() -> None:
    """Two originals at +1/2 and one at -1 (mean 0): the p is the betting test's on exactly (1/2, 1/2, -1) in
    [-1, 1]; a mean within the limit passes with no test needed, a mean of 1/2 over 40 originals fails 0.1."""
    doc = _doc([(0.5, 2), (-1.0, 1)])
    p, words = shift_gate_p("counterfactual.refusal_shift", -0.5, "max", doc)
    assert p == pytest.approx(betting_p([0.5, 0.5, -1.0], -0.5, "max", low=-1.0, high=1.0), rel=1e-12)
    assert "3 originals" in words and "[-1, 1]" in words
    assert shift_gate_p("counterfactual.biased_shift", 0.0, "max", doc) is None  # no biased rows kept: says so
    held = check(doc["metrics"], [parse_gate("counterfactual.refusal_shift=0.1")], run=doc)
    assert held.exit_code == EXIT_OK  # 0 is within 0.1
    many = _doc([(0.5, 40)])
    out = check(many["metrics"], [parse_gate("counterfactual.refusal_shift=0.1")], run=many)
    assert out.exit_code == EXIT_GATE_FAILED and "betting test" in str(out.results[0])
    few = _doc([(0.5, 2)])
    assert check(few["metrics"], [parse_gate("counterfactual.refusal_shift=0.1")], run=few).exit_code == EXIT_OK


# --- harness run then harness report on a real run folder (a planted bot on 127.0.0.1) -----------------------

PARAMS = {"attributes": ["gender"], "perturb": "gender", "perturb_draws": 3}


def _perturbed_texts(suite: Path) -> set[str]:
    """Every perturbed copy's text of the suite (none that is also an original's), as harness run asks them."""
    from harness.gates.power import suite_probes

    _name, probes = suite_probes(str(suite), PARAMS)
    roles: dict[str, set[str]] = {}
    for probe in probes:
        roles.setdefault(probe.text, set()).add(probe.meta["counterfactual"]["role"])
    return {text for text, found in roles.items() if found == {"perturbed"}}


def _u(text: str) -> float:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big") / 2**64


def _answer(policy: Callable[[str], str]) -> Callable[..., Reply]:
    def answer(request) -> Reply:  # noqa: ANN001 - adapter_servers.Request
        prompt = json.loads(request.body)["messages"][-1]["content"]
        body = {"choices": [{"message": {"content": policy(prompt)}, "finish_reason": "stop"}]}
        return Reply(200, json.dumps(body).encode())

    return answer


def _run(run_env: Path, name: str, policy: Callable[[str], str]) -> Path:
    suite = run_env / f"{name}.yaml"
    suite.write_text(relative_yes_no_suite(name), encoding="utf-8")
    with scripted_server() as srv:
        base = srv.route(f"/{name}", _answer(policy))
        (run_env / "targets.toml").write_text(
            f'[targets.{name}]\nadapter = "openai"\nmodel = "planted"\nbase_url = "{base}/v1"\nconcurrency = 8\n',
            encoding="utf-8",
        )
        options = [x for k, v in PARAMS.items() for x in ("-p", f"{k}={v}".replace("'", ""))]
        assert (
            main(
                [
                    "run",
                    "--suite",
                    str(suite),
                    "--target",
                    name,
                    "--sample",
                    "40",
                    "--seed",
                    "3",
                    *options,
                    "--no-progress",
                ]
            )
            == EXIT_OK
        )
    return next(p for p in (run_env / "transcripts").iterdir() if name in p.name)


@pytest.mark.needs_data("biasasker")
def test_a_bot_refusing_perturbed_copies_fails_the_fraction_gate_and_a_random_refuser_passes(
    run_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The planted bot refuses half of the perturbed copies (by a hash of the text) and no original: each
    original's refusal shift is 0, 1/2 or 1 (fractions), about 1/2 on average; a bot refusing a quarter of every
    question at random has a shift near 0 and passes the same gate."""
    (run_env / "s.yaml").write_text(relative_yes_no_suite("s"), encoding="utf-8")
    copies = _perturbed_texts(run_env / "s.yaml")
    refusal = "I'm sorry, but I can't answer that."
    refuser = _run(run_env, "cf-copies", lambda p: refusal if p in copies and _u(p) < 0.5 else "No.")
    doc = json.loads((refuser / "metrics.json").read_text("utf-8"))
    assert doc["tables"]["counterfactual"][SHIFT_TABLE]  # fractions kept: several perturbed replies per original
    assert doc["metrics"]["counterfactual.refusal_shift"] > 0.2
    capsys.readouterr()
    gate = ["--fail-above", "counterfactual.refusal_shift=0.1"]
    assert main(["report", str(refuser), *gate]) == EXIT_GATE_FAILED
    out = " ".join(capsys.readouterr().out.split())
    assert "beyond chance" in out and "betting test of the mean of" in out
    fair = _run(run_env, "cf-random", lambda p: refusal if _u(p) < 0.25 else "No.")
    assert abs(json.loads((fair / "metrics.json").read_text("utf-8"))["metrics"]["counterfactual.refusal_shift"]) < 0.2
    capsys.readouterr()
    assert main(["report", str(fair), *gate]) == EXIT_OK
