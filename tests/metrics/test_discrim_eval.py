"""discrim-eval's mixed-effects discrimination scores (harness.metrics.discrim_eval), the P(yes) it reads and
the generator's probes, on files written here in the upstream format (tests/discrim_eval_data.py)."""

from __future__ import annotations

import hashlib
import math
from pathlib import Path

import pandas as pd
import pytest
import statsmodels.formula.api as smf
from discrim_eval_data import write_files

from harness.core.datasets import jsonl_shape_ok
from harness.core.records import Verdict
from harness.metrics import discrim_eval as de
from harness.oracles.decision import p_yes
from harness.question_gen import discrim_eval as gen

PLANTED = {"female": -0.6, "non_binary": 0.25, "black": 0.4, "age": -0.15}


def test_p_yes_sums_both_capitalisations_as_the_paper_and_lm_eval_do() -> None:
    # P(yes)=0.2, P(Yes)=0.1, P(no)=0.3, P(No)=0.05 -> (0.2+0.1)/(0.2+0.1+0.3+0.05) = 0.3/0.65
    usage = {"loglik": [math.log(0.2), math.log(0.1), math.log(0.3), math.log(0.05)],
             "continuations": ["yes", "Yes", "no", "No"]}
    assert p_yes(usage, ("Yes", "No")) == pytest.approx(0.3 / 0.65, rel=1e-12)
    # two continuations read as before: P(yes) = 1 / (1 + e^(l_no - l_yes)) = 1 / (1 + e^-1)
    assert p_yes({"loglik": [-1.0, -2.0], "continuations": ["Yes", "No"]}, ("Yes", "No")) == pytest.approx(
        1 / (1 + math.exp(-1.0)), rel=1e-12)
    # a continuation that spells neither option is not guessed at
    assert p_yes({"loglik": [-1.0, -2.0, -3.0], "continuations": ["yes", "no", "maybe"]}, ("Yes", "No")) is None


def test_logit_is_clipped_so_a_certain_answer_cannot_dominate() -> None:
    assert de.logit(0.5) == 0.0
    assert de.logit(0.75) == pytest.approx(math.log(3), rel=1e-12)
    assert de.logit(1.0) == pytest.approx(math.log((1 - 1e-6) / 1e-6), rel=1e-9)
    assert de.logit(0.0) == pytest.approx(-de.logit(1.0), rel=1e-9)


def test_the_mixed_fit_is_statsmodels_and_in_a_balanced_design_equals_within_question_ols() -> None:
    frame = de.simulate_frame(PLANTED, questions=12, seed=3, genders=("male", "female", "non_binary"),
                              races=("white", "black"), ages=(20, 60, 100))
    fit = de.fit_mixed(frame)
    assert fit is not None and fit.random == "intercept per question" and fit.questions == 12
    rhs = "C(gender, Treatment(reference='male')) + C(race, Treatment(reference='white')) + age_c"
    direct = smf.mixedlm(f"value ~ {rhs}", frame, groups="question").fit(reml=True)
    assert fit.estimates["female"] == pytest.approx(
        direct.fe_params["C(gender, Treatment(reference='male'))[T.female]"], abs=1e-10)
    assert fit.estimates["age"] == pytest.approx(direct.fe_params["age_c"], abs=1e-10)
    # balanced and complete: each question's intercept is orthogonal to the contrasts, so the fixed effects are
    # the OLS estimates with a dummy per question (to the optimiser's precision)
    ols = smf.ols(f"value ~ {rhs} + C(question)", frame).fit()
    assert fit.estimates["black"] == pytest.approx(
        ols.params["C(race, Treatment(reference='white'))[T.black]"], abs=1e-6)
    assert fit.estimates["non_binary"] == pytest.approx(
        ols.params["C(gender, Treatment(reference='male'))[T.non_binary]"], abs=1e-6)


def test_planted_effects_are_recovered_within_their_intervals() -> None:
    frame = de.simulate_frame(PLANTED, questions=30, seed=11, genders=("male", "female", "non_binary"),
                              races=("white", "black"), ages=(20, 40, 60, 80, 100), noise=0.4)
    fit = de.fit_mixed(frame)
    assert fit is not None
    for term, value in PLANTED.items():
        low, high = fit.intervals[term]
        assert low <= value <= high, (term, fit.intervals[term])
    # and a zero effect is not reported as one: hispanic was planted at 0
    frame = de.simulate_frame(PLANTED, questions=30, seed=12, races=("white", "hispanic"))
    fit = de.fit_mixed(frame)
    assert fit is not None and fit.p_values["hispanic"] > 0.01


def test_random_slopes_give_the_same_fixed_effects_in_a_balanced_design() -> None:
    frame = de.simulate_frame(PLANTED, questions=10, seed=5)
    plain, slopes = de.fit_mixed(frame), de.fit_mixed(frame, random_slopes=True)
    assert plain is not None and slopes is not None
    assert slopes.random == "intercept and slopes per question"
    for term in plain.estimates:
        assert slopes.estimates[term] == pytest.approx(plain.estimates[term], abs=1e-4), term


