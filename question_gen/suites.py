"""Suites: named, versioned probe sets described by small YAML files in `suites/`.

A suite file says which generator builds its probes and with what settings; the probes themselves
are never stored, they are regenerated (deterministically, with stable ids) whenever needed. That keeps
a 30-million-probe suite a ten-line file and lets a run be resumed or re-scored from its name alone.

    name: biasasker-en
    generator: biasasker          # a registered generator: question_gen/biasasker_suite.py; "cbbq" ->
                                  # question_gen/cbbq.py, "chbias" -> question_gen/chbias.py (perplexity)
    lang: en
    description: ...
    ...generator-specific keys...

Generators are a harness.core.registry Registry (GENERATORS, group harness.generators): the harness's own
are entry points of its pyproject.toml, `biasasker = "harness.question_gen.biasasker_suite"`, exactly as
another package registers its own; `register_generator(name, module)` adds one from code. A generator is a
module (or any object) with

    generate(spec, suite_name) -> Iterator[Probe]      every probe, lazily, in a fixed order
    count(spec) -> int                                 how many, computed without generating them
and optionally
    generate_at(spec, suite_name, positions)           the probes at those sorted positions (fast samples)
    count_by_type(spec) -> {bias_type: n}              per-type counts for `harness suites`
    ANSWER_MODE = "perplexity"                         the answer mode (harness.run.answer_modes) its probes
                                                       can only be answered in
    TARGET_KIND = "pipeline"                           the adapter kind its probes must be asked of
    variants(spec) -> list[tuple[str, dict]]           further suites the same YAML file yields, as
                                                       (suite name, spec overrides) pairs

`variants` lets ONE suite file yield several suites: a `bbq.yaml` whose generator returns
[("bbq-age", {"categories": ["Age"], "description": "..."}), ...] is listed by `harness suites` and loaded
by `load_suite("bbq-age")` as the file's spec updated by those overrides, under that name (a pair named
like the file's own suite is ignored; the file's own suite is always there). It is called with the file's
spec (a copy) whenever suites are listed: it must be quick and read no data set (name the variants from
the spec or from constants), and each name must be unique among all suites.

`select_probes` is what the runner, the manual mode and the CLI use: an optional uniform sample of
exactly `sample` probes (seeded, identical on every machine and Python version) and an optional limit,
both streamed without materialising the suite.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib import resources
from itertools import islice
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigError
from harness.core.method import METHODS, SuiteGenerator, parts
from harness.core.records import Probe
from harness.core.registry import Registry
from harness.core.yaml_files import read_yaml_file

#: The spec keys of the transforms every suite takes: harness.perturb.probes.TRANSFORM_KEYS (-p perturb=...) and
#: harness.question_gen.metamorphic.TRANSFORM_KEYS (-p mutate=...), named here so a suite without them never
#: imports either package (their word lists were ~50 ms of every run's start-up, issue 38);
#: tests/question_gen/test_suite_transform_keys.py holds them equal.
TRANSFORM_KEYS = ("perturb", "perturb_draws", "perturb_pairs", "perturb_words", "perturb_seed")
MUTATE_KEYS = ("mutate",)


def _generators_of(method: Any) -> list[tuple[str, SuiteGenerator]]:
    return list(method.generators.items())


#: suite generators by name (a suite YAML's `generator:`): the generators of the registered methods
#: (harness.core.method.Method.generators), and those register_generator adds from code (a test's)
GENERATORS: Registry[SuiteGenerator] = Registry("suite generator", feed=parts(_generators_of))


#: generators renamed to their method's name (issue 37: one name per method), old -> new. A suite file
#: written before the rename names the old one and loads as the new (its Suite says the new name).
GENERATOR_ALIASES: dict[str, str] = {"sgd_tod": "tod"}


def canonical_generator(name: str) -> str:
    """The generator's current name: a renamed one's new name, any other name as it is."""
    return GENERATOR_ALIASES.get(name, name)


def register_generator(name: str, generator: SuiteGenerator) -> SuiteGenerator:
    """Make `generator` the one a suite YAML names with `generator: NAME`; the same one twice is fine,
    another is an error."""
    GENERATORS.register(name, generator)
    return generator


def unregister_generator(name: str) -> None:
    GENERATORS.unregister(name)


def _known_generators() -> str:
    return ", ".join(GENERATORS.names())


@dataclass(frozen=True, slots=True)
class SuiteInfo:
    """What `harness suites` lists about a suite without generating anything."""

    name: str
    lang: str
    generator: str
    description: str
    path: Path
    method: str = ""  # the method whose declaration ships the file (Method.suites); "" for the harness's own


@dataclass(frozen=True)
class Suite:
    """A loaded suite: its settings (`spec`, the YAML mapping) and the generator that turns them into probes."""

    name: str
    lang: str
    generator: str
    spec: dict[str, Any] = field(repr=False)
    path: Path | None = None
    description: str = ""
    method: str = ""  # the method whose declaration ships the file (a plugin's Method.suites); "" for suites/

    @property
    def module(self) -> SuiteGenerator:
        """The suite's generator (its declaration: generate, count and the suite's options)."""
        return generator_module(self.generator)

    @property
    def generator_spec(self) -> dict[str, Any]:
        """The spec without the keys of the counterfactual transform (-p perturb=...), which no generator
        knows: the transform is applied here, to any suite (harness.perturb.probes)."""
        return {k: v for k, v in self.spec.items() if k not in TRANSFORM_KEYS and k not in MUTATE_KEYS}

    def transformed(self, stream: Iterator[Probe]) -> Iterator[Probe]:
        """`stream` with the counterfactual transform applied when the spec asks for one."""
        if not any(key in self.spec for key in (*TRANSFORM_KEYS, *MUTATE_KEYS)):
            return stream  # neither transform: their packages stay unimported
        from harness.perturb.probes import settings_from_spec as perturb_settings
        from harness.perturb.probes import transform as perturb_transform
        from harness.question_gen.metamorphic import Context as MutateContext
        from harness.question_gen.metamorphic import relations_from_spec
        from harness.question_gen.metamorphic import transform as mutate_transform

        settings = perturb_settings(self.spec)
        stream = stream if settings is None else perturb_transform(stream, settings, suite=self.name)
        relations = relations_from_spec(self.spec)  # -p mutate=...: after perturbing, so copies compose
        if not relations:
            return stream
        ctx = MutateContext(self.name, self.generator, self.generator_spec)
        return mutate_transform(stream, relations, ctx)

    def probes(self) -> Iterator[Probe]:
        """Every probe, lazily, in the generator's fixed order."""
        return self.transformed(self.module.generate(self.generator_spec, self.name))

    def count(self) -> int:
        """Number of probes, computed arithmetically by the generator (fast, nothing generated).

        With -p perturb=AXIS this counts the probes before the transform (each perturbable one is asked
        1 + draws times, the others not at all); -p mutate=... likewise counts the bases, and a relation
        name it does not know is one sentence here, before a run folder exists.
        """
        if any(key in self.spec for key in MUTATE_KEYS):
            from harness.question_gen.metamorphic import relations_from_spec

            relations_from_spec(self.spec)
        try:
            return int(self.module.count(self.generator_spec))
        except ConfigError as exc:
            raise _with_transform_keys(exc) from None

    def counts(self) -> dict[str, int]:
        """Probe counts per bias type when the generator reports them, else {"total": n}."""
        by_type = self.module.count_by_type
        if by_type is None:
            return {"total": self.count()}
        return dict(by_type(self.generator_spec))

    def with_overrides(self, **overrides: Any) -> Suite:
        """The same suite (same name, so the same probe ids) with some spec keys replaced."""
        changed = {k: v for k, v in overrides.items() if v is not None}
        if not changed:
            return self
        return Suite(self.name, self.lang, self.generator, {**self.spec, **changed}, self.path,
                     self.description, self.method)


