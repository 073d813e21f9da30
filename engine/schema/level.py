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
from engine.schema.roles import parse_roles


# --- map -----------------------------------------------------------------------------------------
class MapGenParams(Strict):
    """Parameters of the seeded procedural map generator (`engine.mapgen.generate`)."""

    width: int = Field(64, ge=16, le=512, description="map width in tiles")
    height: int = Field(64, ge=16, le=512, description="map height in tiles")
    seed: int = Field(0, description="generator seed: the same parameters and seed give the same map")
    cliff_density: float = Field(0.08, ge=0, le=0.4, description="fraction of tiles that are cliffs")
    water_density: float = Field(0.05, ge=0, le=0.4, description="fraction of tiles that are water")
    deposits: int = Field(12, ge=0, le=200, description="number of metal deposits")
    symmetry: Literal["none", "mirror_x", "mirror_y", "rotational"] = Field("none", description="how the terrain is mirrored (fair starts for opposed teams)")


class MapRef(Strict):
    """Exactly one of: a built-in map by name, a map file, or generator parameters."""

    name: str | None = Field(None, description="built-in map, e.g. 'open_field' (see engine/data/maps)")
    file: str | None = Field(None, description="path to a map JSON file, relative to the level file")
    generate: MapGenParams | None = Field(None, description="parameters of a procedural map")

    @model_validator(mode="after")
    def _exactly_one(self) -> MapRef:
        given = [k for k in ("name", "file", "generate") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of name, file, generate (got {given or 'none'})")
        return self


# --- teams ---------------------------------------------------------------------------------------
class Point(Strict):
    x: float = Field(description="tiles from the left edge")
    y: float = Field(description="tiles from the top edge")


class TargetSelector(Strict):
    """Selects units: all given fields must match. An empty selector matches nothing."""

    team: int | None = Field(None, description="owner team id")
    tag: str | None = Field(None, description="start-unit or spawn tag")
    type: str | None = Field(None, description="unit type from the roster")

    @model_validator(mode="after")
    def _not_empty(self) -> TargetSelector:
        if self.team is None and self.tag is None and self.type is None:
            raise ValueError("a target selector needs at least one of team, tag, type")
        return self


class AgentController(Strict):
    type: Literal["agent"] = Field("agent", description="'agent': the team is played by the agent under test (the "
                                                        "player, or a policy in validation runs)")


class NoController(Strict):
    type: Literal["none"] = Field("none", description="'none': nobody gives the team orders; its units only shoot "
                                                      "what comes into weapon range, and rules may order them")


class IdleBehaviour(Strict):
    type: Literal["ai"] = Field("ai", description="'ai': a built-in AI behaviour")
    behaviour: Literal["idle"] = Field("idle", description="'idle': the AI gives no orders (like 'none'; rule orders "
                                                           "are kept)")


class HoldBehaviour(Strict):
    """Units keep their position and fire at whatever comes in range."""

    type: Literal["ai"] = Field("ai", description="'ai': a built-in AI behaviour")
    behaviour: Literal["hold"] = Field("hold", description="'hold': each mobile unit (rule-spawned ones too) keeps "
                                                           "the post where the AI first saw it and walks back to it "
                                                           "when idle")


class WavesBehaviour(Strict):
    """Idle mobile units are sent in attack-move waves toward a target, every `interval` seconds."""

    type: Literal["ai"] = Field("ai", description="'ai': a built-in AI behaviour")
    behaviour: Literal["waves"] = Field("waves", description="'waves': periodic attack-move waves of the team's idle "
                                                             "mobile units (busy units, e.g. ones a rule ordered, "
                                                             "are left alone)")
    target: Point | TargetSelector = Field(description="a point {x, y}, or a selector of the units to attack")
    first_at: float = Field(0.0, ge=0, description="game second of the first wave")
    interval: float = Field(60.0, gt=0, description="seconds between waves")
    min_group: int = Field(1, ge=1, description="wait until this many idle units are available")
    choose_target: bool = Field(False, description="each wave picks which hostile team to hit (seeded, "
                                "favouring near and weakened teams) instead of always `target`")


class DefendBehaviour(Strict):
    """Units stay within `radius` of `center` and attack enemies that enter it."""

    type: Literal["ai"] = Field("ai", description="'ai': a built-in AI behaviour")
    behaviour: Literal["defend"] = Field("defend", description="'defend': guard a circle; whenever an enemy is "
                                                               "inside, every idle or attack-moving unit of the team "
                                                               "(rule-spawned ones too) is sent at it, and idle "
                                                               "units far from the centre are called back")
    center: Point = Field(description="centre of the guarded circle")
    radius: float = Field(12.0, gt=0, description="radius of the guarded circle in tiles")


class SkirmishBehaviour(Strict):
    """Easy skirmish AI: builds extractors and solar, a factory, an army, then attacks."""

    type: Literal["ai"] = Field("ai", description="'ai': a built-in AI behaviour")
    behaviour: Literal["skirmish"] = Field("skirmish", description="'skirmish': an economy-building, attacking AI "
                                                                   "(needs production and a builder)")
    attack_at_army: int = Field(8, ge=1, description="attack once the army has this many units")
    factory: str = Field("bot_lab", description="factory type to build first")


AIController = Annotated[
    Union[IdleBehaviour, HoldBehaviour, WavesBehaviour, DefendBehaviour, SkirmishBehaviour],
    Field(discriminator="behaviour"),
]
Controller = Annotated[Union[AgentController, NoController, AIController], Field(union_mode="left_to_right")]


class Resources(Strict):
    metal: float = Field(0.0, ge=0, description="starting metal")
    energy: float = Field(0.0, ge=0, description="starting energy")


class StartUnit(Strict):
    """`count` units of `type` placed around (x, y) or around the map spawn point `at`."""

    type: str = Field(description="unit type from the roster")
    x: float | None = Field(None, description="tile x of the group's point (with y; instead of `at`)")
    y: float | None = Field(None, description="tile y of the group's point (with x; instead of `at`)")
    at: str | None = Field(None, description="name of a map spawn point, instead of x/y")
    count: int = Field(1, ge=1, le=500, description="units in the group: the first at the point, the rest on rings "
                                                    "around it (see spread)")
    spread: float = Field(2.0, ge=0, description="units after the first are placed in a ring of this radius")
    tag: str | None = Field(None, description="label that conditions, rules and AI targets can select on")
    health: float = Field(1.0, gt=0, le=1, description="share of its max hp each unit of the group starts with "
                                                       "(1: unhurt; 0.5: half its hp)")

    @model_validator(mode="after")
    def _position(self) -> StartUnit:
        has_xy = self.x is not None and self.y is not None
        if has_xy == (self.at is not None):
            raise ValueError("give either both x and y, or at")
        return self


class Team(Strict):
    id: int = Field(ge=0, le=15, description="team id; 0 is the player")
    name: str = Field(description="display name")
    allies: list[int] = Field(default_factory=list, description="ids of allied teams (alliances are symmetric: "
                                                                "listing the ally on one of the two teams is enough)")
    controller: Controller = Field(default_factory=AgentController, description="who gives this team's units orders")
    resources: Resources = Field(default_factory=Resources, description="starting metal and energy")
    units: list[StartUnit] = Field(default_factory=list, description="start units, placed at t=0")
    color: str | None = Field(None, description="#rrggbb; a default palette is used when absent; a colour too close to "
                                                "the terrain's is drawn in a paler shade of itself")
    neutral: bool = Field(False, description=(
        "a side no one fights (civilians, neutral buildings): no team is hostile to it nor it to any team, so "
        "only splash, hazards and rules hurt its units; it never wins, loses or keeps a game going, and agents see "
        "its units as neutral"))


# --- rules ---------------------------------------------------------------------------------------
class RuleRef(Strict):
    id: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case rule id; trace events of the rule carry it "
                                                              "as `rule`")
    script: str = Field(description="path to a .lua file, relative to the level file")
    params: dict[str, Any] = Field(default_factory=dict, description="read by the script with param(name)")