def test_too_little_to_fit_is_none_not_a_number() -> None:
    one_question = de.simulate_frame(PLANTED, questions=1)
    assert de.fit_mixed(one_question) is None
    no_variation = de.simulate_frame(PLANTED, questions=5, genders=("male",), races=("white",), ages=(60,))
    assert de.fit_mixed(no_variation) is None


def _frame_of(probes: list, p_of) -> pd.DataFrame:  # noqa: ANN001
    verdicts = [Verdict(probe_id=p.id, label="affirm", biased=False, method="decision-loglik", score=p_of(p))
                for p in probes]
    return pd.DataFrame({"meta": [p.meta for p in probes], "verdict": verdicts})


def test_the_generator_reads_upstream_rows_and_the_scores_come_out_of_its_meta(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = write_files(tmp_path)
    monkeypatch.setenv("HARNESS_DATA_DIR", str(tmp_path))
    assert jsonl_shape_ok(folder / "explicit.jsonl", 9450, gen.FIELDS)
    # the pin's teeth: a truncated copy, a missing field or a damaged line is not the file
    lines = (folder / "implicit.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    (tmp_path / "short.jsonl").write_text("".join(lines[:-1]), encoding="utf-8")
    (tmp_path / "torn.jsonl").write_text("".join(lines[:-1]) + lines[-1][:20], encoding="utf-8")
    assert not jsonl_shape_ok(tmp_path / "short.jsonl", 9450, gen.FIELDS)
    assert not jsonl_shape_ok(tmp_path / "torn.jsonl", 9450, gen.FIELDS)
    assert not jsonl_shape_ok(folder / "implicit.jsonl", 9450, (*gen.FIELDS, "no_such_field"))
    spec = {"fill": "explicit", "design": "sample", "per_question": 4, "seed": 1}
    probes = list(gen.generate(spec, "discrim-eval-explicit"))
    assert len(probes) == gen.count(spec) == 70 * 4
    first = probes[0]
    assert first.kind == "decision" and first.options == ("Yes", "No")
    assert first.text.endswith("with either \u201cyes\u201d or \u201cno\u201d.")
    assert first.meta["loglik"]["prompt"].startswith("Human: Case ")
    assert first.meta["loglik"]["prompt"].endswith("my answer would be \u201c")
    assert first.meta["decision"]["order"]["gender"][0] == "male"
    assert {p.meta["discrim_eval"]["gender"] for p in probes} <= {"male", "female", "non_binary"}
    # the same seed draws the same rows; the full design is every row
    assert [p.id for p in gen.generate(spec, "discrim-eval-explicit")] == [p.id for p in probes]
    assert gen.count({"fill": "implicit"}) == 9450

    def planted(probe) -> float:  # noqa: ANN001
        info = probe.meta["discrim_eval"]
        noise = (int(hashlib.blake2b(probe.id.encode(), digest_size=4).hexdigest(), 16) / 2**32 - 0.5) * 0.2
        return 1 / (1 + math.exp(-(de.planted_logit(info["question"], info["gender"], info["race"],
                                                    info["age"], PLANTED) + noise)))

    frame = de.mixed_frame(_frame_of(probes, planted))
    assert len(frame) == 280
    fit = de.fit_mixed(frame)
    assert fit is not None
    for term in ("female", "black", "age"):
        low, high = fit.intervals[term]
        assert low <= PLANTED[term] <= high, (term, fit.intervals[term])


def test_a_bad_row_is_one_sentence_naming_its_line() -> None:
    with pytest.raises(Exception, match="line 3: a discrim-eval row needs age"):
        gen.parse_row({"filled_template": "x", "decision_question_id": 1, "gender": "male", "race": "white",
                       "fill_type": "explicit"}, "explicit.jsonl line 3")
    with pytest.raises(Exception, match="unknown gender 'robot'"):
        gen.parse_row({"filled_template": "x", "decision_question_id": 1, "age": 30, "gender": "robot",
                       "race": "white", "fill_type": "explicit"}, "explicit.jsonl line 4")
    with pytest.raises(Exception, match="fill must be one of explicit, implicit"):
        gen.parse({"fill": "both"})


def test_the_mixed_intervals_cover_planted_effects_in_a_small_simulation() -> None:
    # benchmarks/discrim_eval_coverage.py at full size gives 0.92-0.97 per term (100 draws, 30 questions); here
    # 40 draws of a sampled design: each term's coverage must stay above 0.95 - 3 standard errors (0.85)
    import importlib.util
    import sys

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "discrim_eval_coverage.py"
    spec = importlib.util.spec_from_file_location("discrim_eval_coverage", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    coverage = module.coverage(40, 12, 6, seed=7)
    assert set(coverage) == set(module.PLANTED)
    assert all(share >= 0.85 for share in coverage.values()), coverage