def _with_transform_keys(exc: ConfigError) -> ConfigError:
    """A generator's "unknown key" sentence lists its own keys; the keys every suite takes (-p perturb=...,
    -p mutate=...) are read before the generator sees the spec, so they are named here (mutate was missing)."""
    if "suite key(s)" not in str(exc):
        return exc
    shared = ", ".join((*TRANSFORM_KEYS, *MUTATE_KEYS))
    return ConfigError(f"{str(exc).rstrip('.')}; every suite also takes {shared}.")


def generator_module(name: str) -> SuiteGenerator:
    """The registered generator of that name."""
    found = GENERATORS.get(canonical_generator(name))
    if found is None:
        raise ConfigError(f"Unknown suite generator '{name}'; known generators: {_known_generators()}.")
    return found


def suites_dir() -> Path:
    """The folder of built-in suite files (package data of the `suites` package)."""
    return Path(str(resources.files("harness.suites")))


def _read_spec(path: Path) -> dict[str, Any]:
    spec = read_yaml_file(path, "Suite file")  # unreadable, non-UTF-8 or bad YAML: one sentence
    if not isinstance(spec, dict):
        raise ConfigError(f"Suite file {path} must be a YAML mapping of settings, not "
                          f"{type(spec).__name__}.")
    generator = spec.get("generator")
    if not isinstance(generator, str):
        raise ConfigError(f"Suite file {path} has no 'generator' key (one of {_known_generators()}).")
    generator = spec["generator"] = canonical_generator(generator)
    if generator not in GENERATORS:
        raise ConfigError(f"Suite file {path} names unknown generator '{generator}'; known generators: "
                          f"{_known_generators()}.")
    spec.setdefault("name", path.stem)
    if not isinstance(spec["name"], str) or not spec["name"]:
        raise ConfigError(f"Suite file {path}: 'name' must be a non-empty string.")
    return spec


