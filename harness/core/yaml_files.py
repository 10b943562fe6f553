"""Read a user's YAML file (a suite, a fairness gate file) with one-sentence errors.

Why one helper: users write these files by hand, and an unreadable file or a YAML typo must read the same
everywhere: which file, which line and column, what is wrong; never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from harness.core.errors import ConfigError

#: the safe loader in C (libyaml) when PyYAML was built with it, else the Python one: the same documents
FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml_file(path: Path, what: str) -> Any:
    """Parse `path`; `what` names the kind of file in the message, e.g. "Suite file"."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"Cannot read {what.lower()} {path}: {exc.strerror or exc}.") from None
    except UnicodeDecodeError as exc:  # e.g. saved as UTF-16 or GBK by an editor
        raise ConfigError(f"{what} {path} is not UTF-8 text (bad byte at position {exc.start}); save it "
                          "as UTF-8.") from None
    try:  # libyaml's parser when PyYAML has it: `harness suites` reads every suite file (issue 38: 16% of it)
        return yaml.load(text, Loader=FAST_LOADER)  # noqa: S506 - a safe loader, C or Python
    except yaml.YAMLError:
        pass
    try:  # the Python parser says where the mistake is (its marks and context, which _where reads)
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML{_where(exc)}.") from None


def _where(exc: yaml.YAMLError) -> str:
    """Where the mistake is and what it is. A quote never closed is found at the end of the file (line 7), but
    the mistake is where the quote opened (line 3): the line PyYAML was scanning from (its context) comes
    first, the line it stopped at after it."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if start is not None and context and (mark is None or start.line != mark.line):
        what = str(context).removeprefix("while ").replace("scanning a quoted scalar", "a quoted string")
        what = what.replace("scanning ", "").replace("parsing ", "")
        found = f" (found at line {mark.line + 1}: {problem})" if mark is not None else f" ({problem})"
        said = f"{what} that starts there is not closed" if ("quoted" in what or "flow" in what) else (
            f"in {what} that starts there")
        return f" at line {start.line + 1}, column {start.column + 1}: {said}{found}"
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
    return f"{where}: {problem}"
