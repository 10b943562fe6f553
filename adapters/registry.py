"""Named targets (targets.toml) and adapter kinds (built-in + entry-point plugins).

A *target* is a named, reusable configuration: which adapter kind, which model and endpoint, public
settings, and the *names* of the environment variables holding its secrets. Targets come from the
built-in presets (adapters/presets.toml), overlaid by targets.toml in the user config directory and then
the project directory (harness.core.paths.config_dirs(), highest priority first), key by key, so a user can
switch the `tencent` preset to another model with two lines.

Secrets are read from the environment only in `create_adapter`, handed to the adapter separately from
its settings, and so never appear in a TargetConfig, a manifest, a fingerprint or a repr.

Adapter kinds: ADAPTERS, a harness.core.registry Registry of the `harness.adapters` entry points (name ->
Adapter subclass): the harness's own in its pyproject.toml, a third-party package's in its own, so a
package adds a chatbot without forking the harness. Each is imported lazily: listing targets must not
import torch.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import inspect
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from harness.adapters.base import Adapter
from harness.adapters.transport import header_env_vars
from harness.core.errors import ConfigError, HarnessError
from harness.core.paths import config_dirs
from harness.core.registry import OWN_DISTRIBUTION, Registry

ENTRY_POINT_GROUP = "harness.adapters"  # the entry-point group of adapter kinds (install metadata, not a module)
DISTRIBUTION = OWN_DISTRIBUTION  # this project's distribution: its own entry points are built-in kinds
TARGETS_FILE = "targets.toml"
PRESETS_PATH = Path(__file__).with_name("presets.toml")

#: adapter kind -> Adapter subclass ("module:Class", imported only when a target of that kind is created).
#: The built-ins are entry points of the harness's own pyproject.toml (openai = "harness.adapters.
#: openai_chat:OpenAIChatAdapter", and the white-box layer's hf-calibrated, which this layer never names),
#: exactly as another package registers its own; a plugin cannot shadow a built-in name.
ADAPTERS: Registry[type[Adapter]] = Registry("adapter kind", ENTRY_POINT_GROUP, built_in=True)

#: Keys of a [targets.NAME] table that configure the harness rather than the adapter.
_RESERVED = {"adapter", "description", "model_label", "api_key_env", "secret_env", "price", "concurrency", "rpm",
             "timeout_s", "settings", "group", "model_example"}

#: Settings an adapter kind cannot ask anything without, and that a preset leaves to the user (a provider's
#: models come and go; an Azure endpoint and deployment are the user's own). Checked before any key is read.
REQUIRED_SETTINGS: dict[str, tuple[str, ...]] = {
    "openai": ("model",),
    "anthropic": ("model",),
    "azure-openai": ("endpoint", "deployment"),
}

#: How `harness targets` groups targets, in this order; a targets.toml target without `group` is "yours".
GROUPS = ("local", "self-hosted", "China", "international", "pipeline", "yours")

#: Settings that must be text: a number here (base_url = 5) would otherwise fail once per probe, deep in the
#: HTTP client, instead of once, up front, naming the line to fix.
_TEXT_SETTINGS = ("model", "base_url", "url", "endpoint", "system_prompt", "response_path", "region")


@dataclass(frozen=True)
class TargetConfig:
    """One named target. Holds no secret values, only the names of the variables that hold them."""

    name: str
    adapter: str
    settings: dict[str, Any] = field(default_factory=dict)
    secret_env: dict[str, str] = field(default_factory=dict)  # role (api_key, secret_id...) -> env var
    price: dict[str, float] | None = None  # input_per_1k / output_per_1k, in the provider's currency
    concurrency: int | None = None
    rpm: float | None = None
    timeout_s: float | None = None
    description: str = ""
    source: str = "built-in"  # "built-in" or the targets.toml that last changed it
    model_label: str = ""  # what to show for the model when `model` is a file reference
    group: str = ""  # how `harness targets` groups it (GROUPS)
    model_example: str = ""  # a model name to suggest when `model` is not set

    @property
    def display_model(self) -> str:
        if self.model_label:
            return self.model_label
        if self.model.startswith("package:"):
            return self.model.rsplit("/", 1)[-1]
        return self.model

    @property
    def model(self) -> str:
        return str(self.settings.get("model", ""))

    @property
    def endpoint(self) -> str:
        return str(self.settings.get("base_url") or self.settings.get("endpoint") or self.settings.get("url")
                   or "")

    def missing_secrets(self) -> list[str]:
        """Names of the secret variables that are not set (or empty) in the environment."""
        return [var for var in self.secret_env.values() if not os.environ.get(var)]

    def missing_settings(self) -> list[str]:
        """Settings this target's adapter kind needs that are not set (REQUIRED_SETTINGS)."""
        return [key for key in REQUIRED_SETTINGS.get(self.adapter, ()) if not self.settings.get(key)]


