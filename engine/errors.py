"""Errors the engine raises for bad input. Each message names its cause and where it is."""
from __future__ import annotations

from pydantic import ValidationError


class EngineError(Exception):
    """Base of every error the engine raises on purpose."""


class LevelError(EngineError):
    """A level (or a file it refers to) is malformed or inconsistent."""


class RuleScriptError(EngineError):
    """A rule script failed: it names the script, the line (when known) and the message."""

    def __init__(self, script: str, message: str, line: int | None = None):
        self.script = script
        self.line = line
        self.message = message
        where = f"{script}:{line}" if line is not None else script
        super().__init__(f"rule script {where}: {message}")


def format_validation_error(err: ValidationError, source: str) -> str:
    """One line per problem, each naming the dotted path of the offending field."""
    lines = [f"{source}: {err.error_count()} problem(s)"]
    for e in err.errors():
        path = ".".join(str(p) for p in e["loc"]) or "(top level)"
        lines.append(f"  {path}: {e['msg']}")
    return "\n".join(lines)
