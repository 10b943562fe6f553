"""Log-likelihood answer mode: a probe with options answered by the option an open model finds most
likely after the prompt (``--answer-mode loglik``), registered as the "loglik" answer mode.

Instead of parsing generated text, the model's answer is the option it finds most likely after the prompt,
as lm-evaluation-harness does for BBQ. Why: a small local model often rambles or repeats the options,
which the text parser (rightly) marks invalid; the likelihood always yields a choice, and it measures what
the model "believes" rather than its instruction following.

The adapter must offer ``loglikelihoods(prompt, continuations) -> list[float]`` (sum of the continuation
tokens' log-probabilities given the prompt), sync or async: the ``hf`` adapter, the in-process llama.cpp
targets (the GGUF's own logits) and ``openai`` targets whose server returns prompt log-probabilities (checked
once per run, harness.adapters.served_logprobs). A served target's requests go through a run engine of their
own (concurrency, rate limit, retries, response cache: harness.run.perplexity.served_scores), `concurrency`
probes at a time.

Nothing here knows a suite: what is scored comes from the probe. Any probe with `options` can be answered
(CBBQ's and BBQ's multiple choice, a decision audit's yes / no), and its generator may say more in
``probe.meta["loglik"]``, a mapping of

    continuations  the texts scored after the prompt, one per option (default: see below)
    answers        the reply text recorded for each (default: the letters "A", "B", ...; the CBBQ parser
                   reads a letter like any reply)
    normalise      divide each sum by its continuation's length in characters (default: the run's setting)
    prompt         the text the continuations are scored after, when it is not the probe's chat text: a
                   benchmark whose paper scores a completion-style prompt (discrim-eval's "Human: ...
                   Assistant: ... my answer would be \u201c") asks the same question in chat as plain text
    score_context  the plain text each continuation is read after instead of the chat-templated prompt ("": the
                   model's start token alone), through the target's ``score_continuations`` (the perplexity
                   mode's reading, harness.adapters.prompt_logprobs); the reply's usage then also holds each
                   continuation's token count ("tokens") and the context ("context"). Why: a sentence's own
                   likelihood, as a language-model benchmark scores it, is not an answer to a chat prompt.
    per_token      choose by the mean log-probability per token (sum / tokens; needs score_context)

Without them, two run-wide choices:
* ``continuations="letters"`` (default): score "A", "B", "C"... after the prompt, which ends in "答案：";
* ``continuations="options"``: score each option's text; with ``normalise=True`` the sum is divided by the
  text's length in characters (lm-eval's acc_norm idea) so long options are not penalised.

Each answer is written to the same transcript as generated answers: Reply.text is the chosen answer and
usage holds {"answer_mode": "loglik", "loglik": [...], "continuations": [...], "normalised": bool,
"probabilities": [...]} (the options' probabilities given one of them is the answer: a softmax of the raw
sums; a yes / no audit reads P(yes) there). A failure becomes an error Reply (never scored), like the text
runner's.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import string
import time
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from harness.adapters.served_logprobs import EngineRefused
from harness.core.errors import HarnessError
from harness.core.records import STATUS_ERROR, Probe, Reply
from harness.run.engine import Engine, EngineSettings
from harness.run.perplexity import ScoringCalls, is_served, served_scores
from harness.run.progress import SessionStats
from harness.run.response_cache import ResponseCache

ANSWER_MODE = "loglik"
LETTERS = tuple(string.ascii_uppercase)
META_KEY = "loglik"  # probe.meta[META_KEY]: the probe's own continuations / answers / normalise


class LoglikAdapter(Protocol):
    name: str

    def loglikelihoods(self, prompt: str, continuations: list[str]) -> Any: ...


class TranscriptSink(Protocol):
    def append(self, probe: Probe, reply: Reply) -> Any: ...


@dataclass
class LoglikSummary:
    asked: int = 0
    skipped: int = 0
    errors: int = 0


@dataclass(frozen=True)
class Question:
    """What one probe's answer is chosen among: the continuations scored, the reply text of each."""

    continuations: list[str]
    answers: list[str]
    normalise: bool
    score_context: str | None = None  # plain text read before each continuation (None: the chat prompt)
    per_token: bool = False  # choose by mean log-probability per token
    #: what the continuations are scored after; None: the probe's own text
    prompt: str | None = None


def continuations_for(probe: Probe, mode: str) -> list[str]:
    """The run-wide continuations of a probe: its options' letters, or the options' texts."""
    if mode == "letters":
        return list(LETTERS[: len(probe.options)])
    if mode == "options":
        return list(probe.options)
    raise HarnessError(f"Unknown log-likelihood continuation mode {mode!r}; use 'letters' or 'options'.")


