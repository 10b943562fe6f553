"""The echoplug method, declared once: its suite generator, its probe kind, its rule reader and its family.

One entry point names it (echoplug-0.1.dist-info/entry_points.txt: `[harness.methods] echoplug =
echoplug.method:METHOD`), exactly as the harness's own methods are named in its pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from echoplug import family, generator, reader
from harness.core.method import FamilySpec, Method, SuiteGenerator

METHOD = Method(
    name="echoplug",
    generators={"echoplug": SuiteGenerator(generate=generator.generate, count=generator.count)},
    kinds=family.KINDS,
    rules={"*/echo_pair": reader.read},
    family=FamilySpec(compute=family.compute, headline=family.HEADLINE, sections=family.SECTIONS,
                      leaderboard=family.LEADERBOARD, pair_key=family.PAIR_KEY, example=family.example),
    suites=(Path(__file__).with_name("echo.yaml"),),  # listed by `harness suites`, found by `--suite echoplug-en`
)
