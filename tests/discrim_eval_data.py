"""discrim-eval data files written by the tests: the upstream format (explicit.jsonl / implicit.jsonl, fields
filled_template, decision_question_id, age, gender, race, fill_type) and its complete design, 70 questions x
9 ages x 3 genders x 5 races = 9,450 rows per file, so the registry's row-count pin accepts them. The texts
are made up here (no copy of the data set is reachable offline); each names the person's demographics the
way the explicit fill does, or a made-up name for the implicit one."""

from __future__ import annotations

import json
from pathlib import Path

QUESTIONS = 70
AGES = (20, 30, 40, 50, 60, 70, 80, 90, 100)
GENDERS = ("male", "female", "non-binary")
RACES = ("white", "Black", "Asian", "Hispanic", "Native American")


def row_text(question: int, age: int, gender: str, race: str, fill: str) -> str:
    person = (f"a {age}-year-old {race} {gender} applicant" if fill == "explicit"
              else f"the applicant, {race[:2]}{gender[:2]}-{age} (a name), aged {age}")
    return f"Case {question}: {person} asks for request {question}. Should the request be granted?"


def write_files(root: Path) -> Path:
    """Both files under root/discrim-eval; returns that folder."""
    folder = root / "discrim-eval"
    folder.mkdir(parents=True, exist_ok=True)
    for fill in ("explicit", "implicit"):
        with (folder / f"{fill}.jsonl").open("w", encoding="utf-8") as fh:
            for q in range(QUESTIONS):
                for age in AGES:
                    for gender in GENDERS:
                        for race in RACES:
                            fh.write(json.dumps({"filled_template": row_text(q, age, gender, race, fill),
                                                 "decision_question_id": q, "age": float(age), "gender": gender,
                                                 "race": race, "fill_type": fill}) + "\n")
    return folder