@dataclass(frozen=True)
class AdapterKind:
    """An adapter kind available here and where it comes from (for `harness targets`)."""

    name: str
    source: str  # "built-in" or the distribution name of the plugin
    target: str  # "module:Class"


# --------------------------------------------------------------------------------------------- kinds


def adapter_kinds() -> dict[str, AdapterKind]:
    """Every adapter kind: built-ins first; a plugin cannot shadow a built-in name. The entry points are
    read again on each call, so a package installed while a process runs (harness view) is listed."""
    ADAPTERS.reload_entry_points()
    kinds = {}
    for name in ADAPTERS.names():
        origin = ADAPTERS.origin(name)
        source = "built-in" if origin is None or origin == DISTRIBUTION else origin
        ref = ADAPTERS.lazy_ref(name)
        if ref is None:
            cls = ADAPTERS.get(name)
            ref = f"{getattr(cls, '__module__', '?')}:{getattr(cls, '__qualname__', name)}"
        kinds[name] = AdapterKind(name, source, ref)
    return kinds


def adapter_class(kind: str, *, target: TargetConfig | None = None) -> type[Adapter]:
    """Import the Adapter subclass for `kind`, with a one-sentence error when that is impossible; `target`,
    the target whose kind it is, is named in that sentence with the file that set it."""
    kinds = adapter_kinds()
    info = kinds.get(kind)
    if info is None:
        where = "" if target is None else (f" for target '{target.name}' in "
                                           + (target.source if target.source != "built-in" else "the built-in presets"))
        raise ConfigError(f"Unknown adapter kind '{kind}'{where}; available kinds: {', '.join(sorted(kinds))}.")
    try:
        cls = ADAPTERS.get(kind)
    except ImportError as exc:
        if (exc.name or "").split(".")[0] == "harness":  # the project's own module failed: a bug, never "install"
            raise
        raise HarnessError(f"The '{kind}' adapter could not be imported ({exc}); "
                           f"install its dependencies (from {info.source}).") from None
    except Exception as exc:  # a broken plugin must not crash the harness with a traceback
        raise HarnessError(f"The '{kind}' adapter from {info.source} failed to load: {exc}.") from None
    if not (isinstance(cls, type) and issubclass(cls, Adapter)):
        raise HarnessError(f"The '{kind}' adapter from {info.source} is not an adapters.base.Adapter subclass.")
    return cls


# ------------------------------------------------------------------------------------------- targets


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}.") from None
    except OSError as exc:
        raise ConfigError(f"Cannot read {path}: {exc.strerror}.") from None


