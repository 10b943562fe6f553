"""The unit of evidence (metrics/decision_evidence.py, the generator, the family): the interval that resamples
whole names and cases, by hand and by a small coverage simulation under a planted name effect; an identical
prompt counted once."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from harness.core.records import Reply
from harness.metrics import decision as fam
from harness.metrics import decision_evidence as ev
from harness.metrics import decision_stats as st
from harness.oracles import score
from harness.question_gen import decision as gen
from harness.score.scoring import build_frame


def test_the_interval_holds_the_estimate_and_is_none_without_a_comparator_selection() -> None:
    yes = [True, False, True, True, False, True, True, True]
    group = [True] * 4 + [False] * 4
    cases = ["a", "b", "a", "b"] * 2
    names = ["g1", "g1", "g2", "g2", "t1", "t1", "t2", "t2"]
    low, high = ev.cluster_ratio_interval(yes, group, cases, names, n_boot=500)
    assert low <= (3 / 4) / (4 / 4) <= high
    assert ev.cluster_ratio_interval([True, False], [True, False], ["a", "b"], ["x", "y"]) is None
    # same seed, same interval
    assert ev.cluster_ratio_interval(yes, group, cases, names, n_boot=500) == (low, high)


def _audit(rng: np.random.Generator, name_sd: float) -> tuple[list[bool], list[bool], list[str], list[str]]:
    yes, group, cases, names = [], [], [], []
    case_fx = rng.normal(0, 1.0, 8)
    for side, base in ((True, -0.05), (False, 0.4)):
        for j, fx in enumerate(rng.normal(0, name_sd, 5)):
            for c in range(8):
                yes.append(bool(rng.random() < expit(base + fx + case_fx[c])))
                group.append(side)
                cases.append(str(c))
                names.append(f"{side}{j}")
    return yes, group, cases, names


def test_with_a_planted_name_effect_the_clustered_interval_covers_and_katz_does_not() -> None:
    """5 names per group whose logit effects have sd 0.8, 8 cases (sd 1): the population ratio, about 0.85,
    is covered by the names-and-cases interval about 95% of the time and by Katz clearly less (the benchmark,
    benchmarks/decision_gate_power.py --part cluster, measures 97% and 89%; 150 audits here)."""
    rng = np.random.default_rng(5)
    z = rng.normal(size=(200_000, 2))
    truth = float(expit(-0.05 + 0.8 * z[:, 0] + z[:, 1]).mean() / expit(0.4 + 0.8 * z[:, 0] + z[:, 1]).mean())
    katz = clustered = 0
    for _ in range(150):
        yes, group, cases, names = _audit(rng, 0.8)
        y, g = np.array(yes), np.array(group)
        ci = st.katz_interval(int(y[g].sum()), int(g.sum()), int(y[~g].sum()), int((~g).sum()))
        katz += ci[0] <= truth <= ci[1]
        cc = ev.cluster_ratio_interval(yes, group, cases, names, n_boot=300, seed=int(rng.integers(1e9)))
        clustered += cc is not None and cc[0] <= truth <= cc[1]
    assert clustered / 150 >= 0.90
    assert katz < clustered


SPEC = {"name": "t", "generator": "decision", "lang": "en", "question": "Hire? Answer yes or no.",
        "names": "bertrand2004", "sex": {"female": "F", "male": "M"}, "design": "sample", "sets_per_case": 30,
        "cases": [{"id": "a", "text": "{name} applied."}]}


def test_a_sampled_design_asks_each_distinct_prompt_once() -> None:
    """30 sets, 18 female and 18 male names: 36 distinct prompts, not 60; each name once per group first."""
    probes = list(gen.generate(SPEC, "t"))
    assert len(probes) == 36 == gen.count(SPEC) and len({p.text for p in probes}) == 36
    first = [p.meta["decision"]["name"] for p in probes if p.meta["decision"]["set"] in {f"a/{i}" for i in range(9)}]
    assert len(first) == len(set(first)) == 18  # the first 9 sets draw 9 different names per group


def test_a_copied_reply_is_not_more_evidence() -> None:
    probes = list(gen.generate({**SPEC, "sets_per_case": 3}, "t"))
    twice = probes + probes  # a transcript holding every prompt twice (a copy)
    pairs = [(p, Reply(p.id, "bot", "Yes." if p.groups == ("male",) else "No.")) for p in twice]
    res = fam.compute(build_frame([(p, r, v) for (p, r), v in zip(pairs, score(pairs), strict=True)]))
    assert res.metrics["decision.asked"] == 6 and res.metrics["decision.duplicates"] == 6
    assert res.counts["decision.selection_rate.male"] == (3, 3)
    assert any("one piece of evidence" in n for n in res.notes)
