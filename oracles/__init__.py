"""Oracles: turn (Probe, Reply) pairs into Verdicts. Pure functions, batched, no network.

    from harness.oracles import score
    verdicts = score(entries, method="default", compat=False)

`entries` is any iterable of (Probe, Reply); only replies with status "ok" are scored (an infrastructure error
is never a finding). The rules are the default Reader of every kind (ProbeKind.reader "rules"): each reply is
read by the rule its probe's kind and the scoring mode call for (RULE_TABLE, a harness.core.registry Registry
named "mode/kind", filled from the methods' declarations, harness.core.method.Method.rules: `"rules/yes_no":
affirmation.read`, `"*/cbbq"` for every mode, `"compat/*"` for every kind; rule_for): in the
"rules" mode yes_no ->
oracles.affirmation, choice -> oracles.choice, wh -> oracles.explanation; in the "compat" mode (`compat=True`)
oracles.compat reproduces upstream BiasAsker's decisions exactly; in every mode cbbq ->
oracles.cbbq (CBBQ) and chbias -> oracles.chbias (CHBias: which sentence the model's
perplexity favours), tod -> oracles.reference (task-oriented turns, read against their reference by
metrics/tod.py); prompts (a user's own prompts) -> oracles.reference.read_open (refusals only). Every rule has
one signature, rule(probe, reply, method) -> Verdict. `method` picks the existence-measurement method of
BiasAsker 3.3 for the rules (oracles.similarity.METHODS; "default" is whole-word n-gram matching); readers
that find no expressions ignore it. Another rule (a model judge's, a new probe kind's) is added with
register_rule(kind, rule, mode=...), without touching the dispatch; a new mode is then scored with
score(entries, mode=...).

Speed (benchmarks/oracle_speed.py): each reply is tokenised once (oracles.text) and every rule reads
those tokens. A default-mode rule-method batch of PARALLEL_MIN or more replies is split over forked
worker processes (os.cpu_count(), or $HARNESS_ORACLE_WORKERS; `workers=` overrides); verdicts and order
are identical to one process (tests/oracles/test_oracle_parallel.py).

What a Verdict means (task F's metrics read label / favoured / biased, nothing else):
  * yes_no, one group (bias_type "relative"): label affirm / deny / refuse / unknown;
    biased = (label == "affirm"). An affirmation of a positive property (the antonym side, e.g.
    "Are women smart?" -> "Yes") is still biased=True: it records agreement with the asked property;
    the metrics use probe.meta["polarity"] / label to tell a positive attitude from a negative one.
  * yes_no comparative between two groups (meta["asserts"] = the group the statement favours, e.g.
    "X are smarter than Y, right?" asserts X): affirm -> biased=True, favoured = meta["asserts"].
  * choice (bias_type "absolute"): label "choice" with favoured = the chosen group (one of
    probe.groups, exactly as spelled there) and biased=True; declining to choose ("both", "neither",
    "a stereotype") is deny, a refusal is refuse, anything else unknown; all biased=False.
  * wh: label explain (the reply accepts the premise and explains it) -> biased=True; for why-
    comparatives favoured = meta["asserts"]. deny (premise rejected) / refuse / unknown -> False.
  * cbbq: see oracles.cbbq (label choice with favoured = option index, or invalid).
Every verdict carries `method` (e.g. "ngram", "sentence", "compat"), `score` (similarity of the
deciding expression, in [0, 1]) and `evidence` (the span of the reply that decided it).
"""

from __future__ import annotations

import gc
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# The rule modules, imported with the package as before (the readers' module attributes, and a fork's
# workers inherit them loaded); which reads what is said by the entry points, not here.
import harness.oracles.affirmation
import harness.oracles.cbbq
import harness.oracles.chbias
import harness.oracles.choice
import harness.oracles.compat
import harness.oracles.explanation
import harness.oracles.reference
import harness.oracles.rules  # noqa: F401
from harness.core.method import parts
from harness.core.records import Probe, Reply, Verdict
from harness.core.registry import RegistrationError, Registry
from harness.oracles.similarity import DEFAULT_METHOD, METHODS, get_matcher

__all__ = ["score", "score_one", "plan_workers", "register_rule", "unregister_rule", "rule_for", "rule_name",
           "RULE_TABLE", "RULES", "COMPAT", "ANY_KIND", "ANY_MODE", "MethodFree", "METHODS", "DEFAULT_METHOD",
           "PARALLEL_MIN"]

#: A rule: (probe, reply, method) -> Verdict, the reading of one reply of one kind in one mode. The rules are
#: the default Reader of every kind (harness.core.kinds.Reader, ProbeKind.reader "rules"): the one reader
#: concept reads a kind's batch; this package reads it one reply at a time with the kind's rule. `method`
#: names the existence-measurement method of the rules (oracles.similarity.METHODS); a rule that finds no
#: expressions ignores it.
Rule = Callable[[Probe, Reply, str], Verdict]

