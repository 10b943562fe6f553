"""Untrusted text on the terminal: shown as the characters it holds, never read as markup or control codes.

Replies, judge verdicts, error reasons from a server, sheet cells, suite and data-file fields, file and run
names all reach the terminal through rich. rich reads a plain `str` as console markup, so a reply holding
`[/INST]` (which Llama-style models leak) raised MarkupError, `[bold red]` restyled the screen and
`REPLY[f3a...]` printed as `REPLY`. `rich.markup.escape` fixes most of that but not all: a value ending in a
backslash comes out with two. So text from outside goes into a `rich.text.Text` (never parsed), through
`untrusted()` for one value or `assemble()` for a line of labelled parts; no command builds markup strings
around such values.

`shown()` also makes the characters that would act on the terminal instead of being seen visible as
escapes: C0/C1 control codes (ESC starts colour and cursor sequences, CR overwrites the line), DEL, the
bidirectional overrides that can reorder what a reader sees, and lone surrogates (from a JSON `\\ud800`),
which a UTF-8 terminal cannot encode (printing one raised UnicodeEncodeError). Newlines and tabs stay.
Everything else, CJK and emoji included, is shown unchanged. The files keep the original text: this is
for the screen only (`no_surrogates` is what files that must be valid UTF-8 use).
"""

from __future__ import annotations

import re
from typing import Any

from rich.text import Text

# C0 controls except \t and \n, DEL, C1 controls, bidi embeddings/overrides/isolates, surrogates.
_HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def shown(value: Any) -> str:
    """`value` as a string fit for a terminal: invisible and terminal-controlling characters as escapes."""
    text = value if isinstance(value, str) else str(value)
    return _HIDDEN.sub(_escape_char, text) if _HIDDEN.search(text) else text


def untrusted(value: Any, style: str = "") -> Text:
    """One value from outside (a reply, a reason, a name from a file) as a Text: printed, never parsed."""
    return Text(shown(value), style=style)


def assemble(*parts: str | tuple[str, str] | Text | Any) -> Text:
    """A line of parts, like `Text.assemble`: plain parts as text, (text, style) pairs styled.

    Every part is passed through `shown()`, labels included, so a caller cannot forget it for the one
    part that came from outside.
    """
    out = Text()
    for part in parts:
        if isinstance(part, Text):
            out.append_text(part)
        elif isinstance(part, tuple):
            out.append(shown(part[0]), style=part[1])
        else:
            out.append(shown(part))
    return out


def no_surrogates(text: str) -> str:
    """Lone surrogates replaced by U+FFFD, so the text can be written as UTF-8 (report.html, verdicts.csv).

    Why they occur at all: JSON may spell a lone surrogate (`"\\ud800"`) and Python decodes it; the
    transcript keeps it (escaped), files meant for people get the replacement character.
    """
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text