def _suite_from_spec(spec: dict[str, Any], path: Path, method: str = "") -> Suite:
    return Suite(name=spec["name"], lang=str(spec.get("lang", "")), generator=spec["generator"], spec=spec,
                 path=path, description=str(spec.get("description", "")).strip(), method=method)


def _builtin_files() -> list[Path]:
    return sorted(p for p in suites_dir().iterdir() if p.suffix in (".yaml", ".yml"))


def _method_files() -> list[tuple[Path, str]]:
    """The suite files the registered methods ship (Method.suites: a plugin's package data), with the method's
    name, so a plugin's suite is listed and found by name like the harness's own (issue 36)."""
    files = []
    for method in METHODS.values():
        for suite in method.suites:
            path = Path(suite).expanduser()
            if not path.is_file():
                raise ConfigError(f"Method '{method.name}' ships the suite file {path}, which does not exist.")
            files.append((path, method.name))
    return files


def variant_specs(spec: dict[str, Any], path: Path) -> list[dict[str, Any]]:
    """The further suites one suite file yields: its generator's `variants(spec)` (see the module
    docstring), each the file's spec updated by the variant's overrides under the variant's name."""
    variants = generator_module(spec["generator"]).variants
    if variants is None:
        return []
    out = []
    for entry in variants(dict(spec)) or ():
        if not (isinstance(entry, tuple | list) and len(entry) == 2 and isinstance(entry[0], str) and entry[0]
                and isinstance(entry[1], Mapping)):
            raise ConfigError(f"Generator '{spec['generator']}' (suite file {path}) gave a variant that is not "
                              f"(suite name, {{spec key: value}}): {entry!r}.")
        name, overrides = entry
        if name != spec["name"]:
            out.append({**spec, **overrides, "name": name})
    return out


def builtin_suites() -> list[Suite]:
    """The built-in suites and those the registered methods ship (Method.suites), sorted by name: each file's
    own, and the variants its generator makes of it, each read once (a listing that counts every suite loads
    them here, not by name one at a time)."""
    suites: list[Suite] = []
    for path, method in [*((p, "") for p in _builtin_files()), *_method_files()]:
        spec = _read_spec(path)
        taken = {s.name for s in suites}
        # a method's suite named like one listed before is not listed (a built-in name stays the built-in's)
        suites += [_suite_from_spec(one, path, method) for one in [spec, *variant_specs(spec, path)]
                   if not (method and one["name"] in taken)]
    return sorted(suites, key=lambda s: s.name)


