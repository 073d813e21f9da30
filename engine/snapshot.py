"""A read-only picture of the world at one instant: what renderers and observers need.

The simulation builds it (`Simulation.snapshot()`); the renderer only reads it, so rendering
never depends on simulation internals.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Terrain codes used in `Snapshot.terrain` (and in the engine's terrain grid).
GROUND, WATER, CLIFF, BRIDGE = 0, 1, 2, 3

# Team ids 0..15 are the level's sides; ENVIRONMENT owns hazards rules create. It is hostile to every
# side and every side to it, but it is no competitor: it never wins, loses or counts for an ending.
ENVIRONMENT = 16

# Category codes used in `Snapshot.category`, in this order.
CATEGORIES = ("commander", "bot", "vehicle", "air", "defense", "economy", "factory")


@dataclass(frozen=True)
class Marker:
    x: float
    y: float
    label: str
    color: str = "#ffd700"


@dataclass(frozen=True)
class Shape:
    """An area a rule drew: a circle (half_w == half_h == radius) or an axis-aligned rectangle."""
    id: int
    kind: str                        # "circle" | "rect"
    x: float                         # centre, tiles
    y: float
    half_w: float
    half_h: float
    label: str = ""
    color: str = "#ffd700"

    def contains(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Mask over the points (x, y): which lie inside (the border counts as inside)."""
        dx, dy = x - self.x, y - self.y
        if self.kind == "circle":
            return dx * dx + dy * dy <= self.half_w * self.half_w
        return (np.abs(dx) <= self.half_w) & (np.abs(dy) <= self.half_h)


@dataclass(frozen=True)
class Snapshot:
    time: float                      # game seconds
    terrain: np.ndarray              # (H, W) uint8 terrain codes
    deposits: np.ndarray             # (D, 2) float x, y of metal deposits
    # one entry per living unit, all arrays of equal length N
    ids: np.ndarray                  # (N,) int
    x: np.ndarray                    # (N,) float tiles
    y: np.ndarray                    # (N,) float tiles
    team: np.ndarray                 # (N,) int
    category: np.ndarray             # (N,) int index into CATEGORIES
    hp_frac: np.ndarray              # (N,) float in [0, 1]
    size: np.ndarray                 # (N,) float radius in tiles
    under_construction: np.ndarray   # (N,) bool
    team_colors: dict[int, str]      # team id -> "#rrggbb"
    markers: tuple[Marker, ...] = ()
    shapes: tuple[Shape, ...] = ()   # rules' areas as they are at `time`
    visible: dict[int, np.ndarray] = field(default_factory=dict)  # team -> (H, W) bool, when fog is on
    hidden: dict[int, np.ndarray] = field(default_factory=dict)   # team -> (N,) bool: cloaked, undetected by it
    title: str = ""

    @property
    def width(self) -> int:
        return int(self.terrain.shape[1])

    @property
    def height(self) -> int:
        return int(self.terrain.shape[0])
