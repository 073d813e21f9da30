"""Reading untrusted files (levels, maps, rule scripts) with bounded size, nesting and encoding.

Every failure is a LevelError with a one-line message that names the file and the problem and
quotes none of the file's content.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from engine.errors import LevelError

MAX_DEPTH = 64          # nesting of arrays/objects a level or map may use


def read_text(path: Path, what: str, max_bytes: int) -> str:
    """The UTF-8 text of a regular file no larger than `max_bytes`."""
    try:
        if not path.is_file():
            raise LevelError(f"{what} not found: {path}" if not path.exists() else f"{path}: {what} is not a file")
        with path.open("rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as err:
        raise LevelError(f"{path}: cannot read {what} ({err.strerror or type(err).__name__})") from None
    if len(data) > max_bytes:
        raise LevelError(f"{path}: {what} larger than {max_bytes} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise LevelError(f"{path}: {what} is not UTF-8 text (bad byte at offset {err.start})") from None


def read_json(path: Path, what: str, max_bytes: int) -> Any:
    """A JSON document from a file: bounded size and nesting, no NaN/Infinity."""
    text = read_text(path, what, max_bytes)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise LevelError(f"{path}:{err.lineno}:{err.colno}: invalid JSON: {err.msg}") from None
    except ValueError as err:
        raise LevelError(f"{path}: invalid JSON: {err}") from None
    except RecursionError:
        raise LevelError(f"{path}: invalid {what}: nested deeper than {MAX_DEPTH} levels") from None
    check_depth(data, f"{path}: invalid {what}")
    return data


def check_depth(data: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """LevelError when lists/dicts nest deeper than `limit` (checked without recursion) or a number
    is NaN or infinite (a parsed YAML or dict level can hold them)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = value.values()
        elif isinstance(value, (list, tuple)):
            children = value
        else:
            if isinstance(value, float) and not math.isfinite(value):
                raise LevelError(f"{where}: {value} is not a finite number")
            continue
        if depth > limit:
            raise LevelError(f"{where}: nested deeper than {limit} levels")
        stack.extend((child, depth + 1) for child in children)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
