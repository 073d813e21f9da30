"""Errors the engine raises for bad input. Each message names its cause and where it is."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError

MAX_MESSAGE_CHARS = 500     # longest message text an error carries (a script may raise megabytes)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def clean_text(text: object, limit: int = MAX_MESSAGE_CHARS) -> str:
    """`text` as one printable line: control characters escaped (\\n, \\x1b), at most `limit` chars."""
    out = _CONTROL.sub(_escape, str(text))
    if len(out) > limit:
        out = out[:limit] + f"... ({len(out) - limit} more characters)"
    return out


def _escape(m: re.Match) -> str:
    ch = m.group()
    return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}.get(ch) or f"\\x{ord(ch):02x}"


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class LevelError(EngineError):
    """A level (or a file it refers to) is malformed or inconsistent."""


class RuleScriptError(EngineError):
    """A rule script failed: it names the script, the line (when known) and the message."""

    def __init__(self, script: str, message: str, line: int | None = None):
        self.script = clean_text(script, 120)
        self.line = line
        self.message = clean_text(message)
        where = f"{self.script}:{line}" if line is not None else self.script
        super().__init__(f"rule script {where}: {self.message}")


MAX_PROBLEMS = 20      # problems a validation error lists (a large broken file has thousands)


def format_validation_error(err: ValidationError, source: str) -> str:
    """One line per problem (the first MAX_PROBLEMS), each naming the dotted path of the offending field."""
    errors = err.errors()
    lines = [f"{source}: {len(errors)} problem(s)"]
    for e in errors[:MAX_PROBLEMS]:
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        lines.append(f"  {path}: {e['msg']}")
    if len(errors) > MAX_PROBLEMS:
        lines.append(f"  ... and {len(errors) - MAX_PROBLEMS} more")
    return "\n".join(lines)