# --- switches ------------------------------------------------------------------------------------
class Switches(Strict):
    fog_of_war: bool = Field(True, description="true: each team sees only what its units see")
    production: bool = Field(True, description="false: factories and builders cannot produce or build")
    time_limit: float = Field(600.0, gt=0, le=7200, description="seconds; the run ends here: rule timers due at that "
                              "moment run first, then the conditions (a survive_until or rank_by_score without a time "
                              "decides here); a game nothing decides then ends with no winner")
    spawn_jitter: float = Field(0.0, ge=0, le=8, description="tiles; mobile start units shift by a seeded "
                                "offset up to this much per axis, so each seed starts a little differently")


# --- win / loss conditions -----------------------------------------------------------------------
class DestroyTarget(Strict):
    """`team` wins once every unit matching `target` is destroyed."""

    kind: Literal["destroy_target"] = Field("destroy_target", description="condition kind")
    team: int = Field(description="team that wins")
    target: TargetSelector = Field(description="the units to destroy")
    deadline: float | None = Field(None, gt=0, description="team loses if the target still stands then")


class ProtectTarget(Strict):
    """`team` loses once `mode` (any / all) of the units matching `target` are destroyed."""

    kind: Literal["protect_target"] = Field("protect_target", description="condition kind")
    team: int = Field(description="team that loses")
    target: TargetSelector = Field(description="the units to protect")
    mode: Literal["any", "all"] = Field("any", description="'any': the first loss loses; 'all': losing the last one "
                                                           "loses")


class SurviveUntil(Strict):
    """`team` wins at `time` if it has not lost by then."""

    kind: Literal["survive_until"] = Field("survive_until", description="condition kind")
    team: int = Field(description="team that wins by surviving")
    time: float = Field(gt=0, description="game second of the win")


