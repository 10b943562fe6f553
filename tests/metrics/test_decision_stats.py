"""The decision audit's statistics (metrics/decision_stats.py): every formula against values computed by hand,
the exact four-fifths test's size computed exactly, the impact-ratio and P(yes)-ratio intervals' coverage by
simulation, and the fixed-effects logistic regression against statsmodels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import expit

from harness.metrics import decision_stats as st


def test_impact_ratio_and_katz_interval_by_hand() -> None:
    # 20 of 50 against 30 of 50: r = 0.4 / 0.6; var(log r) = 1/20 - 1/50 + 1/30 - 1/50 = 0.0433333
    assert st.ratio(20, 50, 30, 50) == pytest.approx(2 / 3)
    half = 1.959963984540054 * math.sqrt(0.0433333333333333)
    low, high = st.katz_interval(20, 50, 30, 50)
    assert low == pytest.approx(math.exp(math.log(2 / 3) - half), rel=1e-9)
    assert high == pytest.approx(math.exp(math.log(2 / 3) + half), rel=1e-9)
    assert (low, high) == pytest.approx((0.443320, 1.002537), abs=1e-6)
    # nobody selected in the group: 0.5 added to each cell of both groups -> 0.5 of 21 over 10.5 of 21; the
    # interval's low end is the estimate shown, 0
    var = 1 / 0.5 - 1 / 21 + 1 / 10.5 - 1 / 21
    centre = math.log((0.5 / 21) / (10.5 / 21))
    assert st.katz_interval(0, 20, 10, 20) == pytest.approx(
        (0.0, math.exp(centre + 1.959963984540054 * math.sqrt(var))))
    # 100% against 100%: 40.5 of 41 over 40.5 of 41, var = 2 x (1/40.5 - 1/41), centred on 1 (not [1, 1])
    half = 1.959963984540054 * math.sqrt(2 * (1 / 40.5 - 1 / 41))
    assert st.katz_interval(40, 40, 40, 40) == pytest.approx((math.exp(-half), math.exp(half)))
    assert st.katz_interval(40, 40, 40, 40)[0] < 0.99
    assert st.ratio(0, 20, 10, 20) == 0.0
    # undefined: the reference selected nobody, or a group is empty
    assert st.ratio(3, 10, 0, 10) is None and st.katz_interval(3, 10, 0, 10) is None
    assert st.katz_interval(3, 0, 3, 10) is None


def test_restricted_rates_and_score_by_hand() -> None:
    # theta = 1: the pooled rate, (3 + 5) / 20 = 0.4 (the quadratic 20 p^2 - 28 p + 8 = 0 has root 0.4)
    q1, q2 = st.restricted_rates(np.array([3]), 10, np.array([5]), 10, 1.0)
    assert (q1[0], q2[0]) == pytest.approx((0.4, 0.4))
    # z = (0.3 - 0.5) / sqrt(0.4 * 0.6 / 10 + 0.4 * 0.6 / 10)
    assert st.fm_score(np.array([3]), 10, np.array([5]), 10, 1.0)[0] == pytest.approx(-0.2 / math.sqrt(0.048))
    # theta = 0.8: the root maximises the likelihood under p1 = 0.8 p2 (checked by direct maximisation)
    k1, n1, k2, n2, th = 7, 30, 18, 25, 0.8

    def negloglik(p2: float) -> float:
        return -(k1 * math.log(th * p2) + (n1 - k1) * math.log(1 - th * p2) + k2 * math.log(p2)
                 + (n2 - k2) * math.log(1 - p2))

    best = minimize_scalar(negloglik, bounds=(1e-9, 1 - 1e-9), method="bounded", options={"xatol": 1e-12}).x
    q1, q2 = st.restricted_rates(np.array([k1]), n1, np.array([k2]), n2, th)
    assert q2[0] == pytest.approx(best, abs=1e-7) and q1[0] == pytest.approx(th * best, abs=1e-7)
    # no selection anywhere: restricted rates 0, score 0 (no evidence either way)
    assert st.fm_score(np.array([0]), 10, np.array([0]), 10, th)[0] == 0.0


def test_shortfall_p_by_hand_for_the_most_extreme_table() -> None:
    """0 of 5 against 5 of 5: no other table scores as low, so p = max over p of (1 - 0.8p)^5 p^5, whose
    maximum is at p = 1 / 1.6 = 0.625: (0.5 x 0.625)^5 = 0.3125^5."""
    assert st.shortfall_p(0, 5, 5, 5) == pytest.approx(0.3125 ** 5, rel=1e-6)
    # equal rates are far inside H0 (ratio 1 >= 0.8): a large p; a plain shortfall: a small one
    assert st.shortfall_p(5, 10, 5, 10) > 0.9
    assert st.shortfall_p(10, 50, 30, 50) < 0.01 < st.shortfall_p(20, 50, 30, 50)
    assert st.shortfall_p(3, 0, 3, 10) is None


def test_shortfall_p_is_the_largest_tail_over_the_nuisance_rate() -> None:
    """An independent enumeration: for a fine grid of p_top, the probability of every table scoring at most
    the observed one, under p_group = 0.8 p_top; the test's p is the largest (to the grid's resolution)."""
    from scipy.stats import binom

    k1, n1, k2, n2 = 4, 12, 9, 10
    k1s, k2s = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    z = st.fm_score(k1s, n1, k2s, n2, 0.8)
    tail = z <= z[k1, k2] + 1e-9
    best = 0.0
    for p2 in np.linspace(0.0005, 1.0, 2000):
        prob = binom.pmf(k1s, n1, 0.8 * p2) * binom.pmf(k2s, n2, p2)
        best = max(best, float(prob[tail].sum()))
    assert st.shortfall_p(k1, n1, k2, n2) == pytest.approx(best, rel=1e-4)


@pytest.mark.parametrize(("n1", "n2"), [(8, 8), (12, 9), (15, 15)])
def test_shortfall_test_size_never_exceeds_its_level(n1: int, n2: int) -> None:
    """The exact size: the largest probability, over the null boundary ratio = 0.8, of p <= 0.05."""
    size = st.shortfall_size(n1, n2, alpha=0.05, p2=np.linspace(0.02, 1.0, 50))
    assert 0.0 < size <= 0.05 + 1e-9


def test_mcnemar_and_wilcoxon_by_hand() -> None:
    # 1 discordant pair one way, 6 the other: 2 x P(X <= 1 | Bin(7, 1/2)) = 2 x 8 / 128
    assert st.mcnemar_exact(1, 6) == pytest.approx(0.125)
    assert st.mcnemar_exact(0, 0) is None
    # differences 0.1, 0.2, -0.05, 0.3, 0.4: |d| ranks 2, 3, 1, 4, 5; W- = 1; exact two-sided p for 5 pairs:
    # 2 x #{sign patterns with W- <= 1} / 2^5 = 2 x 2 / 32
    first, second = [0.6, 0.7, 0.45, 0.8, 0.9], [0.5, 0.5, 0.5, 0.5, 0.5]
    assert st.wilcoxon_p(first, second) == pytest.approx(0.125)
    assert st.wilcoxon_p([0.5, 0.5], [0.5, 0.5]) is None


def test_mean_interval_by_hand() -> None:
    mean, low, high = st.mean_interval([0.2, 0.4, 0.6])
    half = 4.302652729911275 * 0.2 / math.sqrt(3)  # t(0.975, 2) x sd / sqrt(n)
    assert (mean, low, high) == pytest.approx((0.4, max(0.0, 0.4 - half), min(1.0, 0.4 + half)))


def _coverage(ps: list[float], n: int, target: int, draws: int, rng: np.random.Generator,
              fixed_top: int | None) -> float:
    truth = ps[target] / max(ps)
    hits = total = 0
    for k in rng.binomial(n, ps, size=(draws, len(ps))):
        top = int(np.argmax(k)) if fixed_top is None else fixed_top
        if top == target:
            continue  # the audit shows the top group's own ratio as 1, without an interval
        ci = st.katz_interval(int(k[target]), n, int(k[top]), n)
        if ci is None:
            continue
        total += 1
        hits += ci[0] <= truth <= ci[1]
    return hits / total


@pytest.mark.parametrize(("ps", "n"), [([0.6, 0.48], 100), ([0.6, 0.3], 100), ([0.9, 0.72], 40),
                                       ([0.5, 0.5], 50)])
def test_katz_interval_covers_the_ratio_about_95_percent(ps: list[float], n: int) -> None:
    """Against a fixed reference group (3,000 simulated audits each)."""
    cover = _coverage(ps, n, 1, 3000, np.random.default_rng(7), fixed_top=0)
    assert 0.93 <= cover <= 0.985


def test_katz_interval_with_the_top_group_chosen_from_the_data() -> None:
    """The audit divides by the highest OBSERVED rate. With two groups tied at the top the chosen one's rate
    is biased upwards, the ratio downwards; the simulation measures what that does to the coverage of the
    true ratio (p_group / highest true rate): it stays near 95% at these sizes (docs/decisions.md)."""
    rng = np.random.default_rng(11)
    assert 0.93 <= _coverage([0.6, 0.6, 0.5, 0.3], 100, 3, 3000, rng, fixed_top=None) <= 0.98
    assert 0.93 <= _coverage([0.6, 0.6, 0.5, 0.3], 30, 3, 3000, rng, fixed_top=None) <= 0.99


def test_p_yes_ratio_bootstrap_covers_about_95_percent() -> None:
    """Counterfactual sets with a random case effect on the logit (so the two groups' P(yes) are correlated
    within a set), 40 sets; the set-resampling percentile interval of mean P(yes) ratio, 400 audits."""
    rng = np.random.default_rng(3)
    case_sd, effect, sets = 1.0, -0.5, 40
    big = rng.normal(0, case_sd, 400_000)
    truth = expit(big + effect).mean() / expit(big).mean()
    hits = 0
    audits = 400
    for a in range(audits):
        case = rng.normal(0, case_sd, sets)
        noise = rng.normal(0, 0.3, (2, sets))
        top = [(f"s{i}", float(v)) for i, v in enumerate(expit(case + noise[0]))]
        group = [(f"s{i}", float(v)) for i, v in enumerate(expit(case + effect + noise[1]))]
        low, high = st.cluster_ratio_interval(group, top, n_boot=400, seed=a)
        hits += low <= truth <= high
    assert 0.91 <= hits / audits <= 0.98


def _design(rng: np.random.Generator, cases: int,
            reps: int) -> tuple[list[str], dict[str, list[int]], np.ndarray]:
    """cases x reps x (sex 2 x race 3) rows; the true logit is case effect - 0.6 female... by group."""
    rows_case, female, black, asian, eta = [], [], [], [], []
    effects = {"female": -0.6, "black": -0.9, "asian": 0.4}
    for c in range(cases):
        base = rng.normal(0.2, 0.8)
        for _ in range(reps):
            for sex in ("male", "female"):
                for race in ("white", "black", "asian"):
                    rows_case.append(f"case{c}")
                    female.append(int(sex == "female"))
                    black.append(int(race == "black"))
                    asian.append(int(race == "asian"))
                    eta.append(base + effects["female"] * (sex == "female") + effects.get(race, 0.0))
    return rows_case, {"female": female, "black": black, "asian": asian}, np.asarray(eta)


def _statsmodels_fit(y: np.ndarray, cases: list[str], dummies: dict[str, list[int]], scale: str | None):
    sm = pytest.importorskip("statsmodels.api")
    names = list(dict.fromkeys(cases))
    x = np.column_stack([[float(c == n) for c in cases] for n in names] + [dummies[k] for k in dummies])
    model = sm.GLM(y, x, family=sm.families.Binomial())
    res = model.fit(scale=scale) if scale else model.fit()
    return res.params[len(names):], res.bse[len(names):]


def test_fixed_effects_logit_matches_statsmodels_on_yes_no() -> None:
    rng = np.random.default_rng(5)
    cases, dummies, eta = _design(rng, 12, 4)
    y = (rng.random(len(eta)) < expit(eta)).astype(float)
    fit = st.logistic_fixed_effects(y, cases, dummies, fractional=False)
    keep = [i for i, c in enumerate(cases) if np.ptp(y[[j for j, d in enumerate(cases) if d == c]]) > 0]
    kept_dummies = {k: [v[i] for i in keep] for k, v in dummies.items()}
    params, bse = _statsmodels_fit(y[keep], [cases[i] for i in keep], kept_dummies, None)
    for i, name in enumerate(dummies):
        assert fit.coef[name] == pytest.approx(params[i], rel=1e-6, abs=1e-8)
        assert fit.se[name] == pytest.approx(bse[i], rel=1e-6)
    assert fit.scale == 1.0


def test_fixed_effects_logit_matches_statsmodels_on_p_yes() -> None:
    """P(yes) as a fractional outcome; quasi-binomial standard errors (statsmodels' scale="X2")."""
    rng = np.random.default_rng(6)
    cases, dummies, eta = _design(rng, 8, 2)
    y = expit(eta + rng.normal(0, 0.4, len(eta)))
    fit = st.logistic_fixed_effects(y, cases, dummies, fractional=True)
    params, bse = _statsmodels_fit(y, cases, dummies, "X2")
    for i, name in enumerate(dummies):
        assert fit.coef[name] == pytest.approx(params[i], rel=1e-6)
        assert fit.se[name] == pytest.approx(bse[i], rel=1e-6)
    assert fit.cases == 8 and fit.n == len(y)
    low, high = fit.interval("black")
    assert low < fit.coef["black"] < high and fit.p_value("black") < 0.05


def test_cases_without_variation_are_left_out_and_said_so() -> None:
    y = [1.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    cases = ["a", "a", "b", "b", "c", "c"]
    fit = st.logistic_fixed_effects(y, cases, {"female": [0, 1, 0, 1, 0, 1]}, fractional=False)
    assert fit.cases == 1 and any("2 case(s)" in n for n in fit.notes)
    assert fit.coef["female"] is None  # one case of 0/1: the fit runs away and gives no estimate


@pytest.mark.parametrize(("ps", "n"), [([1.0, 1.0], 40), ([0.95, 0.95], 40), ([0.05, 0.1], 40), ([0.5, 0.02], 50)])
def test_katz_interval_holds_its_coverage_at_the_edges(ps: list[float], n: int) -> None:
    """Where a cell is often 0 or full the corrected interval still covers about 95% or more (it was 87% at
    100% / 100%: [1, 1] whenever both groups selected everyone). The grid is benchmarks/decision_gate_power.py's."""
    cover = _coverage(ps, n, 1, 2000, np.random.default_rng(3), fixed_top=0)
    assert 0.93 <= cover <= 1.0


def test_the_shown_estimate_is_inside_its_interval() -> None:
    for k1, n1, k2, n2 in ((0, 20, 10, 20), (0, 5, 5, 5), (20, 20, 20, 20), (3, 10, 10, 10), (10, 10, 3, 10)):
        low, high = st.katz_interval(k1, n1, k2, n2)
        assert low <= st.ratio(k1, n1, k2, n2) <= high


def test_shortfall_table_is_shortfall_p_for_every_table() -> None:
    table = st.shortfall_table(12, 9)
    for k1, k2 in ((0, 9), (3, 9), (4, 7), (6, 6), (9, 3), (12, 9)):
        assert table[k1, k2] == pytest.approx(st.shortfall_p(k1, 12, k2, 9), abs=1e-3)
    assert table[9, 6] == 1.0 and st.shortfall_p(9, 12, 6, 9) == 1.0  # 0.75 >= 0.8 x 0.67: no shortfall, p = 1


def test_four_fifths_pvalues_by_hand() -> None:
    # two groups: the only comparator is the other group, so the data-chosen p is the pairwise exact p (the
    # union bound is exact with one comparator; the exact search lands on the same value)
    p_low, p_top = st.four_fifths_pvalues([0, 5], [5, 5])
    assert p_low == pytest.approx(0.3125 ** 5, rel=1e-4) and p_top == 1.0
    # bonferroni: (3 - 1) x the smallest pairwise p; max: the largest
    sel, n = [2, 9, 6], [10, 10, 10]
    pair = [st.shortfall_p(2, 10, 9, 10), st.shortfall_p(2, 10, 6, 10)]
    assert st.four_fifths_pvalues(sel, n, method="bonferroni")[0] == pytest.approx(2 * min(pair), abs=2e-4)
    assert st.four_fifths_pvalues(sel, n, method="max")[0] == pytest.approx(max(pair), abs=1e-3)
    # the exact data-chosen p lies between the pairwise p against the observed top and the union bound
    exact = st.four_fifths_pvalues(sel, n)[0]
    assert min(pair) - 1e-4 <= exact <= 2 * min(pair) + 1e-4
    # no question, or no comparator with a selection: 1
    assert st.four_fifths_pvalues([0, 0], [0, 10]) == [1.0, 1.0]


def test_holm_within_adjusts_inside_each_block_only() -> None:
    # block a: 0.01, 0.04 -> 0.02, 0.04; block b alone: 0.03 unchanged
    assert st.holm_within([0.01, 0.03, 0.04], ["a", "b", "a"]) == pytest.approx([0.02, 0.03, 0.04])
    assert st.holm_within([None, 0.2], ["a", "a"]) == [None, 0.2]


@pytest.mark.parametrize("groups", [4, 8])
def test_the_data_chosen_four_fifths_test_holds_its_size_at_the_boundary(groups: int) -> None:
    """One group at exactly 0.8 of the others' rate (0.5), 30 per group, the top chosen from the data: the
    test against the observed top rejected 9-16% of such audits; the data-chosen test at most 5%, counted
    as the gate does (ratio below 0.8 and the within-block Holm p below 0.05). 500 audits (the benchmark
    runs 2,000 per cell); the bound allows for simulation error."""
    rng = np.random.default_rng(groups)
    n, rates = 30, np.array([0.4] + [0.5] * (groups - 1))
    fails = 0
    for k in rng.binomial(n, rates, size=(500, groups)):
        p = st.holm_within(st.four_fifths_pvalues(list(k), [n] * groups), ["b"] * groups)
        fails += p[0] < 0.05 and k[0] < 0.8 * k.max()
    assert fails / 500 <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 500)


def test_the_exact_upper_bound_inverts_the_shortfall_test() -> None:
    # 0 of 14 against 6 of 14: Katz's corrected interval reaches 1.25 while the exact test rejects ratio >= 0.8
    assert st.katz_interval(0, 14, 6, 14)[1] > 1 and st.shortfall_p(0, 14, 6, 14) < 0.05
    upper = st.exact_upper_bound(0, 14, 6, 14)
    assert 0 < upper < 0.8
    assert st.shortfall_p(0, 14, 6, 14, upper) >= 0.05 > st.shortfall_p(0, 14, 6, 14, upper + 0.01)
    assert st.exact_upper_bound(5, 10, 6, 10) is None  # the test does not reject at 0.8: no bound needed
