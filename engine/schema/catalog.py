"""Unit catalog schema: every unit and building type the engine knows, forming a tech tree."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from engine.schema.base import Strict

Category = Literal["commander", "bot", "vehicle", "air", "defense", "economy", "factory"]


class Weapon(Strict):
    range: float = Field(gt=0, description="tiles")
    damage: float = Field(gt=0, description="hp per shot")
    reload: float = Field(gt=0, description="seconds between shots")
    hits_ground: bool = True
    hits_air: bool = False
    splash: float = Field(0.0, ge=0, description="radius in tiles; 0 = single target")
    min_range: float = Field(0.0, ge=0)


class UnitType(Strict):
    name: str = Field(description="display name")
    category: Category
    tier: Literal[1, 2] = 1
    cost_metal: float = Field(ge=0)
    cost_energy: float = Field(ge=0)
    build_time: float = Field(gt=0, description="seconds at 1x build power")
    hp: float = Field(gt=0)
    speed: float = Field(ge=0, description="tiles per second; 0 = immobile building")
    sight: float = Field(gt=0, description="tiles")
    size: float = Field(0.5, gt=0, description="radius in tiles, used for separation and footprint")
    armor: float = Field(0.0, ge=0, le=0.9, description="fraction of damage ignored")
    weapon: Weapon | None = None
    builds: list[str] = Field(default_factory=list, description="unit types this one can build or produce")
    build_power: float = Field(0.0, ge=0, description="build points per second")
    metal_income: float = Field(0.0, ge=0, description="metal per second (extractors only when on a deposit)")
    energy_income: float = Field(0.0, ge=0, description="energy per second")
    storage_metal: float = Field(0.0, ge=0)
    storage_energy: float = Field(0.0, ge=0)
    needs_deposit: bool = False
    description: str = ""

    @property
    def is_building(self) -> bool:
        return self.speed == 0

    @property
    def is_air(self) -> bool:
        return self.category == "air"


class Catalog(Strict):
    units: dict[str, UnitType]

    @model_validator(mode="after")
    def _build_options_exist(self) -> Catalog:
        for key, unit in self.units.items():
            for option in unit.builds:
                if option not in self.units:
                    raise ValueError(f"units.{key}.builds: unknown unit type {option!r}")
        return self