class ProduceComposition(Strict):
    """`team` wins once it owns at least these counts of unit types; loses at `deadline`."""

    kind: Literal["produce_composition"] = Field("produce_composition", description="condition kind")
    team: int = Field(description="team that must produce")
    units: dict[str, int] = Field(description="unit type -> count to own at once")
    deadline: float | None = Field(None, gt=0, description="game second at which the team loses if it has not won")


class LastSurvivor(Strict):
    """When only one alliance still has units (buildings count unless `mobile_only`), it wins."""

    kind: Literal["last_survivor"] = Field("last_survivor", description="condition kind")
    mobile_only: bool = Field(False, description="true: buildings do not keep a team alive")


class RankByScore(Strict):
    """At `time` (default: the time limit) teams are ranked by `metric`; rank 1 wins."""

    kind: Literal["rank_by_score"] = Field("rank_by_score", description="condition kind")
    metric: Literal["damage_efficiency", "survival", "kills", "damage_dealt", "hp_remaining", "units_alive"] = Field(
        "damage_efficiency", description="what teams are ranked by: damage_efficiency (damage dealt / damage received), "
        "survival (teams with units left first, ranked among themselves by the hp they keep; then the eliminated, the "
        "later out first), kills (enemy units killed), damage_dealt, hp_remaining (summed hp of the living units), "
        "units_alive (living units)")
    time: float | None = Field(None, gt=0, description="game second of the ranking (default: the time limit)")


Condition = Annotated[
    Union[DestroyTarget, ProtectTarget, SurviveUntil, ProduceComposition, LastSurvivor, RankByScore],
    Field(discriminator="kind"),
]


# --- the level -----------------------------------------------------------------------------------
class LevelConfig(Strict):
    schema_version: Literal[1] = Field(1, description="always 1")
    name: str = Field(description="level title")
    description: str = Field(description="the task description shown to agents")
    map: MapRef = Field(description="the map: a built-in name, a file or generator parameters")
    teams: list[Team] = Field(min_length=1, description="every team, the player (id 0) first")
    rules: list[RuleRef] = Field(default_factory=list, description="Lua rule scripts and their params")
    switches: Switches = Field(default_factory=Switches, description="fog of war, production, time limit")
    conditions: list[Condition] = Field(default_factory=list, description="declarative win/loss conditions the "
                                                                          "engine checks")
    metadata: dict[str, Any] = Field(default_factory=dict, description=(
        "free-form provenance, ignored by the simulation; `reference` = {\"strategy\": name, plus that strategy's "
        "params as sibling keys, and optional `roles`} is what the scripted reference policy plays"))

    @model_validator(mode="after")
    def _consistent(self) -> LevelConfig:
        ids = [t.id for t in self.teams]
        if len(set(ids)) != len(ids):
            raise ValueError(f"teams: duplicate team ids {ids}")
        known = set(ids)
        neutral = {t.id for t in self.teams if t.neutral}
        for i, team in enumerate(self.teams):
            for ally in team.allies:
                if ally not in known:
                    raise ValueError(f"teams.{i}.allies: unknown team {ally}")
                if {ally, team.id} & neutral:
                    raise ValueError(f"teams.{i}.allies: a neutral team has no allies (team {ally})")
            if team.neutral and (team.id == 0 or team.controller.type == "agent"):
                raise ValueError(f"teams.{i}: a neutral team is not a player: not team 0, and an ai or none "
                                 "controller")
        for i, cond in enumerate(self.conditions):
            team = getattr(cond, "team", None)
            if team is not None and team not in known:
                raise ValueError(f"conditions.{i}.team: unknown team {team}")
        rule_ids = [r.id for r in self.rules]
        if len(set(rule_ids)) != len(rule_ids):
            raise ValueError(f"rules: duplicate rule ids {rule_ids}")
        reference = self.metadata.get("reference")
        if isinstance(reference, dict):
            try:
                roles = parse_roles(reference.get("roles"))
            except ValueError as exc:
                raise ValueError(f"metadata.reference.roles: {exc}") from exc
            self._roles_have_units(roles)
        return self

    def _roles_have_units(self, roles) -> None:
        """Roles are given at the start, to the player's start units: a role naming none would
        silently do nothing. In a level with rules a rule may spawn more of the player's units at the
        start (a seeded layout, workers scattered per seed): the reference checks its roles against
        them then (`build_roles`)."""
        player = next((t for t in self.teams if t.id == 0), None)
        if player is None or not player.units or self.rules:
            return
        for i, role in enumerate(roles):
            if not any((role.tag is None or u.tag == role.tag) and (role.type is None or u.type == role.type)
                       for u in player.units):
                raise ValueError(f"metadata.reference.roles.{i}: no start unit of team 0 has "
                                 + " and ".join(f"{k} {v!r}" for k, v in (("tag", role.tag), ("type", role.type)) if v))