def question_for(probe: Probe, continuations: str, normalise: bool) -> Question:
    """The probe's own continuations and answers (probe.meta["loglik"]), else the run-wide ones."""
    own = probe.meta.get(META_KEY)
    own = own if isinstance(own, Mapping) else {}
    conts = [str(c) for c in own.get("continuations") or continuations_for(probe, continuations)]
    answers = [str(a) for a in own.get("answers") or LETTERS[: len(conts)]]
    if len(answers) != len(conts):
        raise HarnessError(f"Probe {probe.id} of suite {probe.suite!r} names {len(conts)} log-likelihood "
                           f"continuations and {len(answers)} answers; they must pair up.")
    context = own.get("score_context")
    prompt = own.get("prompt")
    return Question(conts, answers, bool(own.get("normalise", normalise)),
                    None if context is None else str(context), bool(own.get("per_token", False)),
                    prompt=str(prompt) if isinstance(prompt, str) and prompt else None)


def choose(scores: list[float], continuations: list[str], *, normalise: bool,
           tokens: list[int] | None = None) -> int:
    """Index of the most likely continuation (ties: the first, so the choice is deterministic); with `tokens`,
    by the mean log-probability per token."""
    if tokens is not None:
        adjusted = [s / max(1, t) for s, t in zip(scores, tokens, strict=True)]
    else:
        adjusted = [s / max(1, len(c)) if normalise else s for s, c in zip(scores, continuations, strict=True)]
    return max(range(len(adjusted)), key=lambda i: (adjusted[i], -i))


def probabilities(scores: list[float]) -> list[float]:
    """The options' probabilities given that one of them is the answer: exp(s_i) / sum_j exp(s_j)."""
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    return [w / total for w in weights]


async def _loglikelihoods(adapter: LoglikAdapter, prompt: str, conts: list[str]) -> list[float]:
    """Prefer the adapter's async variant (hf: `aloglikelihoods`), else run the blocking one in a thread."""
    fn = getattr(adapter, "aloglikelihoods", None) or adapter.loglikelihoods
    if inspect.iscoroutinefunction(fn):
        result = await fn(prompt, conts)
    else:
        result = await asyncio.to_thread(fn, prompt, conts)
        if inspect.isawaitable(result):
            result = await result
    return [float(x) for x in result]


class _Scorer:
    """Where a probe's continuations are scored: a served target through a run engine of its own (its
    concurrency, rate limit, retries and the response cache), or the adapter in process."""

    def __init__(self, adapter: LoglikAdapter, settings: EngineSettings | None, cache: ResponseCache | None = None,
                 *, use_cache: bool = True) -> None:
        self.adapter = adapter
        served = is_served(adapter) and callable(getattr(adapter, "loglik_pairs", None))
        settings = settings or EngineSettings()
        self.window = max(1, settings.concurrency) if served else 1
        # the run's cache, else the user's; none with use_cache=False (harness run --no-cache)
        self._own_cache = served and use_cache and cache is None
        self.cache = ResponseCache() if self._own_cache else (cache if use_cache else None)
        self.calls = ScoringCalls(adapter) if served else None
        self.engine = Engine(self.calls, None, settings=settings, cache=self.cache) if self.calls else None  # type: ignore[arg-type]

    async def scores(self, prompt: str, conts: list[str]) -> list[float]:
        if self.calls is None or self.engine is None:
            return await _loglikelihoods(self.adapter, prompt, conts)
        results = await served_scores(self.calls, self.engine, self.adapter.loglik_pairs(prompt, conts))  # type: ignore[attr-defined]
        failed = [r for r in results if isinstance(r, str)]
        if failed:
            raise RuntimeError(failed[0])
        return [r.logprob for r in results if not isinstance(r, str)]

    async def plain_scores(self, context: str, conts: list[str]) -> tuple[list[float], list[int]]:
        """Each continuation's summed log-probability and token count after the plain text `context`."""
        pairs = [(context, c) for c in conts]
        if self.calls is not None and self.engine is not None:
            results = await served_scores(self.calls, self.engine, pairs)
        else:
            fn = getattr(self.adapter, "score_continuations", None)
            if fn is None:
                raise HarnessError(f"Target {getattr(self.adapter, 'name', '?')!r} cannot score plain text "
                                   "(no prompt log-probabilities); use a local or llama.cpp target.")
            results = list(await fn(pairs))
        failed = [r for r in results if isinstance(r, str)]
        if failed:
            raise RuntimeError(failed[0])
        return [r.logprob for r in results], [r.tokens for r in results]  # type: ignore[union-attr]

    def close(self) -> None:
        if self._own_cache and self.cache is not None:
            self.cache.close()


async def answer_probe(probe: Probe, scorer: _Scorer, question: Question, target: str) -> Reply:
    """One probe's reply: the most likely continuation's answer, or an error reply saying why not."""
    started = time.perf_counter()
    try:
        tokens: list[int] | None = None
        if question.score_context is None:
            scores = await scorer.scores(question.prompt or probe.text, question.continuations)
        else:
            scores, tokens = await scorer.plain_scores(question.score_context, question.continuations)
        if len(scores) != len(question.continuations):
            raise ValueError(f"expected {len(question.continuations)} log-likelihoods, got {len(scores)}")
        idx = choose(scores, question.continuations, normalise=question.normalise,
                     tokens=tokens if question.per_token else None)
        plain = {} if tokens is None else {"tokens": tokens, "context": question.score_context,
                                           "per_token": question.per_token}
        return Reply(probe_id=probe.id, target=target, text=question.answers[idx],
                     latency_s=time.perf_counter() - started,
                     usage={"answer_mode": ANSWER_MODE, "loglik": scores, "continuations": question.continuations,
                            "normalised": question.normalise, "probabilities": probabilities(scores), **plain})
    except (KeyboardInterrupt, asyncio.CancelledError, EngineRefused):
        raise
    except Exception as exc:  # one probe's failure must not lose the run; recorded, never scored
        return Reply(probe_id=probe.id, target=target, text="", status=STATUS_ERROR,
                     error=f"loglik failed: {type(exc).__name__}: {str(exc)[:200]}",
                     latency_s=time.perf_counter() - started)


