"""Checks of files handed to the CLI before any work starts: a malformed one is bad input (exit 2)."""
from __future__ import annotations

import json
from pathlib import Path

MAX_TRANSCRIPT_BYTES = 1 << 30      # a replayed transcript (a real run's is a few MiB)
REPLAY_KEYS = ("role", "skill", "stage")


class InputFileError(ValueError):
    """A file given on the command line is missing, unreadable or malformed."""


def check_replay_file(path: Path) -> None:
    """A transcript.jsonl `--replay` can serve: UTF-8 lines of JSON objects whose final records
    name their role, skill and stage. Raises InputFileError naming the first problem."""
    path = Path(path)
    try:
        if not path.is_file():
            raise InputFileError(f"--replay: no such transcript file: {path}")
        if path.stat().st_size > MAX_TRANSCRIPT_BYTES:
            raise InputFileError(f"--replay: {path} is larger than {MAX_TRANSCRIPT_BYTES} bytes")
        with path.open("rb") as f:
            for lineno, raw in enumerate(f, 1):
                _check_line(path, lineno, raw)
    except OSError as err:
        raise InputFileError(f"--replay: cannot read {path} ({err.strerror or type(err).__name__})") from None


def _check_line(path: Path, lineno: int, raw: bytes) -> None:
    where = f"--replay: {path}:{lineno}"
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputFileError(f"{where}: not UTF-8 text (bad byte at offset {err.start})") from None
    if not line.strip():
        return
    try:
        record = json.loads(line)
    except json.JSONDecodeError as err:
        raise InputFileError(f"{where}: not a JSON line ({err.msg})") from None
    except RecursionError:
        raise InputFileError(f"{where}: JSON nested too deeply") from None
    if not isinstance(record, dict):
        raise InputFileError(f"{where}: a transcript line must be a JSON object")
    if record.get("final") and not all(isinstance(record.get(k), str) for k in REPLAY_KEYS):
        raise InputFileError(f"{where}: a final record needs string fields {', '.join(REPLAY_KEYS)}")
