"""Dialogues perturbed consistently: SGD JSON (turns, state, actions, API calls, database rows) or JSONL turns.

Two shapes are read:
  * Schema-Guided Dialogue JSON: a list of {"dialogue_id", "services", "turns": [{"speaker", "utterance",
    "frames": [...]}]} (one dialogues_NNN.json file, or a folder of them); every system frame may carry
    the API call it made ("service_call") and the rows that came back ("service_results").
  * Plain JSONL of turns: one JSON object per line with a dialogue id ("dialogue_id", "dialogue" or "id")
    and the text ("text" or "utterance"), optionally "speaker" and "lang"; the lines of one dialogue need
    not be adjacent.

One substitution per dialogue and draw (Algorithm 1) is applied to every utterance, the dialogue state,
the dialogue acts, the API call and the database rows, and the slot spans of the utterances are moved to
the new character offsets, so the perturbed dialogue is as well-formed as the original.

Named entities are kept (`protect_entities`, on by default): the value of every slot except the
descriptive ones (DESCRIPTIVE_SLOTS: cuisine category, genre, type...) is a name, title, place, airline or
language ("A Faithful Man", "American Airlines", "Good Boys", "French subtitles"), and perturbing it
invents an entity rather than a user of another group. Off, every word is perturbed, as Su et al. did.
"""

from __future__ import annotations

import copy
import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError, HarnessError
from harness.perturb.algorithm import (
    DEFAULT_DRAWS,
    Substitution,
    apply,
    apply_text,
    candidates,
    draw,
    perturber_for,
)
from harness.perturb.text import Perturber, Span, is_chinese, map_span

#: Slots whose values describe what the user wants rather than name an entity: these are perturbed.
DESCRIPTIVE_SLOTS = frozenset({"category", "cuisine", "food", "genre", "type", "event_type", "subcategory"})
SHAPE_SGD = "sgd"
SHAPE_JSONL = "jsonl"
_ID_KEYS = ("dialogue_id", "dialogue", "id")
_TEXT_KEYS = ("text", "utterance")


@dataclass
class DialogueFile:
    """Dialogues read from a file: their shape, the records as read, and the language of their text."""

    path: Path
    shape: str
    dialogues: list[dict[str, Any]]  # SGD dialogue dicts, or {"dialogue_id", "lines": [...]} for JSONL
    lang: str | None  # None: each dialogue's own (a JSONL line's "lang", else read from its text)

    def dialogue_lang(self, dialogue: dict[str, Any]) -> str:
        if self.lang:
            return self.lang
        if self.shape == SHAPE_JSONL:
            given = next((obj.get("lang") for _n, _k, obj in dialogue["lines"] if obj.get("lang")), None)
            if given in ("en", "zh"):
                return str(given)
        return "zh" if any(is_chinese(t) for t, _ in dialogue_texts(dialogue, self.shape)) else "en"


@dataclass
class PerturbStats:
    dialogues: int = 0
    perturbable: int = 0
    written: int = 0
    sources: Counter[str] = field(default_factory=Counter)  # source attribute of each draw
    pairs: Counter[str] = field(default_factory=Counter)  # "source -> target" of each draw


def protected_slot(slot: str, protect_entities: bool = True) -> bool:
    return protect_entities and slot not in DESCRIPTIVE_SLOTS


# ------------------------------------------------------------------------------------------ reading


def _sgd_files(path: Path) -> list[Path]:
    if path.is_dir():
        files = sorted(p for p in path.glob("dialogues_*.json"))
        if not files:
            raise ConfigError(f"{path} holds no dialogues_*.json files (an SGD split folder has them).")
        return files
    return [path]