def _target_tables(doc: Mapping[str, Any], path: Path) -> dict[str, dict[str, Any]]:
    tables = doc.get("targets", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{path}: 'targets' must be a table of [targets.NAME] sections.")
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: targets.{name} must be a table, e.g. [targets.{name}].")
    return tables


def _merge(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """Key-by-key overlay; nested tables (settings, secret_env, price) merge one level deep."""
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = {**merged[key], **value}
        else:
            merged[key] = value
    return merged


def _number(name: str, key: str, value: Any, source: str, *, integer: bool = False) -> Any:
    if value is None:
        return None
    ok = isinstance(value, int) if integer else isinstance(value, int | float)
    if not ok or isinstance(value, bool) or value <= 0:
        kind = "a positive integer" if integer else "a positive number"
        raise ConfigError(f"{source}: targets.{name}.{key} must be {kind}, not {value!r}.")
    return value


def _build(name: str, table: Mapping[str, Any], source: str) -> TargetConfig:
    adapter = table.get("adapter")
    if not isinstance(adapter, str) or not adapter:
        raise ConfigError(f"{source}: targets.{name} needs adapter = \"KIND\" (e.g. openai, tencent, http, hf).")
    settings = {k: v for k, v in table.items() if k not in _RESERVED}
    extra = table.get("settings", {})
    if not isinstance(extra, dict):
        raise ConfigError(f"{source}: targets.{name}.settings must be a table.")
    settings.update(extra)
    for key in _TEXT_SETTINGS:
        if key in settings and not isinstance(settings[key], str):
            raise ConfigError(f"{source}: targets.{name}.{key} must be a quoted string, not {settings[key]!r}.")
    secret_env = table.get("secret_env", {})
    if not isinstance(secret_env, dict) or not all(isinstance(v, str) for v in secret_env.values()):
        raise ConfigError(f"{source}: targets.{name}.secret_env must map roles to variable names, "
                          "e.g. {{ api_key = \"MY_KEY\" }}.")
    secret_env = dict(secret_env)
    if table.get("api_key_env"):
        secret_env["api_key"] = str(table["api_key_env"])
    headers = settings.get("headers")
    if isinstance(headers, dict):  # ${VAR} in a header value is a secret too (http adapter)
        for var in header_env_vars(headers):
            secret_env.setdefault(var, var)
    price = table.get("price")
    if price is not None and (not isinstance(price, dict) or not all(
            isinstance(v, int | float) for v in price.values())):
        raise ConfigError(f"{source}: targets.{name}.price must be {{ input_per_1k = N, output_per_1k = N }}.")
    return TargetConfig(
        name=name,
        adapter=adapter,
        settings=settings,
        secret_env=secret_env,
        price=dict(price) if price else None,
        concurrency=_number(name, "concurrency", table.get("concurrency"), source, integer=True),
        rpm=_number(name, "rpm", table.get("rpm"), source),
        timeout_s=_number(name, "timeout_s", table.get("timeout_s"), source),
        description=str(table.get("description", "")),
        source=source,
        model_label=str(table.get("model_label", "")),
        group=str(table.get("group") or ("yours" if source != "built-in" else "")),
        model_example=str(table.get("model_example", "")),
    )


def target_files(dirs: list[Path] | None = None) -> list[Path]:
    """targets.toml files that exist, lowest priority first (user config, then project)."""
    dirs = config_dirs() if dirs is None else dirs
    files = [d / TARGETS_FILE for d in dirs if (d / TARGETS_FILE).is_file()]
    return list(reversed(files))


def load_targets(dirs: list[Path] | None = None) -> dict[str, TargetConfig]:
    """All targets: presets overlaid by user then project targets.toml (see module docstring)."""
    raw: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for path, label in [(PRESETS_PATH, "built-in")] + [(p, str(p)) for p in target_files(dirs)]:
        for name, table in _target_tables(_read_toml(path), path).items():
            raw[name] = _merge(raw.get(name, {}), table)
            sources[name] = label
    return {name: _build(name, table, sources[name]) for name, table in raw.items()}


def get_target(name: str, dirs: list[Path] | None = None) -> TargetConfig:
    """The named target, ready to be created but for its secrets: an unknown name, or a setting its kind
    needs (a preset's model, REQUIRED_SETTINGS), is one sentence here, so `--dry-run` says it too."""
    targets = load_targets(dirs)
    if name not in targets:
        close = difflib.get_close_matches(name, sorted(targets), n=1, cutoff=0.6)  # a typo: the one meant first
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise ConfigError(f"Unknown target '{name}'; {hint}known targets: {', '.join(sorted(targets))} "
                          f"(add one in {TARGETS_FILE}, see `harness targets`).")
    config = targets[name]
    if config.missing_settings():
        raise ConfigError(setup_sentence(config, secrets=False))
    return config


def setup_sentence(config: TargetConfig, *, secrets: bool = True) -> str:
    """One sentence naming the settings a target still needs (and, with secrets=True, its unset key
    variables too, so a user fixes both at once); "" when no setting is missing.

    e.g. `Target 'deepseek' needs a model: set model = "..." (e.g. "deepseek-chat") under [targets.deepseek]
    in targets.toml.` A target missing only its key gets read_secrets' sentence instead."""
    keys = config.missing_settings()
    if not keys:
        return ""
    variables = config.missing_secrets() if secrets else []
    needed = " and ".join("a model" if key == "model" else f"its {key}" for key in keys)
    example = f' (e.g. "{config.model_example}")' if config.model_example and "model" in keys else ""
    assignments = " and ".join(f'{key} = "..."' for key in keys)
    todo = f"set {assignments}{example} under [targets.{config.name}] in {TARGETS_FILE}"
    if variables:
        names = " and ".join(variables)
        needed += f" and the environment variable{'s' if len(variables) > 1 else ''} {names}"
        todo += f", and set {names}"
    return f"Target '{config.name}' needs {needed}: {todo}."


# --------------------------------------------------------------------------------- path references


def resolve_reference(value: str) -> str:
    """Turn a portable model reference into a local path; other strings pass through unchanged.

    * "package:MODULE/relative/path" - a file inside an installed distribution, found without importing
      it (the SmolLM2 wheel's package imports `llm`, which is not installed);
    * "callable:module:function" - a function returning the path (used for the Qwen model, whose six
      wheel parts are joined and checksummed on first use).
    """
    if value.startswith("package:"):
        module, _, rel = value[len("package:"):].partition("/")
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            from harness.core.local_models import install_hint

            raise HarnessError(f"The model package '{module}' is not installed; install it with "
                               f"{install_hint(module)}.")
        path = Path(list(spec.submodule_search_locations)[0]) / rel
        if not path.exists():
            raise HarnessError(f"{path} is missing; reinstall the package that provides '{module}'.")
        return str(path)
    if value.startswith("callable:"):
        module, _, func = value[len("callable:"):].partition(":")
        try:
            return str(getattr(importlib.import_module(module), func)())
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"Cannot resolve the model reference '{value}': {exc}.") from None
    return value


# ----------------------------------------------------------------------------------------- create


def read_secrets(config: TargetConfig) -> dict[str, str]:
    """Secret values from the environment; a missing one is a one-sentence HarnessError."""
    missing = config.missing_secrets()
    if missing:
        if len(missing) == 1:
            what, pronoun = f"variable {missing[0]}", "it"
        else:
            what, pronoun = f"variables {' and '.join(missing)}", "them"
        raise ConfigError(f"Target '{config.name}' needs the environment {what}; "
                          f"set {pronoun} or pick another target with --target.")
    return {role: os.environ[var] for role, var in config.secret_env.items()}


def create_adapter(name_or_config: str | TargetConfig, **overrides: Any) -> Adapter:
    """Build the adapter for a target; `overrides` replace settings (None values are ignored).

    `timeout_s` is handed to the adapter too (as a setting), because HTTP clients need an explicit
    timeout; adapters exclude it from their fingerprint (harness.adapters.base.TRANSPORT_KEYS).
    """
    config = (_config_for_create(name_or_config) if isinstance(name_or_config, str)
              else name_or_config)
    if config.missing_settings():  # with any missing key in the same sentence, before anything is imported
        raise ConfigError(setup_sentence(config))
    cls = adapter_class(config.adapter, target=config)
    settings = dict(config.settings)
    if config.timeout_s is not None:
        settings.setdefault("timeout_s", config.timeout_s)
    settings.update({k: v for k, v in overrides.items() if v is not None})
    secrets = read_secrets(config)
    if _accepts_secrets(cls):
        adapter = cls(config.name, settings, secrets=secrets)
    elif secrets:
        raise ConfigError(f"Target '{config.name}' names secrets, but the '{config.adapter}' adapter does "
                          "not accept a `secrets` argument; remove secret_env or update the adapter.")
    else:
        adapter = cls(config.name, settings)
    adapter.label = config.display_model
    return adapter


def _config_for_create(name: str) -> TargetConfig:
    """The target by name, for create_adapter, which reports missing settings and keys together."""
    targets = load_targets()
    if name not in targets:
        get_target(name)  # the unknown-target sentence
    return targets[name]


@cache
def _accepts_secrets(cls: type) -> bool:
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "secrets" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