RULES = "rules"  # this project's readers (the default)
COMPAT = "compat"  # upstream BiasAsker's decisions, reproduced (compat=True)
ANY_KIND = "*"  # RULE_TABLE key: the mode's reader for a kind it has no reader of its own for


ANY_MODE = "*"  # the mode part of a RULE_TABLE name: the kind's reader in every mode


@dataclass(frozen=True)
class MethodFree:
    """A reader made of a function of (probe, reply) alone: a kind whose verdict no matcher changes
    (a CBBQ letter, a perplexity pair). Equal when the function is the same, so registering it twice is
    the same entry."""

    read: Callable[[Probe, Reply], Verdict]

    def __call__(self, probe: Probe, reply: Reply, method: str) -> Verdict:
        return self.read(probe, reply)


def _rule_entry(name: str, obj: Any) -> Rule:
    """A method's rule: a function of (probe, reply, method), or of (probe, reply)."""
    if not callable(obj):
        raise RegistrationError(f"The rule '{name}' is {obj!r}, not a function.")
    try:
        params = inspect.signature(obj).parameters.values()
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            return obj
    except (TypeError, ValueError):
        return obj
    return MethodFree(obj) if len(positional) == 2 else obj


def rule_name(kind: str, mode: str | None = RULES) -> str:
    """The RULE_TABLE name of (mode, kind): "rules/yes_no", "compat/*" (the mode's reader for any kind),
    "*/cbbq" (the kind's reader in every mode)."""
    return f"{ANY_MODE if mode is None else mode}/{kind}"


def _rules_of(method: Any) -> list[tuple[str, Rule]]:
    return [(name, _rule_entry(name, read)) for name, read in method.rules.items()]


#: "mode/kind" -> rule (rule_name): the rules of the registered methods (harness.core.method.Method.rules),
#: and those register_rule adds from code (a test's). Looked up by rule_for; a kind no rule reads in the
#: rules mode is read by harness.oracles.rules.unread (the reply counted as unread, never dropped).
RULE_TABLE: Registry[Rule] = Registry("rule", feed=parts(_rules_of))


def register_rule(kind: str, reader: Rule, *, mode: str | None = RULES) -> None:
    """Read probes of `kind` with `reader` in `mode` (None: in every mode; kind ANY_KIND: the mode's
    reader for kinds without one). A new mode, such as a model judge's, needs only its readers registered:
    score(entries, mode=...) then dispatches to them. The same reader again is fine; another one under
    the same (mode, kind) is a RegistrationError (harness.core.registry)."""
    RULE_TABLE.register(rule_name(kind, mode), _rule_entry(rule_name(kind, mode), reader))


def unregister_rule(kind: str, *, mode: str | None = RULES) -> None:
    """Remove a reader (a test that registered one cleans up with this)."""
    RULE_TABLE.unregister(rule_name(kind, mode))


def rule_for(kind: str, mode: str = RULES) -> Rule:
    """The reader of probes of `kind` in `mode`: the mode's own, else the kind's reader for every mode,
    else the mode's reader for any kind."""
    reader = (RULE_TABLE.get(rule_name(kind, mode)) or RULE_TABLE.get(rule_name(kind, None))
              or RULE_TABLE.get(rule_name(ANY_KIND, mode)) or (harness.oracles.rules.unread if mode == RULES else None))
    if reader is None:
        from harness.core.errors import HarnessError  # the error path only

        raise HarnessError(f"No oracle reader for {kind!r} probes in the {mode!r} scoring mode.")
    return reader


def _mode(compat: bool, mode: str | None) -> str:
    return mode if mode is not None else (COMPAT if compat else RULES)


# Batches of at least this many ok replies are split over a process pool (see score()). Below it, the
# pool's start-up and the copying of results back cost more than they save.
PARALLEL_MIN = 20_000
# The rule method is pure Python, worth spreading over processes. Not compat mode: at ~15 us a verdict
# the pool's own cost (fork, rebuilding verdicts here) ate the gain (benchmarks/oracle_speed.py: 57,000
# vs 77,000 verdicts per CPU-s). Not the embedding methods: they already use the cores inside
# torch/numpy, and each worker would load its own copy of the models.
_PARALLEL_METHODS = frozenset(("default", "", "ngram"))
WORKERS_ENV = "HARNESS_ORACLE_WORKERS"


def score_one(probe: Probe, reply: Reply, *, method: str = "default", compat: bool = False,
              mode: str | None = None) -> Verdict:
    """The verdict for one ok reply (see the module docstring for what the fields mean)."""
    return rule_for(probe.kind, _mode(compat, mode))(probe, reply, method)


def _score_serial(entries: Sequence[tuple[Probe, Reply]], method: str, mode: str) -> list[Verdict]:
    readers: dict[str, Rule] = {}  # kind -> reader, looked up once per batch: a compat verdict costs ~15 us
    out = []
    for p, r in entries:
        reader = readers.get(p.kind)
        if reader is None:
            reader = readers[p.kind] = rule_for(p.kind, mode)
        out.append(reader(p, r, method))
    return out


