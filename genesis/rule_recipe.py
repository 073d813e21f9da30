"""A rule as typed triggers and actions: what the offline developer composes Lua from when no
library rule covers a component. Each step fires its actions when its trigger does."""
from __future__ import annotations

from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


Place = Union[str, tuple[float, float]]
PLACE = Field(description="a spawn point name of the level's map (e.g. 'west') or [x, y] in tiles")
TEAM = Field(description="team id (0 is the player)")
TAG = Field(None, description="only units with this tag")
UNIT_TYPE = Field(None, description="only units of this type from the roster")


class AtTimes(_Strict):
    on: Literal["time"] = Field("time", description="fires once at each of the given game seconds")
    at: list[float] = Field(min_length=1, max_length=64, description="game seconds, one firing each")


class Every(_Strict):
    on: Literal["period"] = Field("period", description="fires at a fixed interval")
    every: float = Field(gt=0, description="seconds between firings")
    first_at: float = Field(ge=0, description="game second of the first firing")
    count: int | None = Field(None, ge=1, le=256, description="firings at most (null: until the game ends)")


class AreaEntered(_Strict):
    on: Literal["area_entered"] = Field("area_entered", description="fires when a unit first enters a circle")
    x: float = Field(description="circle centre x (tiles)")
    y: float = Field(description="circle centre y (tiles)")
    radius: float = Field(gt=0, description="circle radius (tiles)")
    team: int | None = Field(None, description="only units of this team trigger it")


class UnitDestroyed(_Strict):
    on: Literal["unit_destroyed"] = Field("unit_destroyed", description="fires when a matching unit dies")
    team: int | None = Field(None, description="owner of the destroyed unit")
    type: str | None = UNIT_TYPE
    tag: str | None = TAG


class CountCrosses(_Strict):
    on: Literal["count_below", "count_above"] = Field(description="fires once the living matching units fall "
                                                                  "below / rise above `threshold`")
    team: int = TEAM
    type: str | None = UNIT_TYPE
    tag: str | None = TAG
    threshold: int = Field(ge=0, description="the unit count to cross")


class ResourceAbove(_Strict):
    on: Literal["resource_above"] = Field("resource_above", description="fires once a team's stock reaches "
                                                                        "`amount`")
    team: int = TEAM
    resource: Literal["metal", "energy"] = Field(description="which stock")
    amount: float = Field(ge=0, description="the stock to reach")


Trigger = Annotated[Union[AtTimes, Every, AreaEntered, UnitDestroyed, CountCrosses, ResourceAbove],
                    Field(discriminator="on")]


class SpawnGroup(_Strict):
    do: Literal["spawn"] = Field("spawn", description="creates a group of units")
    team: int = TEAM
    units: dict[str, int] = Field(min_length=1, description="unit type from the roster -> count")
    at: Place = PLACE
    growth: float = Field(1.0, gt=0, description="each later firing spawns this many times the previous group")
    tag: str | None = Field(None, description="tag given to the spawned units")


class AttackTarget(_Strict):
    do: Literal["attack"] = Field("attack", description="orders an attack-move on a target")
    team: int = Field(description="the attacking team: the group this step spawned, else all its mobile units")
    target_team: int = Field(description="owner of the target")
    target_type: str | None = Field(None, description="unit type (e.g. a building class) to go for")
    target_tag: str | None = Field(None, description="tag of the units to go for")


class Reinforce(_Strict):
    do: Literal["reinforce"] = Field("reinforce", description="gives a team extra units")
    team: int = TEAM
    units: dict[str, int] = Field(min_length=1, description="unit type from the roster -> count")
    at: Place = PLACE


class EndGame(_Strict):
    do: Literal["win", "lose"] = Field(description="ends the game for `team` with win() or lose()")
    team: int = TEAM
    reason: str = Field(max_length=200, description="the end reason written to the trace")


class Announce(_Strict):
    do: Literal["message", "mark"] = Field(description="message: text to a team; mark: a labelled map marker")
    text: str = Field(max_length=200, description="the message or the marker's label")
    team: int | None = Field(None, description="the team told (null: everyone)")
    at: Place | None = Field(None, description="where a mark goes: " + PLACE.description)


Action = Annotated[Union[SpawnGroup, AttackTarget, Reinforce, EndGame, Announce], Field(discriminator="do")]


class Step(_Strict):
    when: Trigger = Field(description="what makes the step fire")
    then: list[Action] = Field(min_length=1, max_length=16, description="what happens, in order, each time it fires")


class RuleRecipe(_Strict):
    steps: list[Step] = Field(min_length=1, max_length=16, description="independent steps of the rule")