def _windows(probes: Iterable[Probe], skip: Collection[str], size: int,
             summary: LoglikSummary) -> Iterator[list[Probe]]:
    """The probes to answer, `size` at a time; skipped ones counted. A probe without options is the wrong
    mode for its suite: one sentence naming it."""
    pending: list[Probe] = []
    for probe in probes:
        if probe.id in skip:
            summary.skipped += 1
            continue
        if not probe.options:
            raise HarnessError(f"Suite {probe.suite!r} has no answer options to score; --answer-mode loglik only "
                               "works for CBBQ and other suites whose probes list their options.")
        pending.append(probe)
        if len(pending) >= size:
            yield pending
            pending = []
    if pending:
        yield pending


async def run_loglik(probes: Iterable[Probe], adapter: LoglikAdapter, writer: TranscriptSink, *,
                     continuations: str = "letters", normalise: bool = False, skip: Collection[str] = (),
                     on_reply: Callable[[Probe, Reply], None] | None = None,
                     settings: EngineSettings | None = None, cache: ResponseCache | None = None,
                     use_cache: bool = True) -> LoglikSummary:
    """Answer every probe with options by likelihood and append each reply to the transcript at once.

    `skip` holds probe ids already answered (resume). Probes without options cannot be answered this way
    and raise a HarnessError naming the suite, because the user picked the wrong mode for it. `settings`
    (the run's engine settings) apply to a served target's requests.
    """
    if not hasattr(adapter, "loglikelihoods"):
        raise HarnessError(f"Target {getattr(adapter, 'name', '?')!r} cannot score log-likelihoods; "
                           "use --answer-mode text or an hf target.")
    summary = LoglikSummary()
    target = getattr(adapter, "name", "")
    scorer = _Scorer(adapter, settings, cache, use_cache=use_cache)
    try:
        for window in _windows(probes, skip, scorer.window, summary):
            questions = [question_for(p, continuations, normalise) for p in window]
            try:
                replies = await asyncio.gather(*(answer_probe(p, scorer, q, target)
                                                 for p, q in zip(window, questions, strict=True)))
            except EngineRefused as exc:
                raise HarnessError(str(exc)) from None
            for probe, reply in zip(window, replies, strict=True):
                summary.errors += not reply.ok
                writer.append(probe, reply)
                summary.asked += 1
                if on_reply is not None:
                    on_reply(probe, reply)
    finally:
        scorer.close()
    return summary


def run_loglik_sync(probes: Iterable[Probe], adapter: LoglikAdapter, writer: TranscriptSink,
                    **kwargs: Any) -> LoglikSummary:
    """Blocking wrapper for callers outside an event loop."""
    return asyncio.run(run_loglik(probes, adapter, writer, **kwargs))


class LoglikMode:
    """The "loglik" answer mode (harness.run.answer_modes): targets with log-likelihoods pick an option."""

    name = ANSWER_MODE
    selectable = True
    uses_response_cache = True  # a served target's scoring requests (none with --no-cache; in process: unused)
    run_id_suffix = "-loglik"

    def accepts(self, target: Any, name: str) -> str | None:
        if hasattr(target, "loglikelihoods"):
            return None
        kind = getattr(target, "kind", None) or getattr(target, "__name__", "?")
        return (f"Target '{name}' ({kind}) gives no log-likelihoods; --answer-mode loglik needs an hf target "
                "(e.g. local-zh-hf), or use --answer-mode generate.")

    async def run(self, probes: Iterable[Probe], adapter: Any, engine: Engine) -> SessionStats:
        """Every reply goes through Engine.record (counts, progress, settled sets) as in generate mode; the
        first Ctrl-C ends the stream: the probe being scored is finished and recorded, no new one starts."""
        reason = self.accepts(adapter, getattr(adapter, "name", "?"))
        if reason:
            raise HarnessError(reason)

        class _Recording:
            def append(self, probe: Probe, reply: Reply) -> None:
                engine.record(probe, reply)

        def until_stopped() -> Iterator[Probe]:
            for probe in probes:
                if engine.stopping:
                    return
                yield probe

        started, cpu = time.monotonic(), time.process_time()
        await run_loglik(until_stopped(), adapter, _Recording(), settings=engine.settings, cache=engine.cache,
                         use_cache=engine.cache is not None)
        engine.stats.elapsed_s = time.monotonic() - started
        engine.stats.cpu_s = time.process_time() - cpu
        return engine.stats


MODE = LoglikMode()
