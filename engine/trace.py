"""The run trace: a list of JSON events and its canonical hash.

Each event is a flat JSON object {"t": seconds, "event": kind, ...}. Floats are rounded (time to
1/1000 s, positions to 1/100 tile) before they enter the trace, so the canonical JSON lines — and
the sha256 over them — are identical for identical runs on any platform.
"""
from __future__ import annotations

import hashlib
import math
import json
from pathlib import Path
from typing import Any


def _clean(value: Any) -> Any:
    """Plain JSON types only (numpy scalars -> Python), floats rounded to 4 decimals."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return value
    if hasattr(value, "item"):
        return _clean(value.item())
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else str(value)
    return str(value)


class Trace:
    def __init__(self) -> None:
        self.events: list[dict] = []

    def add(self, t: float, event: str, **fields: Any) -> dict:
        for key in ("x", "y"):
            if isinstance(fields.get(key), (int, float)) and not isinstance(fields.get(key), bool):
                fields[key] = round(float(fields[key]), 2)
        ev = {"t": round(float(t), 3), "event": event, **_clean(fields)}
        self.events.append(ev)
        return ev

    def lines(self) -> list[str]:
        return [canonical(e) for e in self.events]

    def hash(self) -> str:
        h = hashlib.sha256()
        for line in self.lines():
            h.update(line.encode("utf-8"))
            h.update(b"\n")
        return h.hexdigest()

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(line + "\n" for line in self.lines()), encoding="utf-8")
        return path


def canonical(event: dict) -> str:
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
