"""One suite file yielding several suites (a generator's `variants`), and a generator registered from code."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.core.errors import ConfigError
from harness.core.method import SuiteGenerator
from harness.core.records import Probe
from harness.question_gen import suites


def _generator() -> SuiteGenerator:
    """A generator with variants: one probe per listed colour, a suite per colour besides the whole set."""

    def generate(spec: dict, name: str) -> Iterator[Probe]:
        for colour in spec["colours"]:
            yield Probe.make(name, "en", "yes_no", "relative", f"Is {colour} nice?")

    def count(spec: dict) -> int:
        return len(spec["colours"])

    def variants(spec: dict) -> list[tuple[str, dict]]:
        return [(f"{spec['name']}-{c}", {"colours": [c], "description": f"only {c}"}) for c in spec["colours"]]

    return SuiteGenerator(generate=generate, count=count, variants=variants)


@pytest.fixture
def colour_suite(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "suites"
    folder.mkdir()
    (folder / "colours.yaml").write_text("generator: unit_colours\nlang: en\ncolours: [red, blue]\n", "utf-8")
    monkeypatch.setattr(suites, "suites_dir", lambda: folder)
    suites.register_generator("unit_colours", _generator())
    yield folder
    suites.unregister_generator("unit_colours")


def test_one_file_yields_its_suite_and_each_variant(colour_suite: Path) -> None:
    assert [(i.name, i.description) for i in suites.list_suites()] == [
        ("colours", ""), ("colours-blue", "only blue"), ("colours-red", "only red")]
    red = suites.load_suite("colours-red")
    assert red.name == "colours-red" and red.spec["colours"] == ["red"] and red.count() == 1
    assert [p.text for p in red.probes()] == ["Is red nice?"] and red.path == colour_suite / "colours.yaml"
    assert suites.load_suite("colours").count() == 2
    with pytest.raises(ConfigError, match="Unknown suite 'colours-green'; did you mean 'colours-red'. "
                                          "known suites: colours, colours-blue"):
        suites.load_suite("colours-green")


def test_an_unknown_generator_names_the_registered_ones(tmp_path: Path) -> None:
    path = tmp_path / "odd.yaml"
    path.write_text("generator: nosuch\n", "utf-8")
    with pytest.raises(ConfigError, match="names unknown generator 'nosuch'; known generators: .*biasasker"):
        suites.load_suite(str(path))