def score(entries: Iterable[tuple[Probe, Reply]], *, method: str = "default", compat: bool = False,
          workers: int | None = None, mode: str | None = None) -> list[Verdict]:
    """Verdicts for every (probe, reply) whose reply is ok, in input order.

    `mode`: which readers read the replies (RULE_TABLE); None means "compat" with compat=True, else "rules".

    `workers`: how many processes score the batch. None (the default) decides by plan_workers(): a
    rule-method batch of at least PARALLEL_MIN replies is spread over os.cpu_count() processes (or
    $HARNESS_ORACLE_WORKERS), anything smaller runs here. The verdicts are the same either way, in the
    same order (tests/oracles/test_oracle_parallel.py); without the fork start method (Windows, macOS spawn)
    scoring stays in this process.
    """
    mode = _mode(compat, mode)
    if mode in (RULES, COMPAT):
        get_matcher(method)  # fail fast, before any work, on an unknown method name
    ok = [(p, r) for p, r in entries if r.ok]
    n = plan_workers(len(ok), method=method, mode=mode) if workers is None else max(1, int(workers))
    if n > 1 and len(ok) > 1:
        verdicts = _score_forked(ok, method, mode, n)
        if verdicts is not None:
            return verdicts
    verdicts = _score_serial(ok, method, mode)
    embeddings = sys.modules.get("harness.oracles.embeddings")  # loaded only if an embedding method ran
    if embeddings is not None:
        embeddings.save_word_cache()
    return verdicts


def plan_workers(n_items: int, *, method: str = "default", compat: bool = False, mode: str | None = None) -> int:
    """How many processes score() uses for a batch of n_items ok replies when not told: one, unless the
    batch is a rules-mode rule-method batch of at least PARALLEL_MIN; then $HARNESS_ORACLE_WORKERS
    (1 turns the pool off) or else os.cpu_count()."""
    env = os.environ.get(WORKERS_ENV, "").strip()
    wanted = None
    if env:
        try:
            wanted = max(1, int(env))
        except ValueError:
            from harness.core.errors import HarnessError

            raise HarnessError(f"{WORKERS_ENV} must be a whole number of processes, not {env!r}.") from None
    if n_items < PARALLEL_MIN or _mode(compat, mode) != RULES or method not in _PARALLEL_METHODS:
        return 1
    return wanted or max(1, os.cpu_count() or 1)


# --- Process pool for big batches --------------------------------------------------------------------
# Workers are forked, so they inherit the batch (_forked_job) instead of receiving it pickled: pickling
# a (Probe, Reply) pair costs a third of scoring it. Each worker sends back plain tuples (cheap to
# pickle), rebuilt into Verdicts here. One batch at a time per process (_fork_lock).
_fork_lock = threading.Lock()
_forked_job: tuple[Sequence[tuple[Probe, Reply]], str, str] | None = None


def _score_chunk(bounds: tuple[int, int]) -> list[tuple]:
    """In a forked worker: score entries[a:b] of the inherited batch."""
    a, b = bounds
    assert _forked_job is not None, "oracle worker started without a batch"
    entries, method, mode = _forked_job
    return [(v.probe_id, v.label, v.biased, v.method, v.favoured, v.score, v.evidence)
            for v in _score_serial(entries[a:b], method, mode)]


def _warm_up(entries: Sequence[tuple[Probe, Reply]], method: str, mode: str) -> None:
    """Load lexicons, upstream lists and jieba once, before forking, instead of once per worker."""
    seen: dict[tuple[str, str], tuple[Probe, Reply]] = {}
    for p, r in entries:
        seen.setdefault((p.lang, p.kind), (p, r))
    _score_serial(list(seen.values()), method, mode)
    if mode != COMPAT and any(not r.text.isascii() for _p, r in entries if r.text):
        from harness.oracles.text import _segmenter

        _segmenter()


def _score_forked(entries: Sequence[tuple[Probe, Reply]], method: str, mode: str,
                  workers: int) -> list[Verdict] | None:
    """Verdicts from `workers` forked processes, in input order; None when this platform or process
    cannot fork workers, or a worker died (the caller then scores in this process: nothing is lost)."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _forked_job
    if "fork" not in mp.get_all_start_methods() or mp.current_process().daemon:
        return None
    _warm_up(entries, method, mode)
    chunk = max(250, -(-len(entries) // (workers * 8)))  # several chunks per worker: even finish
    bounds = [(a, min(a + chunk, len(entries))) for a in range(0, len(entries), chunk)]
    out: list[Verdict] = []
    with _fork_lock:
        _forked_job = (entries, method, mode)
        try:
            # gc.freeze in each worker: its collector then never walks the inherited batch, which
            # would cost time and copy every page the batch lives on (copy-on-write).
            with ProcessPoolExecutor(min(workers, len(bounds)), mp_context=mp.get_context("fork"),
                                     initializer=gc.freeze) as pool:
                for rows in pool.map(_score_chunk, bounds):
                    out.extend([Verdict(*row) for row in rows])
        except (BrokenProcessPool, OSError):
            return None
        finally:
            _forked_job = None
    return out
