"""The declared tests (EstimateGate, TEST_DECLARED) of the bounded means: StereoSet's SS, LMS and ICAT and tod's
BLEU figures, recomputed at gate time from the per-unit values metrics.json keeps.

Why here: the families compute the figures; the tests read them back from a run's metrics.json document
(`run["tables"]`), the same for `harness run`, `harness report` and a fairness file. Each is the betting test of
harness.metrics.bounded_mean, whose size holds for any distribution of the units' values on their bounds:

* stereoset.ss / .lms [.B]: the mean over target terms of SS_t (LMS_t) in [0, 100]; the unit a target term.
* stereoset.icat [.B] = LMS x min(SS, 100 - SS) / 50: no test of its own, but a confidence bound through the
  map, which grows with LMS and with min(SS, 100 - SS). Bonferroni: LMS's one-sided bound at alpha / 2 and SS's
  two-sided interval at alpha / 2 (each side alpha / 4) hold together with probability >= 1 - alpha, and then
  min(SS, 100 - SS) <= min(U_SS, 100 - L_SS, 50) (>= min(L_SS, 100 - U_SS) for a lower bound). A lower-bound
  gate (H0 "ICAT >= T") rejects at alpha when U_LMS x min(U_SS, 100 - L_SS, 50) / 50 < T; its p is the
  smallest such alpha (found by bisection, the bound being monotone in alpha).
* stereoset.ss_distance [.B] = |SS - 50|: H0 "SS within 50 +- D" is rejected when either one-sided test (SS
  above 50 + D, SS below 50 - D) rejects at alpha / 2 (Bonferroni); a lower bound (H0 "SS outside the band")
  when both tests of "SS inside it" reject (intersection-union, each at alpha).
* tod.bleu and tod.AXIS.bleu_gap: means of turn values in [0, 1]; the unit a dialogue (its turns averaged),
  weighted by its turns, so the tested mean is the metric's own mean over turns.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from harness.metrics import bounded_mean as bm

#: the table StereoSet keeps its per-target values in (one row per slice: "" the run, else a bias type)
STEREOSET_UNITS = "stereoset_targets"
#: the table tod keeps its per-dialogue means and turn counts in (one row per gated key)
TOD_UNITS = "bleu_units"
_BISECTIONS = 40


def _stereoset_row(run: Mapping[str, Any], suffix: str) -> Mapping[str, Any] | None:
    rows = ((run.get("tables") or {}).get("stereoset") or {}).get(STEREOSET_UNITS) or []
    return next((r for r in rows if r.get("slice") == suffix), None)


def _floats(values: Any) -> list[float]:
    return [float(v) for v in values or [] if v is not None and v == v]


def icat_bound(ss: Sequence[float], lms: Sequence[float], alpha: float, bound: str) -> float | None:
    """The 1 - alpha confidence bound of ICAT (module docstring): "max" an upper bound, "min" a lower one."""
    lms_b = bm.confidence_bound(lms, alpha / 2, bound, high=100.0)
    hi = bm.confidence_bound(ss, alpha / 4, bm.UPPER, high=100.0)
    lo = bm.confidence_bound(ss, alpha / 4, bm.LOWER, high=100.0)
    if lms_b is None or hi is None or lo is None:
        return None
    closer = min(hi, 100.0 - lo, 50.0) if bound == bm.UPPER else max(0.0, min(lo, 100.0 - hi))
    return lms_b * closer / 50.0


def icat_p(ss: Sequence[float], lms: Sequence[float], threshold: float, bound: str) -> float | None:
    """The smallest alpha at which ICAT's bound excludes the threshold: H0 "ICAT >= T" (bound "min": the upper
    bound below T) or "ICAT <= T" ("max": the lower bound above T); None without values."""
    beyond = (lambda b: b < threshold) if bound == bm.LOWER else (lambda b: b > threshold)
    side = bm.UPPER if bound == bm.LOWER else bm.LOWER

    def rejects(alpha: float) -> bool:
        b = icat_bound(ss, lms, alpha, side)
        return b is not None and beyond(b)

    if not ss or not lms:
        return None
    if not rejects(1.0):
        return 1.0
    lo, hi = -30.0, 0.0  # log10 alpha: rejects at 10^hi, search down
    if rejects(10.0**lo):
        return 10.0**lo
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if rejects(10.0**mid) else (mid, hi)
    return float(10.0**hi)


def distance_p(ss: Sequence[float], threshold: float, bound: str) -> float | None:
    """The p of H0 "|SS - 50| <= D" (bound "max": SS within [50 - D, 50 + D]): the smaller of the two one-sided
    betting p values, doubled (Bonferroni: under H0 each is valid, so rejecting either side has size <= alpha);
    for a lower bound (H0 "|SS - 50| >= D": SS outside the band) the larger of the two tests of SS inside it."""
    if not ss:
        return None
    up = bm.betting_p(ss, 50.0 + threshold, bm.UPPER if bound == bm.UPPER else bm.LOWER, high=100.0)
    down = bm.betting_p(ss, 50.0 - threshold, bm.LOWER if bound == bm.UPPER else bm.UPPER, high=100.0)
    if up is None or down is None:
        return None
    return min(1.0, 2.0 * min(up, down)) if bound == bm.UPPER else max(up, down)


def stereoset_p(metric: str, threshold: float, bound: str, run: Mapping[str, Any]) -> tuple[float, str] | None:
    """The p a gate on stereoset.ss / .lms / .icat [.B] reads: the betting test over target terms (module
    docstring); None where the run keeps no per-target values (scored before they were kept)."""
    parts = metric.split(".", 2)
    if len(parts) < 2 or parts[1] not in ("ss", "lms", "icat", "ss_distance"):
        return None
    row = _stereoset_row(run, parts[2] if len(parts) == 3 else "")
    if row is None:
        return None
    ss, lms = _floats(row.get("ss")), _floats(row.get("lms"))
    if parts[1] == "ss_distance":
        p = distance_p(ss, threshold, bound)
        how = f"betting tests of SS beyond 50 +- {threshold:g} either way (Bonferroni), {len(ss)} target terms"
    elif parts[1] == "icat":
        p = icat_p(ss, lms, threshold, bound)
        how = (
            f"betting bounds of LMS (alpha/2) and SS (alpha/4 each side) through ICAT's map, Bonferroni, "
            f"{len(lms)} target terms"
        )
    else:
        values = ss if parts[1] == "ss" else lms
        p = bm.betting_p(values, threshold, bound, high=100.0)
        how = f"betting test of the mean over {len(values)} target terms in [0, 100] (any distribution)"
    return None if p is None else (p, how)


def tod_p(metric: str, threshold: float, bound: str, run: Mapping[str, Any]) -> tuple[float, str] | None:
    """The p a gate on tod.bleu or tod.AXIS.bleu_gap reads: the betting test over dialogues, each its turns' mean
    weighted by its turns; None where the run keeps no per-dialogue values."""
    rows = ((run.get("tables") or {}).get("tod") or {}).get(TOD_UNITS) or []
    row = next((r for r in rows if r.get("key") == metric), None)
    if row is None:
        return None
    means, turns = _floats(row.get("means")), _floats(row.get("turns"))
    if not means or len(means) != len(turns):
        return None
    p = bm.betting_p(means, threshold, bound, weights=turns)
    return (
        None
        if p is None
        else (
            p,
            f"betting test over {len(means)} dialogues (turn means in [0, 1], "
            f"weighted by their {int(sum(turns))} turns; any distribution)",
        )
    )
