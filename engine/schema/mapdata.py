"""Map schema: a terrain grid with passability and metal deposits.

`rows` is a list of strings, one per row (y), one character per tile (x):
  `.` ground   `~` water (impassable to ground, passable to air)   `#` cliff (impassable to ground)
  `=` bridge (ground, drawn differently)   `M` ground with a metal deposit
Deposits may also be listed explicitly in `deposits`.
"""
from __future__ import annotations

from pydantic import Field, model_validator

from engine.schema.base import Strict

TERRAIN_CHARS = ".~#=M"


class Deposit(Strict):
    x: int
    y: int
    richness: float = Field(1.0, gt=0)


class SpawnPoint(Strict):
    name: str
    x: float
    y: float


class MapData(Strict):
    name: str
    description: str = ""
    width: int = Field(ge=16, le=512)
    height: int = Field(ge=16, le=512)
    rows: list[str]
    deposits: list[Deposit] = Field(default_factory=list)
    spawns: list[SpawnPoint] = Field(default_factory=list, description="named anchor points levels may refer to")

    @model_validator(mode="after")
    def _grid_matches_size(self) -> MapData:
        if len(self.rows) != self.height:
            raise ValueError(f"rows: {len(self.rows)} rows but height is {self.height}")
        for y, row in enumerate(self.rows):
            if len(row) != self.width:
                raise ValueError(f"rows.{y}: {len(row)} tiles but width is {self.width}")
            bad = set(row) - set(TERRAIN_CHARS)
            if bad:
                raise ValueError(f"rows.{y}: unknown terrain characters {sorted(bad)}")
        for i, d in enumerate(self.deposits):
            if not (0 <= d.x < self.width and 0 <= d.y < self.height):
                raise ValueError(f"deposits.{i}: ({d.x}, {d.y}) is off the {self.width}x{self.height} map")
        return self
