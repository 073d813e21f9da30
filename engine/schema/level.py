"""Level config schema (`schema_version` 1): everything needed to run one scenario.

A level file is JSON. Paths inside it (rule scripts, map files) are relative to the level file's
folder, so a generated scenario folder is self-contained and runnable with `python -m engine run`.
Coordinates are in tiles (floats); (0, 0) is the top-left corner, x grows right, y grows down.
Time is in game seconds (the simulation ticks at 30 Hz).
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Field, model_validator

from engine.schema.base import Strict


# --- map -----------------------------------------------------------------------------------------
class MapGenParams(Strict):
    """Parameters of the seeded procedural map generator (`engine.mapgen.generate`)."""

    width: int = Field(64, ge=16, le=512)
    height: int = Field(64, ge=16, le=512)
    seed: int = 0
    cliff_density: float = Field(0.08, ge=0, le=0.4, description="fraction of tiles that are cliffs")
    water_density: float = Field(0.05, ge=0, le=0.4, description="fraction of tiles that are water")
    deposits: int = Field(12, ge=0, le=200)
    symmetry: Literal["none", "mirror_x", "mirror_y", "rotational"] = "none"


class MapRef(Strict):
    """Exactly one of: a built-in map by name, a map file, or generator parameters."""

    name: str | None = Field(None, description="built-in map, e.g. 'open_field' (see engine/data/maps)")
    file: str | None = Field(None, description="path to a map JSON file, relative to the level file")
    generate: MapGenParams | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> MapRef:
        given = [k for k in ("name", "file", "generate") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of name, file, generate (got {given or 'none'})")
        return self


# --- teams ---------------------------------------------------------------------------------------
class Point(Strict):
    x: float
    y: float


class TargetSelector(Strict):
    """Selects units: all given fields must match. An empty selector matches nothing."""

    team: int | None = None
    tag: str | None = None
    type: str | None = None

    @model_validator(mode="after")
    def _not_empty(self) -> TargetSelector:
        if self.team is None and self.tag is None and self.type is None:
            raise ValueError("a target selector needs at least one of team, tag, type")
        return self


class AgentController(Strict):
    type: Literal["agent"] = "agent"


class NoController(Strict):
    type: Literal["none"] = "none"


class IdleBehaviour(Strict):
    type: Literal["ai"] = "ai"
    behaviour: Literal["idle"] = "idle"


class HoldBehaviour(Strict):
    """Units keep their position and fire at whatever comes in range."""

    type: Literal["ai"] = "ai"
    behaviour: Literal["hold"] = "hold"


class WavesBehaviour(Strict):
    """Idle mobile units are sent in attack-move waves toward a target, every `interval` seconds."""

    type: Literal["ai"] = "ai"
    behaviour: Literal["waves"] = "waves"
    target: Point | TargetSelector
    first_at: float = Field(0.0, ge=0)
    interval: float = Field(60.0, gt=0)
    min_group: int = Field(1, ge=1, description="wait until this many idle units are available")
    choose_target: bool = Field(False, description="each wave picks which hostile team to hit (seeded, "
                                "favouring near and weakened teams) instead of always `target`")


class DefendBehaviour(Strict):
    """Units stay within `radius` of `center` and attack enemies that enter it."""

    type: Literal["ai"] = "ai"
    behaviour: Literal["defend"] = "defend"
    center: Point
    radius: float = Field(12.0, gt=0)


class SkirmishBehaviour(Strict):
    """Easy skirmish AI: builds extractors and solar, a factory, an army, then attacks."""

    type: Literal["ai"] = "ai"
    behaviour: Literal["skirmish"] = "skirmish"
    attack_at_army: int = Field(8, ge=1, description="attack once the army has this many units")
    factory: str = Field("bot_lab", description="factory type to build first")


AIController = Annotated[
    Union[IdleBehaviour, HoldBehaviour, WavesBehaviour, DefendBehaviour, SkirmishBehaviour],
    Field(discriminator="behaviour"),
]
Controller = Annotated[Union[AgentController, NoController, AIController], Field(union_mode="left_to_right")]


class Resources(Strict):
    metal: float = Field(0.0, ge=0)
    energy: float = Field(0.0, ge=0)


class StartUnit(Strict):
    """`count` units of `type` placed around (x, y) or around the map spawn point `at`."""

    type: str
    x: float | None = None
    y: float | None = None
    at: str | None = Field(None, description="name of a map spawn point, instead of x/y")
    count: int = Field(1, ge=1, le=500)
    spread: float = Field(2.0, ge=0, description="units after the first are placed in a ring of this radius")
    tag: str | None = Field(None, description="label that conditions, rules and AI targets can select on")

    @model_validator(mode="after")
    def _position(self) -> StartUnit:
        has_xy = self.x is not None and self.y is not None
        if has_xy == (self.at is not None):
            raise ValueError("give either both x and y, or at")
        return self


class Team(Strict):
    id: int = Field(ge=0, le=15)
    name: str
    allies: list[int] = Field(default_factory=list)
    controller: Controller = Field(default_factory=AgentController)
    resources: Resources = Field(default_factory=Resources)
    units: list[StartUnit] = Field(default_factory=list)
    color: str | None = Field(None, description="#rrggbb; a default palette is used when absent")


# --- rules ---------------------------------------------------------------------------------------
class RuleRef(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    script: str = Field(description="path to a .lua file, relative to the level file")
    params: dict[str, Any] = Field(default_factory=dict, description="read by the script with param(name)")


# --- switches ------------------------------------------------------------------------------------
class Switches(Strict):
    fog_of_war: bool = True
    production: bool = True
    time_limit: float = Field(600.0, gt=0, le=7200, description="seconds; the run ends here")
    spawn_jitter: float = Field(0.0, ge=0, le=8, description="tiles; mobile start units shift by a seeded "
                                "offset up to this much per axis, so each seed starts a little differently")


# --- win / loss conditions -----------------------------------------------------------------------
class DestroyTarget(Strict):
    """`team` wins once every unit matching `target` is destroyed."""

    kind: Literal["destroy_target"] = "destroy_target"
    team: int
    target: TargetSelector
    deadline: float | None = Field(None, gt=0, description="team loses if the target still stands then")


class ProtectTarget(Strict):
    """`team` loses once `mode` (any / all) of the units matching `target` are destroyed."""

    kind: Literal["protect_target"] = "protect_target"
    team: int
    target: TargetSelector
    mode: Literal["any", "all"] = "any"


class SurviveUntil(Strict):
    """`team` wins at `time` if it has not lost by then."""

    kind: Literal["survive_until"] = "survive_until"
    team: int
    time: float = Field(gt=0)


class ProduceComposition(Strict):
    """`team` wins once it owns at least these counts of unit types; loses at `deadline`."""

    kind: Literal["produce_composition"] = "produce_composition"
    team: int
    units: dict[str, int]
    deadline: float | None = Field(None, gt=0)


class LastSurvivor(Strict):
    """When only one alliance still has units (buildings count unless `mobile_only`), it wins."""

    kind: Literal["last_survivor"] = "last_survivor"
    mobile_only: bool = False


class RankByScore(Strict):
    """At `time` (default: the time limit) teams are ranked by `metric`; rank 1 wins."""

    kind: Literal["rank_by_score"] = "rank_by_score"
    metric: Literal["damage_efficiency", "survival", "kills", "damage_dealt", "hp_remaining"] = "damage_efficiency"
    time: float | None = Field(None, gt=0)


Condition = Annotated[
    Union[DestroyTarget, ProtectTarget, SurviveUntil, ProduceComposition, LastSurvivor, RankByScore],
    Field(discriminator="kind"),
]


# --- the level -----------------------------------------------------------------------------------
class LevelConfig(Strict):
    schema_version: Literal[1] = 1
    name: str
    description: str = Field(description="the task description shown to agents")
    map: MapRef
    teams: list[Team] = Field(min_length=1)
    rules: list[RuleRef] = Field(default_factory=list)
    switches: Switches = Field(default_factory=Switches)
    conditions: list[Condition] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict, description="free-form provenance; ignored by the engine")

    @model_validator(mode="after")
    def _consistent(self) -> LevelConfig:
        ids = [t.id for t in self.teams]
        if len(set(ids)) != len(ids):
            raise ValueError(f"teams: duplicate team ids {ids}")
        known = set(ids)
        for i, team in enumerate(self.teams):
            for ally in team.allies:
                if ally not in known:
                    raise ValueError(f"teams.{i}.allies: unknown team {ally}")
        for i, cond in enumerate(self.conditions):
            team = getattr(cond, "team", None)
            if team is not None and team not in known:
                raise ValueError(f"conditions.{i}.team: unknown team {team}")
        rule_ids = [r.id for r in self.rules]
        if len(set(rule_ids)) != len(rule_ids):
            raise ValueError(f"rules: duplicate rule ids {rule_ids}")
        return self