def _load_json(path: Path) -> Any:
    try:
        with path.open(encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from None
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None


def _is_sgd(doc: Any) -> bool:
    return isinstance(doc, list) and bool(doc) and all(
        isinstance(d, dict) and "dialogue_id" in d and isinstance(d.get("turns"), list) for d in doc)


def _check_sgd_turn(file: Path, dialogue_id: Any, i: int, turn: Any) -> None:
    """One sentence for a turn the perturbation and the pipeline could not read (checked before any work, so
    a malformed file never fails halfway through a run)."""
    where = f"{file}: dialogue {dialogue_id} turn {i + 1}"
    if not isinstance(turn, dict) or not isinstance(turn.get("utterance"), str):
        raise ConfigError(f"{where} has no 'utterance' text.")
    frames = turn.get("frames") or []
    if not isinstance(frames, list) or not all(isinstance(f, dict) for f in frames):
        raise ConfigError(f"{where}: 'frames' is not a list of objects.")
    for frame in frames:
        call, rows = frame.get("service_call"), frame.get("service_results") or []
        if call is not None and not (isinstance(call, dict) and isinstance(call.get("parameters", {}), dict)):
            raise ConfigError(f"{where}: 'service_call' is not an object with a 'method' and 'parameters'.")
        if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
            raise ConfigError(f"{where}: 'service_results' is not a list of objects (database rows).")


def read_dialogues(path: str | Path, lang: str | None = None) -> DialogueFile:
    """Read SGD JSON (file or folder) or JSONL turns; another shape is a one-sentence ConfigError."""
    path = Path(path).expanduser()
    if not path.exists():
        raise ConfigError(f"{path} does not exist.")
    dialogues: list[dict[str, Any]] = []
    doc = None if path.is_dir() else _load_json(path)
    if path.is_dir() or _is_sgd(doc):
        for file in _sgd_files(path):
            part = doc if not path.is_dir() else _load_json(file)
            if not _is_sgd(part):
                raise ConfigError(f"{file} is not Schema-Guided Dialogue JSON (a list of objects with "
                                  "'dialogue_id' and 'turns').")
            for d in part:
                for i, turn in enumerate(d["turns"]):
                    _check_sgd_turn(file, d["dialogue_id"], i, turn)
            dialogues.extend(part)
        shape = SHAPE_SGD
    elif doc is not None and not isinstance(doc, dict):  # one JSON object is a one-line JSONL file
        raise ConfigError(f"{path} is JSON but not Schema-Guided Dialogue (a list of objects with "
                          "'dialogue_id' and 'turns'); for other dialogues write JSONL, one turn per line "
                          "with 'dialogue_id' and 'text'.")
    else:
        dialogues, shape = _read_jsonl(path), SHAPE_JSONL
    if not dialogues:
        raise ConfigError(f"{path} holds no dialogues.")
    return DialogueFile(path, shape, dialogues, lang)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    by_id: dict[str, dict[str, Any]] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 text (bad byte at position {exc.start}).") from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            raise ConfigError(f"{path} is neither SGD JSON nor JSONL turns: line {n} is not a JSON "
                              "object.") from None
        if not isinstance(obj, dict):
            raise ConfigError(f"{path} is neither SGD JSON nor JSONL turns: line {n} is not a JSON object "
                              "with 'dialogue_id' and 'text'.")
        id_key = next((k for k in _ID_KEYS if k in obj), None)
        text_key = next((k for k in _TEXT_KEYS if isinstance(obj.get(k), str)), None)
        if id_key is None or text_key is None:
            missing = "dialogue id ('dialogue_id')" if id_key is None else "'text' of the turn"
            raise ConfigError(f"{path} is neither SGD JSON nor JSONL turns: line {n} has no {missing} "
                              "(each line is one turn with 'dialogue_id' and 'text').")
        key = str(obj[id_key])
        by_id.setdefault(key, {"dialogue_id": key, "id_key": id_key, "lines": []})["lines"].append(
            (n, text_key, obj))
    return list(by_id.values())


# ------------------------------------------------------------------------------------------ texts


def turn_protected(turn: dict[str, Any], protect_entities: bool = True) -> list[Span]:
    """Character spans of the entity slot values in an SGD turn's utterance.

    Free-form slots carry their span; categorical ones (airlines, subtitle_language) carry none, so their
    values named in the turn's acts are looked up in the utterance as whole words ("French subtitles").
    """
    if not protect_entities:
        return []
    spans = []
    text = turn.get("utterance") or ""
    lowered = text.lower()
    for frame in turn.get("frames") or []:
        for slot in frame.get("slots") or []:
            if protected_slot(str(slot.get("slot", ""))) and "start" in slot:
                spans.append((int(slot["start"]), int(slot["exclusive_end"])))
        for action in frame.get("actions") or []:
            if not protected_slot(str(action.get("slot", ""))):
                continue
            for value in action.get("values") or []:
                if isinstance(value, str) and value.strip():
                    spans.extend(_whole_word_spans(lowered, value.lower()))
    return spans


def _whole_word_spans(text: str, value: str) -> Iterator[Span]:
    start = text.find(value)
    while start >= 0:
        end = start + len(value)
        if (start == 0 or not text[start - 1].isalnum()) and (end == len(text) or not text[end].isalnum()):
            yield start, end
        start = text.find(value, start + 1)


def dialogue_texts(dialogue: dict[str, Any], shape: str, protect_entities: bool = True
                   ) -> Iterator[tuple[str, list[Span]]]:
    """(text, protected spans) of every turn, the texts Algorithm 1 looks for words in."""
    if shape == SHAPE_SGD:
        for turn in dialogue["turns"]:
            yield turn["utterance"], turn_protected(turn, protect_entities)
    else:
        for _n, key, obj in dialogue["lines"]:
            yield obj[key], []


# ------------------------------------------------------------------------------------------ perturbing


def _slot_values(sub: Substitution, values: dict[str, Any], protect_entities: bool) -> dict[str, Any]:
    out = {}
    for slot, value in values.items():
        if protected_slot(slot, protect_entities):
            out[slot] = value
        elif isinstance(value, list):
            out[slot] = [apply_text(sub, v) if isinstance(v, str) else v for v in value]
        else:
            out[slot] = apply_text(sub, value) if isinstance(value, str) else value
    return out


