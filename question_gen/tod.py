"""The `tod` generator: task-oriented turns of SGD, original and perturbed, for the attribution steps.

(Named `sgd_tod` before one name per method, issue 37: suite files that say so still load, see
question_gen/suites.py GENERATOR_ALIASES.)

For each axis, Algorithm 1 finds the dialogues of the split that hold a word of the axis (outside named
entities, harness.perturb.dialogues) and draws up to `draws` substitutions per dialogue. The turns
measured are the system turns that called an API and that the perturbation reaches (the history the
system sees differs: a turn before the first perturbed word would get the same reply by construction).
Each measured turn is asked of a pipeline target (adapters/pipeline.py) as:

  original  the original history, the original database                           (once, any axis)
  step1     the perturbed history, the original database                          (the whole system)
  step2     the perturbed history, the simulated database (rows perturbed alike)  (mismatch resolved)
  step3     step2 with the API call of the original history, perturbed            (API call fixed)

The probe's text is the request the pipeline reads, a JSON document (so the transcript alone can be
re-asked, resumed and cached); meta["tod"] holds the reference response (perturbed alike for the
steps), the substitution and how many dialogues of the split were perturbable (metrics/tod.py).

Spec keys: data (an SGD split folder; default $HARNESS_DATA_DIR/sgd/test), axes (default gender, age,
race), draws (3), seed (0), dialogues (per axis, a seeded sample of that many perturbable dialogues;
default all), turns ("api": turns that called an API, default; "all": every system turn reached),
max_turns (per dialogue and draw; default all), protect_entities (true), history (previous turns the
request carries, default 8), pairs (per axis, the (source, target) pairs: {race: "american:mexican"}).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import harness.perturb as perturb_pkg
from harness.core.errors import ConfigError, HarnessError
from harness.core.paths import cache_dir
from harness.core.records import Probe, id_kind, stable_id
from harness.perturb.algorithm import DEFAULT_DRAWS, Substitution, perturber_for
from harness.perturb.dialogues import SHAPE_SGD, dialogue_draws, no_words_message, perturb_sgd_dialogue
from harness.perturb.lexicon import AXES
from harness.perturb.sgd import load_split, service_calls, split_dir

#: the kind these probes are (declared by metrics/tod.py; the name is the contract between the two): a turn of
#: a task-oriented dialogue asked of a pipeline target, its reply read against the dialogue's ground-truth
#: response (metrics/tod.py), not by the oracle
KIND = "tod"
SPEC_KEYS = frozenset({"name", "generator", "lang", "description", "data", "axes", "draws", "seed", "dialogues",
                       "turns", "max_turns", "protect_entities", "history", "pairs"})
STEPS = ("step1", "step2", "step3")
BIAS_TYPE = "counterfactual"
#: the target kind these requests are for (harness.run.plan.check_target_kind refuses another)
TARGET_KIND = "pipeline"


def _settings(spec: Mapping[str, Any]) -> dict[str, Any]:
    unknown = sorted(set(spec) - SPEC_KEYS)
    if unknown:
        raise ConfigError(f"Unknown tod suite key(s) {', '.join(unknown)}; known: "
                          f"{', '.join(sorted(SPEC_KEYS - {'name', 'generator', 'description'}))}.")
    axes = spec.get("axes", list(AXES))
    axes = [axes] if isinstance(axes, str) else list(axes)
    bad = [a for a in axes if a not in AXES]
    if bad or not axes:
        raise ConfigError(f"axes must name some of {', '.join(AXES)}, not {bad or axes}.")
    pairs = spec.get("pairs") or {}
    if not isinstance(pairs, Mapping) or not all(k in axes and isinstance(v, str) for k, v in pairs.items()):
        raise ConfigError("tod key pairs maps an axis to its SOURCE:TARGET pairs, e.g. "
                          "{race: 'american:mexican,mexican:american'}.")
    out = {"axes": axes, "data": spec.get("data"), "turns": spec.get("turns", "api"), "pairs": dict(pairs),
           "protect_entities": bool(spec.get("protect_entities", True))}
    for key, default in (("draws", DEFAULT_DRAWS), ("seed", 0), ("dialogues", None), ("max_turns", None),
                         ("history", 8)):
        value = spec.get(key, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ConfigError(f"tod key {key} must be a whole number, not {value!r}.")
        out[key] = value
    if out["turns"] not in ("api", "all"):
        raise ConfigError(f"tod key turns must be api or all, not {out['turns']!r}.")
    return out


def _history(turns: list[dict[str, Any]], upto: int, keep: int) -> list[list[str]]:
    return [[t["speaker"], t["utterance"]] for t in turns[max(0, upto - keep):upto]]


def _measured_turns(orig: list[dict[str, Any]], pert: list[dict[str, Any]], settings: dict[str, Any]) -> list[int]:
    """System turns (that called an API, unless turns: all) whose history, as the request carries it (the last
    `history` turns), the perturbation changed."""
    out = []
    for i, turn in enumerate(orig):
        if turn.get("speaker") != "SYSTEM" or (settings["turns"] == "api" and not service_calls(turn)):
            continue
        window = slice(max(0, i - settings["history"]), i)  # what the request carries
        if any(a["utterance"] != b["utterance"] for a, b in zip(orig[window], pert[window], strict=True)):
            out.append(i)
    return out[: settings["max_turns"]] if settings["max_turns"] else out


def _service(turn: dict[str, Any], dialogue: dict[str, Any]) -> str:
    calls = service_calls(turn)
    if calls:
        return calls[0][0]
    frames = turn.get("frames") or []
    return str(frames[0].get("service")) if frames else str((dialogue.get("services") or [""])[0])


def _request(dialogue: dict[str, Any], turns: list[dict[str, Any]], i: int, settings: dict[str, Any], *,
             db: str = "original", sub: Substitution | None = None, api_call: str = "model",
             original: list[dict[str, Any]] | None = None) -> str:
    body: dict[str, Any] = {"task": "sgd", "dialogue": dialogue["dialogue_id"], "turn": i,
                            "service": _service(turns[i], dialogue), "lang": "en",
                            "history": _history(turns, i, settings["history"]), "db": db, "api_call": api_call}
    if sub is not None:
        body["substitution"] = sub.to_dict()
        body["protect_entities"] = settings["protect_entities"]
    if original is not None:
        body["original_history"] = _history(original, i, settings["history"])
    if settings["data"]:  # the pipeline's database and schema come from the same split (default: its own)
        body["data"] = str(settings["data"])
    return json.dumps(body, ensure_ascii=False, sort_keys=True)


def _probe(suite: str, text: str, meta: dict[str, Any], service: str, axis: str = "",
           groups: tuple[str, ...] = ()) -> Probe:
    pid = stable_id(suite, id_kind(KIND), text)  # the id it had when the kind was "tod_turn"
    return Probe(id=pid, suite=suite, lang="en", kind=KIND, bias_type=BIAS_TYPE, text=text,
                 groups=groups, attribute=axis, categories=(service,), meta={"tod": meta})


@lru_cache(maxsize=4)
def _plan(spec_json: str, name: str) -> tuple[tuple[Probe, ...], tuple[tuple[str, int], ...],
                                              tuple[tuple[str, int], ...]]:
    """Every probe of the suite (built once per process) and the perturbable dialogues found per axis."""
    settings = _settings(json.loads(spec_json))
    split = load_split(settings["data"])
    dialogues = list(split.dialogues)
    probes: list[Probe] = []
    emitted: set[str] = set()
    found: list[tuple[str, int]] = []  # dialogues with a word of the axis
    reached: list[tuple[str, int]] = []  # of them, with a measured turn the perturbation reaches
    for axis in settings["axes"]:
        pairs = settings["pairs"].get(axis, "")
        perturber = perturber_for("en", axis, pairs)
        drawn = [(d, dialogue_draws(d, SHAPE_SGD, perturber, seed=settings["seed"], draws=settings["draws"],
                                    protect_entities=settings["protect_entities"], pairs=pairs)) for d in dialogues]
        drawn = [(d, subs) for d, subs in drawn if subs]
        found.append((axis, len(drawn)))
        # only dialogues with a turn to measure can be sampled (a word after the last API call reaches none)
        drawn = [(d, subs) for d, subs in drawn if any(_turns_of(d, sub, settings) for sub in subs)]
        reached.append((axis, len(drawn)))
        if settings["dialogues"] is not None and len(drawn) > settings["dialogues"]:
            # seeded with the generator's old name, so a sample draws the same dialogues as before the rename
            rng = random.Random(int(stable_id("sgd_tod", axis, settings["seed"]), 16))
            keep = sorted(rng.sample(range(len(drawn)), settings["dialogues"]))
            drawn = [drawn[k] for k in keep]
        for dialogue, subs in drawn:
            probes += _dialogue_probes(name, axis, dialogue, subs, settings, emitted, found[-1][1], len(dialogues))
    for probe in probes:  # every axis asked, with the dialogues it found (0: nothing to perturb on that axis)
        probe.meta["tod"]["found"] = dict(found)
        probe.meta["tod"]["reached"] = dict(reached)
    return tuple(probes), tuple(found), tuple(reached)


def _turns_of(dialogue: dict[str, Any], sub: Substitution, settings: dict[str, Any]) -> list[int]:
    pert = perturb_sgd_dialogue(dialogue, sub, settings["protect_entities"])["turns"]
    return _measured_turns(dialogue["turns"], pert, settings)


def _dialogue_probes(name: str, axis: str, dialogue: dict[str, Any], subs: list[Substitution],
                     settings: dict[str, Any], emitted: set[str], n_found: int, n_all: int) -> list[Probe]:
    orig = dialogue["turns"]
    out: list[Probe] = []
    for sub in subs:
        pert = perturb_sgd_dialogue(dialogue, sub, settings["protect_entities"])["turns"]
        for i in _measured_turns(orig, pert, settings):
            service = _service(orig[i], dialogue)
            base = {"dialogue": dialogue["dialogue_id"], "turn": i, "service": service}
            text = _request(dialogue, orig, i, settings)
            first = _probe(name, text, {**base, "role": "original", "reference": orig[i]["utterance"]}, service)
            if first.id not in emitted:
                emitted.add(first.id)
                out.append(first)
            meta = {**base, "role": "perturbed", "axis": axis, "draw": sub.draw, "substitution": sub.to_dict(),
                    "reference": pert[i]["utterance"], "original": first.id, "perturbable": n_found,
                    "scanned": n_all}
            groups = (sub.source, sub.target)
            requests = {
                "step1": _request(dialogue, pert, i, settings, sub=sub),
                "step2": _request(dialogue, pert, i, settings, db="simulated", sub=sub),
                "step3": _request(dialogue, pert, i, settings, db="simulated", sub=sub,
                                  api_call="perturbed-original", original=orig),
            }
            for step, request in requests.items():
                out.append(_probe(name, request, {**meta, "step": step}, service, axis, groups))
    return out


def _plan_for(spec: Mapping[str, Any], name: str) -> tuple[tuple[Probe, ...], tuple[tuple[str, int], ...]]:
    settings = _settings(spec)  # bad keys: one sentence before any data is read
    probes, found, reached = _plan(json.dumps(dict(spec), sort_keys=True, default=str), name)
    where = settings["data"] or "the SGD test split"
    if not any(n for _axis, n in found):  # an axis without words is reported (meta "found"); none at all stops
        axes = " or ".join(a for a, _n in found)
        raise HarnessError(no_words_message(str(where), axes, "en", len(load_split(settings["data"]).dialogues),
                                            settings["protect_entities"]))
    if not probes:
        n = sum(k for _a, k in found)
        raise HarnessError(f"{n:,} dialogues of {where} have a word to perturb, but in none does it reach a turn "
                           "that called an API (the only turns measured by default); try -p turns=all.")
    return probes, found


def generate(spec: Mapping[str, Any], name: str) -> Iterator[Probe]:
    yield from _plan_for(spec, name)[0]


def generate_at(spec: Mapping[str, Any], name: str, positions: list[int]) -> Iterator[Probe]:
    probes = _plan_for(spec, name)[0]
    for p in positions:
        yield probes[p]


def count(spec: Mapping[str, Any]) -> int:
    """How many probes the suite holds. Finding them perturbs the whole split (about 10 CPU-s), so the
    number is kept on disk, keyed by the spec, the split's files and this code, for `harness suites`."""
    key = _count_key(spec)
    path = cache_dir() / "tod" / f"count-{key}.json"
    try:
        return int(json.loads(path.read_text("utf-8"))["count"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    n = len(_plan_for(spec, str(spec.get("name", "sgd-tod")))[0])
    with contextlib.suppress(OSError):  # a read-only cache only costs the next listing the same time
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"count": n}), "utf-8")
    return n


def _count_key(spec: Mapping[str, Any]) -> str:
    folder = split_dir(_settings(spec)["data"])
    files = sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.glob("*.json"))
    code = [Path(__file__)] + sorted(Path(perturb_pkg.__file__).parent.glob("*.*"))
    digest = hashlib.sha256(json.dumps([dict(spec), str(folder), files], sort_keys=True, default=str).encode())
    for source in code:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def perturbable(spec: Mapping[str, Any]) -> dict[str, int]:
    """Perturbable dialogues found per axis (what the report states beside the fairscores)."""
    return dict(_plan_for(spec, str(spec.get("name", "sgd-tod")))[1])
