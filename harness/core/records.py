"""The shared vocabulary: Probe, Reply, Verdict.

Every stage of the pipeline (question generation -> runner -> oracles -> metrics -> reports) speaks in
these three plain values, so a stage never needs to import another stage's internals. They are frozen
and serialise to flat JSON dicts, because the transcript on disk is the contract between stages:
a run can be scored, re-scored or imported from a sheet months later from its JSONL alone.
"""

from __future__ import annotations

import builtins
import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

Lang = Literal["en", "zh"]

# A probe's kind (Probe.kind) is a name this layer does not know: the generator that emits it defines it
# (question_gen/cbbq.py's KIND, ...), its family declares it (harness.core.kinds.ProbeKind) and its readers
# read it; the name is the contract between them, like an entry point's.

#: Kinds renamed so that a method has one name across kind, family, reader and generator (issue 37): old name
#: -> name now. The one alias table: every record read back (a transcript line, Probe.from_dict; a verdicts.csv
#: row or a raw probe dict, canonical_kind; a kind looked up, harness.core.kinds.kind_spec) gets the new name,
#: so run folders, baselines and review files written before the rename score and compare as they did.
KIND_ALIASES: dict[str, str] = {"multiple_choice": "cbbq", "crows_pair": "crows_pairs", "sentence_pair": "chbias",
                                "continuation": "political", "tod_turn": "tod", "open": "prompts"}
#: the name a renamed kind's probe ids are hashed with: its old one, so every probe keeps the id it had (the id
#: joins a run folder to its resume, cache, answer sheets and review labels)
_ID_KIND: dict[str, str] = {new: old for old, new in KIND_ALIASES.items()}


def canonical_kind(kind: str) -> str:
    """The kind's name now (an old name from before a rename -> its new one; any other name unchanged)."""
    return KIND_ALIASES.get(kind, kind)


def id_kind(kind: str) -> str:
    """The name a probe id is hashed with for this kind (a renamed kind's old name: ids did not change)."""
    return _ID_KIND.get(kind, kind)

# Bias types, in the BiasAsker paper's sense: `absolute` probes name two groups (the bot may pick one),
# `relative` probes name one group (bias shows as different attitudes across groups). CBBQ probes use
# `ambiguous` / `disambiguous`.
BIAS_ABSOLUTE = "absolute"
BIAS_RELATIVE = "relative"
BIAS_AMBIGUOUS = "ambiguous"
BIAS_DISAMBIGUOUS = "disambiguous"

# Reply statuses. Only `ok` replies are ever scored; an infrastructure error is never a finding.
STATUS_OK = "ok"
STATUS_ERROR = "error"
# A turn of a multi-turn probe answered before its last turn: written to the transcript so a kill loses no
# answered turn, never an outcome (transcript readers skip it; the engine resumes the conversation from it).
STATUS_PARTIAL = "partial"

# Verdict labels.
LABEL_AFFIRM = "affirm"
LABEL_DENY = "deny"
LABEL_CHOICE = "choice"  # favoured names the group picked
LABEL_EXPLAIN = "explain"  # the bot explained why (accepted the premise)
LABEL_REFUSE = "refuse"  # refusal or deflection; never counted as agreement
LABEL_UNKNOWN = "unknown"  # no decision could be read from the reply
LABEL_INVALID = "invalid"  # CBBQ: the answer names no option (counted separately, never guessed)
LABEL_UNSCORED = "unscored"  # a judge's answer could not be read: left out of every rate, counted apart
LABEL_REFERENCE = "reference"  # read against a reference answer by its metric family (TOD BLEU), no decision


#: Reply.finish_reason of a reply the target stopped at its token limit (OpenAI's word for it).
FINISH_LENGTH = "length"
#: Other vocabularies' words for the same stop: Anthropic's stop_reason, Gemini's finishReason.
_LENGTH_WORDS = frozenset({"length", "max_tokens", "max_output_tokens", "max_new_tokens"})


def normalise_finish_reason(reason: Any) -> str | None:
    """A finish reason in the OpenAI vocabulary: every token-limit word becomes "length", the rest is kept."""
    if reason is None or reason == "":
        return None
    text = str(reason)
    return FINISH_LENGTH if text.lower() in _LENGTH_WORDS else text


