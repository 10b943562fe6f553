"""Read a user's YAML file (a suite, a fairness gate file) with one-sentence errors.

Why one helper: users write these files by hand, and an unreadable file or a YAML typo must read the same
everywhere: which file, which line and column, what is wrong; never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.core.errors import ConfigError


def read_yaml_file(path: Path, what: str) -> Any:
    """Parse `path`; `what` names the kind of file in the message, e.g. "Suite file"."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read {what.lower()} {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:  # e.g. saved as UTF-16 or GBK by an editor
        raise ConfigError(f"{what} {path} is not UTF-8 text (bad byte at position {exc.start}); save it "
                          "as UTF-8.") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{what} {path} is not valid YAML{where}: {problem}.") from None
