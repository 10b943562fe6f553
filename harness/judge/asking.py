"""Asking a judge, through the same run engine that asks a target.

Every judge question (one per reply, two for one that shows two groups: harness.judge.prompts) becomes a Probe
whose text is the prompt's envelope, asked by harness.run.engine.Engine of a JudgeAdapter around the judge
target. So a judge gets everything a target gets: concurrency and requests per minute from its
targets.toml entry, timeouts and retries with back-off, errors recorded apart (its answer is then
unreadable, never "not biased"), the circuit breaker, Ctrl-C that keeps what was answered, and resume:

  RUN/judges/<target>-<fingerprint>/transcript.jsonl   one line per judge answer, flushed as it arrives

A rerun asks only the questions without an answer there (errors are asked again). The response cache
serves the rest: its key is (the JudgeAdapter's fingerprint = the judge target's own fingerprint + the
prompt version, the envelope = the prompt with the probe and the reply in it), so the same reply of
another run, or of the same run re-scored, costs nothing. A second scoring asks the judge nothing.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter, Completion, Message, settings_fingerprint
from harness.core.errors import EXIT_INFRA, HarnessError
from harness.core.records import Probe, Reply, stable_id
from harness.judge.prompts import PROMPT_VERSION, JudgePrompt, build_prompt, decode_envelope, orders_for
from harness.run.engine import Engine, EngineSettings, RunAborted
from harness.run.plan import TargetInfo, engine_settings, resolve_target
from harness.run.progress import RunProgress
from harness.run.response_cache import ResponseCache
from harness.run.session import StopState, closing, run_lock, run_loop, with_signals
from harness.run.transcript import TRANSCRIPT_FILE, TranscriptWriter, latest_by_probe

JUDGES_DIR = "judges"
JUDGE_KIND = "judge"
EXIT_INTERRUPTED = 130
#: Answer tokens: the label word and a reason of a dozen words; the label word alone without a reason.
MAX_TOKENS_REASON, MAX_TOKENS_WORD = 40, 4


class JudgeAdapter(Adapter):
    """A judge target seen by the run engine: asked an envelope, answers the label word (+ reason) with
    the label probabilities in `usage` (harness.adapters.label_probs). Its fingerprint is the target's
    with the prompt version, so the response cache never serves an answer given to another wording."""

    kind = JUDGE_KIND

    def __init__(self, inner: Adapter, *, reason: bool = True) -> None:
        super().__init__(inner.name, {"inner": inner.fingerprint(), "prompt": PROMPT_VERSION, "reason": reason})
        self.inner = inner
        self.max_tokens = MAX_TOKENS_REASON if reason else MAX_TOKENS_WORD

    async def ask(self, prompt: str, *, history: Sequence[Message] = ()) -> Completion:
        from harness.adapters.label_probs import label_probs

        system, user, words = decode_envelope(prompt)
        answer = await label_probs(self.inner, [Message("system", system), Message("user", user)], list(words),
                                   max_tokens=self.max_tokens)
        usage = dict(answer.usage)
        usage.update(label_method=answer.method, label_probs=answer.probs, label_coverage=answer.coverage)
        return Completion(text=answer.text, usage=usage)

    def fingerprint(self) -> str:
        return settings_fingerprint(self.kind, self.settings)

    def public_settings(self) -> dict[str, Any]:
        return {"judge": self.inner.public_settings(), "prompt": PROMPT_VERSION}

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(frozen=True)
class Question:
    """One judge question about one reply (`order` 1: asked with the two groups it shows swapped)."""

    qid: str
    probe: Probe
    order: int
    prompt: JudgePrompt

    def as_probe(self) -> Probe:
        """What the run engine asks and the judge transcript records."""
        return Probe(id=self.qid, suite=JUDGE_KIND, lang=self.probe.lang, kind=JUDGE_KIND,
                     bias_type=self.probe.kind, text=self.prompt.envelope(),
                     meta={"probe_id": self.probe.id, "order": self.order})


def questions_for(pairs: Iterable[tuple[Probe, Reply]], *, reason: bool = True) -> list[Question]:
    """The judge questions about these replies, in input order (one showing two groups twice)."""
    out = []
    for probe, reply in pairs:
        for order in orders_for(probe):
            qid = stable_id(PROMPT_VERSION, probe.id, reply.text, order, reason)
            out.append(Question(qid, probe, order, build_prompt(probe, reply.text, order=order, reason=reason)))
    return out


@dataclass
class JudgeTarget:
    """A judge target, ready to be asked: its adapter (wrapped for the engine) and engine settings."""

    name: str
    adapter: JudgeAdapter
    info: TargetInfo
    settings: EngineSettings
    price: Mapping[str, float] | None = None

    @property
    def fingerprint(self) -> str:
        return self.adapter.fingerprint()


def open_judge(name: str, *, reason: bool = True, engine_overrides: Mapping[str, Any] | None = None) -> JudgeTarget:
    """Create the judge target `name` (unknown target or missing key: one sentence, from the registry)."""
    from harness.adapters.registry import get_target

    config = get_target(name)
    info = resolve_target(name)
    settings = engine_settings(info, None, dict(engine_overrides or {}))
    return JudgeTarget(name, JudgeAdapter(info.adapter, reason=reason), info, settings, price=config.price)


@dataclass
class JudgePass:
    """What asking one judge gave: its answer to every question (None: never answered) and the counts."""

    judge: str
    answers: dict[str, Reply | None]
    asked: int = 0  # calls that reached the judge target in this pass
    cached: int = 0  # answers the response cache gave
    recorded: int = 0  # answers already in the judge transcript (an earlier pass)
    errors: int = 0  # questions whose latest answer is an error
    seconds: float = 0.0
    label_methods: dict[str, int] = field(default_factory=dict)
    #: why the judge stopped before every question was asked (its circuit breaker), when the caller keeps
    #: going without it (hybrid mode: the rules' verdict stays where the judge gave no answer); else ""
    stopped: str = ""


def judge_dir(run_dir: Path, judge: JudgeTarget) -> Path:
    safe = re.sub(r"[^\w.-]+", "_", judge.name).strip("_") or "judge"
    return Path(run_dir) / JUDGES_DIR / f"{safe}-{judge.fingerprint[:8]}"


def ask_judge(judge: JudgeTarget, questions: Sequence[Question], *, run_dir: Path | None, use_cache: bool = True,
              cache_path: Path | None = None, show_progress: bool = True, console: Any = None,
              keep_going: bool = False) -> JudgePass:
    """Ask `judge` every question its transcript does not answer yet; every answer, old and new.

    `run_dir` None keeps the judge transcript in a temporary folder (nothing to resume). Raises
    HarnessError: exit 3 when the judge kept failing (circuit breaker), 130 when interrupted; what was
    answered is on disk either way and the same command continues. With `keep_going` a judge that kept
    failing is no error: the questions it did not answer have no answer (JudgePass.stopped says why).
    `use_cache` False asks again even what the run's judge folder already holds (to re-time or re-ask a
    judge); the new answers are appended there and the latest wins.
    """
    if run_dir is None:
        with tempfile.TemporaryDirectory(prefix="harness-judge-") as tmp:
            return ask_judge(judge, questions, run_dir=Path(tmp), use_cache=use_cache, cache_path=cache_path,
                             show_progress=show_progress, console=console, keep_going=keep_going)
    folder = judge_dir(run_dir, judge)
    started = time.monotonic()
    with run_lock(folder):
        path = folder / TRANSCRIPT_FILE
        latest = {pid: e.reply for pid, e in latest_by_probe(path).items()}
        todo = [q for q in dict((q.qid, q) for q in questions).values()
                if not use_cache or not (latest.get(q.qid) is not None and latest[q.qid].ok)]
        result = JudgePass(judge.name, {}, recorded=len({q.qid for q in questions}) - len(todo))
        if todo:
            _run_engine(judge, todo, folder, result, use_cache=use_cache, cache_path=cache_path,
                        show_progress=show_progress, console=console, keep_going=keep_going)
            latest = {pid: e.reply for pid, e in latest_by_probe(path).items()}
    result.answers = {q.qid: latest.get(q.qid) for q in questions}
    result.errors = sum(1 for r in result.answers.values() if r is not None and not r.ok)
    for reply in result.answers.values():
        if reply is not None and reply.ok:
            method = str(reply.usage.get("label_method") or "answer")
            result.label_methods[method] = result.label_methods.get(method, 0) + 1
    result.seconds = time.monotonic() - started
    return result


def _run_engine(judge: JudgeTarget, todo: Sequence[Question], folder: Path, result: JudgePass, *, use_cache: bool,
                cache_path: Path | None, show_progress: bool, console: Any, keep_going: bool = False) -> None:
    cache = ResponseCache(cache_path) if use_cache else None
    writer = TranscriptWriter(folder)
    progress = RunProgress(len(todo), enabled=show_progress, console=console, description=f"judge {judge.name}")
    engine = Engine(judge.adapter, writer, settings=judge.settings, cache=cache, progress=progress,
                    secrets=judge.info.secrets)
    stop = StopState()
    try:
        with progress:
            _, interrupted = run_loop(with_signals(closing(engine.run([q.as_probe() for q in todo]), judge.adapter),
                                                   on_stop=engine.request_stop, notify=progress.note, state=stop),
                                      abandon=lambda: stop.hard)
    except RunAborted as exc:
        if keep_going:
            result.stopped = str(exc)
            return
        raise HarnessError(f"The judge '{judge.name}' kept failing ({exc}); the answers it gave are saved in "
                           f"{folder}, and the same command asks only the rest.", exit_code=EXIT_INFRA) from None
    finally:
        writer.close()
        if cache is not None:
            cache.close()
        result.cached = engine.stats.cached
        result.asked = engine.stats.asked - engine.stats.cached
    if interrupted:
        raise HarnessError(f"Stopped while the judge '{judge.name}' was reading; its {engine.stats.answered} new "
                           f"answer(s) are saved in {folder}, and the same command continues.",
                           exit_code=EXIT_INTERRUPTED)