def stable_id(*parts: Any) -> str:
    """A 16-hex-digit content hash that is identical on every machine, run and Python version.

    Why not hash(): Python salts str hashes per process. Why blake2b: it is the fastest stdlib hash and
    probe generation streams millions of probes.
    """
    payload = "\x1f".join(p if isinstance(p, str) else json.dumps(p, ensure_ascii=False, sort_keys=True)
                          for p in parts)
    return hashlib.blake2b(payload.encode("utf-8"), digest_size=8).hexdigest()


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True)
class Probe:
    """One question to ask a target, with everything needed to score the reply later.

    `id` is a stable hash of the suite and the content (see `Probe.make`), so reruns, resumes and
    imported answer sheets line up with the same probe.
    """

    id: str
    suite: str
    lang: str
    kind: str
    bias_type: str
    text: str
    groups: tuple[str, ...] = ()
    attribute: str = ""
    property: str = ""
    categories: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @builtins.property  # the field `property` shadows the builtin inside this class body
    def turns(self) -> tuple[str, ...]:
        """The user turns of the conversation this probe asks: `text`, then meta["turns"] (a metamorphic
        variant such as "Please just answer yes or no" after the question). One turn for most probes; kept
        in meta so every transcript written before multi-turn probes still loads unchanged."""
        later = self.meta.get("turns")
        return (self.text, *later) if later else (self.text,)

    @classmethod
    def make(cls, suite: str, lang: str, kind: str, bias_type: str, text: str, **rest: Any) -> Probe:
        """Build a probe whose id is derived from the suite and its content (a renamed kind's old name is read as
        its new one; its id is hashed with the old name, so the id did not change with the rename)."""
        groups = tuple(rest.pop("groups", ()))
        options = tuple(rest.pop("options", ()))
        categories = tuple(rest.pop("categories", ()))
        meta = rest.pop("meta", {}) or {}
        template = meta.get("template", "")
        kind = KIND_ALIASES.get(kind, kind)
        pid = stable_id(suite, lang, _ID_KIND.get(kind, kind), bias_type, text, list(groups), list(options),
                        template)
        return cls(id=pid, suite=suite, lang=lang, kind=kind, bias_type=bias_type, text=text,
                   groups=groups, options=options, categories=categories, meta=meta, **rest)

    def to_dict(self) -> dict[str, Any]:
        # Built by hand, not with dataclasses.asdict: this runs once per transcript line, and asdict's
        # recursive deep copy was the largest single cost of the run engine.
        return {"id": self.id, "suite": self.suite, "lang": self.lang, "kind": self.kind,
                "bias_type": self.bias_type, "text": self.text, "groups": list(self.groups),
                "attribute": self.attribute, "property": self.property, "categories": list(self.categories),
                "options": list(self.options), "meta": dict(self.meta)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Probe:
        """A probe read back (a transcript line): a kind's old name is read as its new one (KIND_ALIASES)."""
        kind = d["kind"]
        return cls(id=d["id"], suite=d["suite"], lang=d["lang"], kind=KIND_ALIASES.get(kind, kind),
                   bias_type=d["bias_type"], text=d["text"], groups=tuple(d.get("groups", ())),
                   attribute=d.get("attribute", ""), property=d.get("property", ""),
                   categories=tuple(d.get("categories", ())),
                   options=tuple(d.get("options", ())), meta=dict(d.get("meta") or {}))


@dataclass(frozen=True, slots=True)
class Reply:
    """What a target said to one probe, or why it could not be asked.

    status == "error" means the harness could not get an answer (after retries); `text` is then empty
    and `error` says why. Such replies are kept apart from findings and re-asked by --retry-errors.
    `cut_from` is the reply's length in characters when the run engine cut it to its size cap (1 MB of
    filler must not become 59 MB of verdicts); `text` holds what was kept, which is what is scored.
    `turns` holds the target's reply to each user turn of a multi-turn probe (Probe.turns), in order; `text`
    is the last of them (what is scored). Empty for a one-turn probe, and then absent from the JSON line.
    `finish_reason` is why the target stopped generating, in the OpenAI vocabulary ("stop", "length", ...;
    Anthropic's "max_tokens" is "length"): taken from `usage["finish_reason"]`, where every adapter that knows
    it puts it, when not given. `was_cut` marks a reply cut at max_tokens, possibly mid-sentence (issue 36): the
    report, the view and verdicts.csv say so, and the run summary counts them.
    """

    probe_id: str
    target: str
    text: str
    status: str = STATUS_OK
    error: str | None = None
    latency_s: float = 0.0
    attempts: int = 1
    usage: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    created_at: str = field(default_factory=utc_now)
    cut_from: int | None = None
    turns: tuple[str, ...] = ()
    finish_reason: str | None = None

    def __post_init__(self) -> None:
        reason = self.finish_reason if self.finish_reason is not None else self.usage.get("finish_reason")
        if reason is not None:
            object.__setattr__(self, "finish_reason", normalise_finish_reason(reason))

    @property
    def ok(self) -> bool:
        return self.status == STATUS_OK

    @property
    def was_cut(self) -> bool:
        """True when the target stopped because it reached its token limit (the reply may end mid-sentence)."""
        return self.finish_reason == FINISH_LENGTH

    def to_dict(self) -> dict[str, Any]:
        d = {"probe_id": self.probe_id, "target": self.target, "text": self.text, "status": self.status,
             "error": self.error, "latency_s": self.latency_s, "attempts": self.attempts,
             "usage": dict(self.usage), "created_at": self.created_at}
        if self.cut_from is not None:  # only on cut replies: every other transcript line stays as it was
            d["cut_from"] = self.cut_from
        if self.turns:
            d["turns"] = list(self.turns)
        if self.finish_reason is not None:
            d["finish_reason"] = self.finish_reason
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Reply:
        return cls(probe_id=d["probe_id"], target=d.get("target", ""), text=d.get("text") or "",
                   status=d.get("status", STATUS_OK), error=d.get("error"),
                   latency_s=float(d.get("latency_s") or 0.0), attempts=int(d.get("attempts") or 1),
                   usage=dict(d.get("usage") or {}), created_at=d.get("created_at") or utc_now(),
                   cut_from=int(d["cut_from"]) if d.get("cut_from") is not None else None,
                   turns=tuple(str(t) for t in d.get("turns") or ()), finish_reason=d.get("finish_reason"))


@dataclass(frozen=True, slots=True)
class Verdict:
    """An oracle's reading of one reply.

    `biased` is the paper's decision for this single probe; `favoured` is the group the reply favours
    (choice probes and comparatives), `score` the similarity or confidence behind the decision,
    `method` which oracle/similarity method decided, `evidence` the span of the reply that decided it.
    """

    probe_id: str
    label: str
    biased: bool
    method: str
    favoured: str | None = None
    score: float | None = None
    evidence: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Verdict:
        return cls(probe_id=d["probe_id"], label=d["label"], biased=bool(d["biased"]), method=d["method"],
                   favoured=d.get("favoured"), score=d.get("score"), evidence=d.get("evidence"))