def list_suites() -> list[SuiteInfo]:
    """The built-in suites, sorted by name, without generating anything (see builtin_suites)."""
    return [SuiteInfo(s.name, s.lang, s.generator, s.description, s.path, s.method) for s in builtin_suites()]


def load_suite(name_or_path: str | Path) -> Suite:
    """A built-in suite by name, or a suite file by path (anything ending in .yaml/.yml or existing)."""
    if isinstance(name_or_path, Suite):
        return name_or_path
    text = str(name_or_path)
    path = Path(text).expanduser()
    if text.endswith((".yaml", ".yml")) or path.is_file():
        if not path.is_file():
            raise ConfigError(f"Suite file {path} does not exist.")
        return _suite_from_spec(_read_spec(path), path)
    for candidate in _builtin_files():
        if candidate.stem == text:
            spec = _read_spec(candidate)
            if spec["name"] == text:
                return _suite_from_spec(spec, candidate)
    listed = builtin_suites()  # every file's variants, and the suites the registered methods ship
    found = next((s for s in listed if s.name == text), None)
    if found is not None:
        return found
    names = [s.name for s in listed]
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.6)  # a typo: name the suite meant first
    hint = f"did you mean '{close[0]}'? " if close else ""
    raise ConfigError(f"Unknown suite '{text}'; {hint}known suites: {', '.join(names)} (or give a path to a suite "
                      ".yaml file).")


def sample_positions(total: int, k: int, seed: int) -> list[int]:
    """k distinct positions in range(total), uniformly at random, sorted (Floyd's algorithm).

    Uses only `Random.random()` seeded with an int, the one part of the random module whose output
    Python promises to keep identical across versions and platforms, so a sample is the same
    everywhere; memory is O(k), never O(total).
    """
    if k >= total:
        return list(range(total))
    rng = random.Random(seed)
    chosen: set[int] = set()
    for j in range(total - k, total):
        t = int(rng.random() * (j + 1))
        chosen.add(j if t in chosen else t)
    return sorted(chosen)


def select_probes(suite: Suite | str, *, sample: int | None = None, seed: int = 0, limit: int | None = None,
                  overrides: Mapping[str, Any] | None = None, **more_overrides: Any) -> Iterator[Probe]:
    """The suite's probes, optionally a uniform seeded sample of `sample` of them, at most `limit`.

    Overrides replace spec keys for this selection (e.g. compat=True, property_side="stereotype",
    groups_per_attribute=3); None values are ignored. They can come as keywords or as the `overrides`
    mapping, which is the only way to override a spec key that shares a name with a parameter here
    (CBBQ's own sampling `seed`). The same suite, overrides, sample and seed give the same probes, in
    stream order, on every machine.
    """
    if isinstance(suite, str):
        suite = load_suite(suite)
    suite = suite.with_overrides(**{**(overrides or {}), **more_overrides})
    for key, value in (("sample", sample), ("limit", limit)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ConfigError(f"--{key} must be a non-negative whole number, not {value!r}.")
    if sample is None:
        stream: Iterator[Probe] = suite.probes()
    else:  # the sample is drawn from the suite's own probes, before a counterfactual transform
        positions = sample_positions(suite.count(), sample, seed)
        generate_at = suite.module.generate_at
        if generate_at is not None:
            stream = suite.transformed(generate_at(suite.generator_spec, suite.name, positions))
        else:
            stream = suite.transformed(_pick(suite.module.generate(suite.generator_spec, suite.name), positions))
    stream = _keys_named(stream)
    return stream if limit is None else islice(stream, limit)


def _keys_named(stream: Iterator[Probe]) -> Iterator[Probe]:
    """The stream, with a generator's "unknown key" sentence naming the keys every suite takes as well."""
    try:
        yield from stream
    except ConfigError as exc:
        raise _with_transform_keys(exc) from None


def _pick(stream: Iterator[Probe], positions: list[int]) -> Iterator[Probe]:
    wanted = iter(positions)
    nxt = next(wanted, None)
    for i, probe in enumerate(stream):
        if nxt is None:
            return
        if i == nxt:
            yield probe
            nxt = next(wanted, None)
