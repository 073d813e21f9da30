"""Pydantic models for everything the engine reads from data files.

All models are strict about their shape: an unknown field is an error, and pydantic's error
locations name the offending path (see `engine.errors.format_validation_error`).
"""
from engine.schema.catalog import Catalog, UnitType, Weapon
from engine.schema.level import (
    Condition,
    Controller,
    LevelConfig,
    MapRef,
    RuleRef,
    StartUnit,
    Switches,
    Team,
)
from engine.schema.mapdata import MapData

__all__ = [
    "Catalog",
    "Condition",
    "Controller",
    "LevelConfig",
    "MapData",
    "MapRef",
    "RuleRef",
    "StartUnit",
    "Switches",
    "Team",
    "UnitType",
    "Weapon",
]