def perturb_frame(sub: Substitution, frame: dict[str, Any], protect_entities: bool = True) -> dict[str, Any]:
    """A frame's state, acts, API call and rows with the substitution applied to non-entity slot values."""
    frame = copy.deepcopy(frame)
    for action in frame.get("actions") or []:
        if not protected_slot(str(action.get("slot", "")), protect_entities):
            for key in ("values", "canonical_values"):
                action[key] = [apply_text(sub, v) if isinstance(v, str) else v for v in action.get(key) or []]
    state = frame.get("state")
    if isinstance(state, dict) and isinstance(state.get("slot_values"), dict):
        state["slot_values"] = _slot_values(sub, state["slot_values"], protect_entities)
    call = frame.get("service_call")
    if isinstance(call, dict) and isinstance(call.get("parameters"), dict):
        call["parameters"] = _slot_values(sub, call["parameters"], protect_entities)
    if isinstance(frame.get("service_results"), list):
        frame["service_results"] = [_slot_values(sub, row, protect_entities) if isinstance(row, dict) else row
                                    for row in frame["service_results"]]
    return frame


def perturb_sgd_dialogue(dialogue: dict[str, Any], sub: Substitution, protect_entities: bool = True
                         ) -> dict[str, Any]:
    """A perturbed copy of an SGD dialogue: utterances (slot spans moved), state, acts, calls, rows."""
    out = copy.deepcopy(dialogue)
    for turn in out["turns"]:
        text, edits = apply(sub, turn["utterance"], turn_protected(turn, protect_entities))
        turn["utterance"] = text
        turn["frames"] = [perturb_frame(sub, f, protect_entities) for f in turn.get("frames") or []]
        for frame in turn["frames"]:
            for slot in frame.get("slots") or []:
                if "start" in slot and edits:
                    slot["start"], slot["exclusive_end"] = map_span((slot["start"], slot["exclusive_end"]), edits)
    return out


def dialogue_draws(dialogue: dict[str, Any], shape: str, perturber: Perturber, *, seed: int, draws: int,
                   protect_entities: bool = True, pairs: str = "", words: str = "") -> list[Substitution]:
    """Algorithm 1's draws for one dialogue (empty when it has no perturbable word)."""
    k = candidates(perturber, dialogue_texts(dialogue, shape, protect_entities))
    return draw(perturber, k, key=str(dialogue["dialogue_id"]), seed=seed, draws=draws, pairs=pairs, words=words)


def perturbed_id(dialogue_id: str, sub: Substitution) -> str:
    return f"{dialogue_id}~{sub.axis}{sub.draw}"


def perturb_file(source: DialogueFile, axis: str, *, draws: int = DEFAULT_DRAWS, seed: int = 0,
                 pairs: str = "", words: str = "", protect_entities: bool = True
                 ) -> tuple[list[Any], PerturbStats]:
    """Every perturbable dialogue of the file, once per draw, in the file's own shape.

    SGD: a list of dialogue dicts; JSONL: a list of line objects. Each perturbed dialogue's id gets
    "~AXISDRAW" appended and a "perturbation" record (the Substitution and the original id). Dialogues
    without a word of the axis are left out and counted; none at all is a one-sentence HarnessError.
    """
    stats = PerturbStats(dialogues=len(source.dialogues))
    out: list[Any] = []
    for dialogue in source.dialogues:
        perturber = perturber_for(source.dialogue_lang(dialogue), axis, pairs, words)
        subs = dialogue_draws(dialogue, source.shape, perturber, seed=seed, draws=draws,
                              protect_entities=protect_entities, pairs=pairs, words=words)
        if not subs:
            continue
        stats.perturbable += 1
        for sub in subs:
            stats.sources[sub.source] += 1
            stats.pairs[f"{sub.source} -> {sub.target}"] += 1
            record = {**sub.to_dict(), "dialogue_id": str(dialogue["dialogue_id"])}
            new_id = perturbed_id(str(dialogue["dialogue_id"]), sub)
            if source.shape == SHAPE_SGD:
                done = perturb_sgd_dialogue(dialogue, sub, protect_entities)
                done["dialogue_id"] = new_id
                done["perturbation"] = record
                out.append(done)
            else:
                for _n, key, obj in dialogue["lines"]:
                    out.append({**obj, dialogue["id_key"]: new_id, key: apply_text(sub, obj[key]),
                                "perturbation": record})
            stats.written += 1
    if not stats.perturbable:
        raise HarnessError(no_words_message(str(source.path), axis, source.lang or "en/zh", stats.dialogues,
                                            protect_entities))
    return out, stats


def no_words_message(where: str, axis: str, lang: str, n: int, protect_entities: bool = True) -> str:
    kept = " outside named entities" if protect_entities else ""
    article = "an" if axis[:1] in "aeiou" else "a"
    return (f"No dialogue of {where} has {article} {axis} word of the {lang} word lists{kept} (checked {n:,}); "
            f"nothing to perturb: try another --axis or your own --words list.")


def write_dialogues(records: Iterable[Any], shape: str, path: str | Path) -> Path:
    """Write perturbed records in the input's shape (SGD: one JSON list; JSONL: one object per line)."""
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        if shape == SHAPE_SGD:
            json.dump(list(records), fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        else:
            for record in records:
                fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    tmp.replace(path)
    return path
