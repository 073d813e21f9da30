"""The area shapes rules create, move, resize and remove (circles and rectangles with a label).

Ids count up from 1 and are never reused. Frames and replays read `shapes()`, a tuple rebuilt only
when a rule changes an area, so a game without areas pays nothing for them.
"""
from __future__ import annotations

import dataclasses

from engine.snapshot import Shape


class AreaShapes:
    def __init__(self) -> None:
        self._live: dict[int, Shape] = {}
        self._next = 1
        self._tuple: tuple[Shape, ...] = ()

    def __len__(self) -> int:
        return len(self._live)

    def add(self, kind: str, x: float, y: float, half_w: float, half_h: float, label: str, color: str) -> int:
        sid = self._next
        self._next += 1
        self._live[sid] = Shape(sid, kind, x, y, half_w, half_h, label, color)
        self._changed()
        return sid

    def get(self, sid: int) -> Shape:
        shape = self._live.get(sid)
        if shape is None:
            state = "was removed" if 0 < sid < self._next else "does not exist"
            raise ValueError(f"area {sid} {state}")
        return shape

    def update(self, sid: int, **fields: float) -> Shape:
        shape = self._live[sid] = dataclasses.replace(self.get(sid), **fields)
        self._changed()
        return shape

    def remove(self, sid: int) -> None:
        self.get(sid)
        del self._live[sid]
        self._changed()

    def shapes(self) -> tuple[Shape, ...]:
        return self._tuple

    def _changed(self) -> None:
        self._tuple = tuple(self._live[k] for k in sorted(self._live))
