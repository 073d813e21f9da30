"""A rule as typed triggers and actions: what the offline developer composes Lua from when no
library rule covers a component. Each step fires its actions when its trigger does."""
from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints, model_validator

from engine.catalog import load_catalog
from engine.rules.limits import MAX_HP_CHANGE, MAX_SPAWN_PER_CALL

# Bounds on every value a recipe carries: a recipe is model output, so nothing in it is trusted.
MAX_SECONDS = 7_200.0        # times and intervals: the longest game a level may last
MAX_TILES = 4_096.0          # coordinates and radii
MAX_TEAM = 15
MAX_THRESHOLD = 2_000
MAX_AMOUNT = 1e6


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _known_type(name: str) -> str:
    roster = load_catalog().units
    if name not in roster:
        raise ValueError(f"unknown unit type {name!r} (the roster has: {', '.join(sorted(roster))})")
    return name


Name = Annotated[str, StringConstraints(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_.-]+$")]
UnitType = Annotated[Name, AfterValidator(_known_type)]
Count = Annotated[int, Field(ge=1, le=MAX_SPAWN_PER_CALL)]
Seconds = Annotated[float, Field(ge=0, le=MAX_SECONDS)]
Tiles = Annotated[float, Field(ge=0, le=MAX_TILES)]
TeamId = Annotated[int, Field(ge=0, le=MAX_TEAM)]
Place = Union[Name, tuple[Tiles, Tiles]]
PLACE = Field(description="a spawn point name of the level's map (e.g. 'west') or [x, y] in tiles")
TEAM = Field(description="team id (0 is the player)")
TAG = Field(None, description="only units with this tag")
UNIT_TYPE = Field(None, description="only units of this type from the roster")
Units = Annotated[dict[UnitType, Count], Field(min_length=1, max_length=8)]
MAX_PLACES = 16


def _as_places(value: Any) -> Any:
    """One place or a list of them -> a list: a name or an [x, y] pair is one place."""
    if isinstance(value, str) or (isinstance(value, (list, tuple)) and len(value) == 2
                                  and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        return [value]
    return value


Places = Annotated[list[Place], BeforeValidator(_as_places), Field(min_length=1, max_length=MAX_PLACES)]
PICKS = {"cycle": "firing k comes from place k (wrapping round): per-front timed waves",
         "random": "each firing draws its place with the engine's seeded random (the same every replay of a seed)",
         "random_no_repeat": "like random, but never the place of the previous firing (needs 2 places or more)"}


class AtTimes(_Strict):
    on: Literal["time"] = Field("time", description="fires once at each of the given game seconds")
    at: list[Seconds] = Field(min_length=1, max_length=64, description="game seconds, one firing each")
    jitter: Seconds | None = Field(None, description="each firing comes up to this many seconds late, drawn with "
                                                     "the engine's seeded random (null: exactly on time)")


class Every(_Strict):
    on: Literal["period"] = Field("period", description="fires at a fixed interval")
    every: float = Field(ge=1, le=MAX_SECONDS, description="seconds between firings")
    first_at: Seconds = Field(description="game second of the first firing")
    count: int | None = Field(None, ge=1, le=256, description="firings at most (null: until the game ends)")
    jitter: Seconds | None = Field(None, description="each firing comes up to this many seconds after its slot on "
                                                     "the interval grid, drawn with the engine's seeded random "
                                                     "(null: exactly on the grid)")


class AreaEntered(_Strict):
    on: Literal["area_entered"] = Field("area_entered", description="fires once, when the first matching unit "
                                                                    "is inside a circle")
    x: Tiles = Field(description="circle centre x (tiles)")
    y: Tiles = Field(description="circle centre y (tiles)")
    radius: float = Field(gt=0, le=MAX_TILES, description="circle radius (tiles)")
    team: TeamId | None = Field(None, description="only units of this team trigger it")


class UnitDestroyed(_Strict):
    on: Literal["unit_destroyed"] = Field("unit_destroyed", description="fires when a matching unit dies")
    team: TeamId | None = Field(None, description="owner of the destroyed unit")
    type: UnitType | None = UNIT_TYPE
    tag: Name | None = TAG


class CountCrosses(_Strict):
    on: Literal["count_below", "count_above"] = Field(description="fires once the living matching units fall "
                                                                  "below / rise above `threshold`")
    team: TeamId = TEAM
    type: UnitType | None = UNIT_TYPE
    tag: Name | None = TAG
    threshold: int = Field(ge=0, le=MAX_THRESHOLD, description="the unit count to cross")

    @model_validator(mode="after")
    def _can_fire(self) -> CountCrosses:
        if self.on == "count_below" and self.threshold < 1:
            raise ValueError("count_below needs threshold >= 1: a unit count never falls below 0")
        return self


class ResourceAbove(_Strict):
    on: Literal["resource_above"] = Field("resource_above", description="fires once a team's stock reaches "
                                                                        "`amount`")
    team: TeamId = TEAM
    resource: Literal["metal", "energy"] = Field(description="which stock")
    amount: float = Field(gt=0, le=MAX_AMOUNT, description="the stock to reach")


Trigger = Annotated[Union[AtTimes, Every, AreaEntered, UnitDestroyed, CountCrosses, ResourceAbove],
                    Field(discriminator="on")]


class SpawnGroup(_Strict):
    do: Literal["spawn"] = Field("spawn", description="creates a group of units")
    team: TeamId = TEAM
    units: Units = Field(description="unit type from the roster -> count (1..200)")
    at: Places = Field(description="where the group appears: one place or a list of places (1..16), each "
                                   + PLACE.description + "; `pick` chooses among them per firing")
    pick: Literal["cycle", "random", "random_no_repeat"] = Field(
        "cycle", description="which place a firing uses: " + "; ".join(f"{k}: {v}" for k, v in PICKS.items()))
    growth: float = Field(1.0, gt=0, le=10, description="each later firing spawns this many times the previous "
                                                        "group (counts rounded, at most 200 a type)")
    tag: Name | None = Field(None, description="tag given to the spawned units")

    @model_validator(mode="after")
    def _can_draw(self) -> SpawnGroup:
        if self.pick != "cycle" and len(self.at) < 2:
            raise ValueError(f"pick {self.pick!r} needs at least 2 places to draw from (got {len(self.at)})")
        return self


class AttackTarget(_Strict):
    do: Literal["attack"] = Field("attack", description="orders an attack-move on a target")
    team: TeamId = Field(description="the attacking team: the group this step spawned, else all its mobile units")
    target_team: TeamId = Field(description="owner of the target")
    target_type: UnitType | None = Field(None, description="unit type (e.g. a building class) to go for")
    target_tag: Name | None = Field(None, description="tag of the units to go for")
    withdraw: bool = Field(False, description="a raid: once the unit it went for is destroyed, the group returns "
                                              "to where it was sent from instead of going for the next one")


class Reinforce(_Strict):
    do: Literal["reinforce"] = Field("reinforce", description="gives a team extra units")
    team: TeamId = TEAM
    units: Units = Field(description="unit type from the roster -> count (1..200)")
    at: Place = PLACE


class EndGame(_Strict):
    do: Literal["win", "lose"] = Field(description="ends the game for `team` with win() or lose()")
    team: TeamId = TEAM
    reason: str = Field(min_length=1, max_length=200, description="the end reason written to the trace")


class Announce(_Strict):
    do: Literal["message", "mark"] = Field(description="message: text to a team; mark: a labelled map marker")
    text: str = Field(min_length=1, max_length=200, description="the message or the marker's label")
    team: TeamId | None = Field(None, description="the team told (null: everyone)")
    at: Place | None = Field(None, description="where a mark goes: " + PLACE.description)


class TakeResources(_Strict):
    do: Literal["take"] = Field("take", description="takes resources from a team (a theft, a drain): at most what "
                                                   "it has, each firing")
    team: TeamId = Field(description="the team robbed")
    metal: float = Field(0.0, ge=0, le=MAX_AMOUNT, description="metal taken per firing")
    energy: float = Field(0.0, ge=0, le=MAX_AMOUNT, description="energy taken per firing")
    to_team: TeamId | None = Field(None, description="the team that receives what was taken (null: it is lost)")

    @model_validator(mode="after")
    def _takes_something(self) -> TakeResources:
        if self.metal <= 0 and self.energy <= 0:
            raise ValueError("take needs metal or energy above 0")
        if self.to_team == self.team:
            raise ValueError("take: to_team must differ from the team robbed")
        return self


class ShrinkingZone(_Strict):
    do: Literal["zone"] = Field("zone", description="a safe zone: a circle drawn on the map that shrinks each "
                                                    "firing; every unit outside it loses hp each firing")
    at: Place = Field(description="the zone's centre: " + PLACE.description)
    radius: float = Field(gt=0, le=MAX_TILES, description="the zone's radius (tiles) at the first firing")
    shrink: float = Field(0.0, ge=0, le=MAX_TILES, description="tiles the radius loses at each later firing")
    min_radius: float = Field(0.0, ge=0, le=MAX_TILES, description="the radius never shrinks below this")
    damage: float = Field(gt=0, le=MAX_HP_CHANGE, description="hp every unit outside the zone loses per firing")
    team: TeamId | None = Field(None, description="only this team's units are hurt (null: every side's)")
    label: str = Field("safe zone", min_length=1, max_length=60, description="the zone's label on the map")


Action = Annotated[Union[SpawnGroup, AttackTarget, Reinforce, EndGame, Announce, TakeResources, ShrinkingZone],
                   Field(discriminator="do")]


class Step(_Strict):
    when: Trigger = Field(description="what makes the step fire")
    then: list[Action] = Field(min_length=1, max_length=16, description="what happens, in order, each time it fires")


class RuleRecipe(_Strict):
    steps: list[Step] = Field(min_length=1, max_length=16, description="independent steps of the rule")

    def shape(self) -> str:
        """The recipe's structure without its values, e.g. `time>spawn+attack | unit_destroyed>win`:
        recipes of one shape compose into the same Lua and differ only in params."""
        return " | ".join(f"{s.when.on}>" + "+".join(a.do for a in s.then) for s in self.steps)

    def signature(self) -> str:
        """A stable keyword for the shape and the fields its parts have (a composed rule's params), stored
        in a composed rule's concepts so the KB finds it again; a rule composed before a kind gained a
        field has another signature, so it is never reused with a param it does not declare."""
        fields = [",".join(sorted(type(p).model_fields)) for s in self.steps for p in (s.when, *s.then)]
        return "recipe-" + hashlib.sha256("|".join([self.shape(), *fields]).encode()).hexdigest()[:16]


# ---- a recipe's values as the params of the rule composed from it ----------------------------------
def part_prefix(step: int, action: int | None = None) -> str:
    return f"s{step}_" if action is None else f"s{step}_a{action}_"


def recipe_parts(recipe: RuleRecipe) -> list[tuple[str, BaseModel, str]]:
    """(param prefix, model, discriminator field) of every trigger and action, in order."""
    out: list[tuple[str, BaseModel, str]] = []
    for i, step in enumerate(recipe.steps, 1):
        out.append((part_prefix(i), step.when, "on"))
        out += [(part_prefix(i, j), a, "do") for j, a in enumerate(step.then, 1)]
    return out


def _plain(value: Any) -> Any:
    return [_plain(v) for v in value] if isinstance(value, (tuple, list)) else value


def recipe_params(recipe: RuleRecipe) -> dict[str, Any]:
    """The params a level passes to the composed rule: every value of the recipe (nulls left out)."""
    return {prefix + name: _plain(value)
            for prefix, part, kind in recipe_parts(recipe)
            for name, value in part.model_dump(exclude={kind}).items() if value is not None}
