"""The expectation grammar of `engine.expect` as typed models: one source for the JSON schema a
model is given and for the checks applied to what it writes.

Three families, told apart by their one top-level key:
  {event: ..., where: ..., min/max, after/before, distinct_sectors | sectors_named | time_clusters |
   cluster_times | increasing | values}
  {result: {winners_include, ended_by, ...}}
  {state: {at: seconds, team, type, tag, within, units_min/units_max, metal_min/... }}
Unknown keys are errors everywhere, and a `where` path must name a field the event kind carries, so
an expectation can never silently match nothing.
"""
from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import Discriminator, Field, Tag, model_validator

from engine.schema.base import Strict

EVENT_KINDS = ("spawn", "death", "rule_log", "message", "win", "lose", "order", "end", "rule_damage", "rule_heal",
               "resources_taken", "resources_transferred", "rule_sight", "rule_fire", "rule_cloak", "rule_detector",
               "rule_team")
# The fields each trace event kind carries (besides t and event), as written by engine.sim and the rule API.
EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "spawn": ("id", "type", "team", "x", "y", "source"),
    "death": ("id", "type", "team", "x", "y", "killer_team", "rule"),
    "rule_log": ("rule", "name", "fields"),
    "message": ("text", "team", "rule"),
    "win": ("team", "reason"),
    "lose": ("team", "reason"),
    "order": ("team", "ok", "error", "kind", "units", "x", "y", "type", "factory", "count"),
    "end": ("ended_by", "reason", "winners", "losers", "error"),
    "rule_damage": ("rule", "ids", "teams", "amount", "dealt", "killed", "x", "y", "radius"),
    "rule_heal": ("rule", "ids", "teams", "amount", "healed", "x", "y", "radius"),
    "resources_taken": ("rule", "team", "metal", "energy"),
    "resources_transferred": ("rule", "from", "to", "metal", "energy"),
    "rule_sight": ("rule", "ids", "radius"),
    "rule_fire": ("rule", "ids", "allowed"),
    "rule_cloak": ("rule", "ids", "cloaked"),
    "rule_detector": ("rule", "ids", "radius"),
    "rule_team": ("rule", "ids", "team", "from"),
}
EVENT_FIELD_NOTES = {
    "spawn": "source is 'start' (placed by the level), 'rule' (spawn() in a rule script), 'production' or 'build'",
    "death": "killer_team is null when no team dealt the last hit; rule names the rule whose damage() killed",
    "rule_damage": "one per damage()/damage_area() call that hit a unit; x, y, radius only for damage_area; metal and "
                   "energy of resources_taken / resources_transferred are what really moved",
    "rule_log": "name is the first argument of log(name, fields); fields.<key> reaches into its table",
    "rule_heal": "teams lists the sides of the units healed (rule_damage's too); ids, teams, killed and rule_team's "
                 "from are lists: `where: {teams: 0}` matches an event whose list holds 0",
    "message": "rule is the id of the rule that sent it",
    "end": "ended_by is condition, rule, time_limit, until or error",
}

Scalar = Union[str, int, float, bool, None]
TeamIds = Union[int, list[int]]


class SectorSpec(Strict):
    """Positions of the matching events fall in [min, max] distinct compass sectors around `center`."""

    min: int = Field(1, ge=0, description="at least this many distinct sectors")
    max: int | None = Field(None, ge=0, description="at most this many distinct sectors")
    center: Literal["map_center"] | tuple[float, float] = Field("map_center", description="'map_center' or [x, y] the sectors are seen from")
    sectors: int = Field(8, ge=2, description="number of equal compass sectors, each centred on its direction (8: n, "
                                              "ne, e, ...; 4: n, e, s, w)")


class ClusterSpec(Strict):
    """Matching events form [min, max] groups in time, groups separated by at least `gap` seconds."""

    gap: float = Field(gt=0, description="seconds of silence that separate two groups")
    min: int = Field(1, ge=0, description="at least this many groups")
    max: int | None = Field(None, ge=0, description="at most this many groups")


Compass = Literal["n", "ne", "e", "se", "s", "sw", "w", "nw"]


class NamedSectorSpec(Strict):
    """The matching events come from the named compass sectors (8 sectors of 45 degrees, each centred on
    its direction, seen from `center`; y grows down the map, so n is smaller y).

    Unordered: every positioned event lies in one of `names` and every name has at least one event.
    Ordered: the events split into time clusters (`gap`); there are exactly len(names) clusters and
    every event of cluster i lies in sector names[i]."""

    names: list[Compass] = Field(min_length=1, description="compass sectors, lower case: n, ne, e, se, s, sw, w, nw; "
                                                           "in time order when ordered")
    center: Literal["map_center"] | tuple[float, float] = Field("map_center", description="'map_center' or [x, y] the "
                                                                                          "sectors are seen from")
    ordered: bool = Field(False, description="true: cluster i (in time) must lie in names[i] (needs gap)")
    gap: float | None = Field(None, gt=0, description="seconds of silence that separate two time clusters (ordered)")

    @model_validator(mode="after")
    def _ordered_needs_gap(self) -> NamedSectorSpec:
        if self.ordered and self.gap is None:
            raise ValueError("sectors_named with ordered: true needs `gap`")
        return self


class ClusterTimesSpec(Strict):
    """The matching events form exactly len(times) time clusters, and cluster i starts within
    `tolerance` seconds of times[i]."""

    gap: float = Field(gt=0, description="seconds of silence that separate two clusters")
    times: list[float] = Field(min_length=1, description="game seconds at which each cluster starts, in time order: "
                                                     "the events must form exactly this many clusters")
    tolerance: float = Field(10.0, ge=0, description="allowed distance in seconds between a cluster's first event "
                                                     "and its time")


class IncreasingSpec(Strict):
    """Event counts per time cluster (clusters split by `gap` seconds) rise strictly; with `factor`,
    each cluster has at least factor times the events of the one before."""

    gap: float = Field(gt=0, description="seconds of silence that separate two clusters")
    min_buckets: int = Field(2, ge=2, description="at least this many clusters")
    bucket: Literal["time_clusters"] = Field("time_clusters", description="how events are grouped (only "
                                                                          "time_clusters)")
    factor: float | None = Field(None, ge=1, description="each cluster's count >= factor x the previous count "
                                                         "(2: doubling); still strictly increasing")


class ValueRangeSpec(Strict):
    """Every matching event carries the numeric field `field` with a value in [min, max]."""

    field: str = Field(description="field path of the events, e.g. fields.held (a rule_log field) or x")
    min: float | None = Field(None, description="every value is at least this")
    max: float | None = Field(None, description="every value is at most this")

    @model_validator(mode="after")
    def _bounded(self) -> ValueRangeSpec:
        if self.min is None and self.max is None:
            raise ValueError("values needs min or max")
        return self


class EventExpectation(Strict):
    """Counts the trace events of kind `event` whose fields match `where` in [after, before] seconds.

    With neither min/max nor a shape check it means "at least one"."""

    event: Literal[EVENT_KINDS] = Field(description="trace event kind to count")
    where: dict[str, Union[Scalar, list[Scalar]]] = Field(
        default_factory=dict, description="field path -> wanted value (a list means any of them); "
                                          "dotted paths such as fields.count reach into rule_log fields")
    min: int | None = Field(None, ge=0, description="at least this many matching events")
    max: int | None = Field(None, ge=0, description="at most this many matching events (0: none)")
    after: float | None = Field(None, description="absolute game seconds")
    before: float | None = Field(None, description="absolute game seconds")
    distinct_sectors: SectorSpec | None = Field(None, description="where the matching events happen: events with a "
                                                                  "position (spawn and death events, and rule_log events "
                                                                  "whose fields carry x and y)")
    time_clusters: ClusterSpec | None = Field(None, description="how the matching events group in time")
    increasing: IncreasingSpec | None = Field(None, description="the groups grow in size")
    sectors_named: NamedSectorSpec | None = Field(None, description="the events come from these compass sectors "
                                                                    "(in this order when ordered)")
    cluster_times: ClusterTimesSpec | None = Field(None, description="the time clusters start at these times")
    values: ValueRangeSpec | None = Field(None, description="a numeric field of every matching event lies in a "
                                                            "range (with no matching event it fails, unless min is 0)")

    @model_validator(mode="after")
    def _known_fields(self) -> EventExpectation:
        allowed = EVENT_FIELDS[self.event]
        paths = [("where", p) for p in self.where] + ([("values.field", self.values.field)] if self.values else [])
        for key, path in paths:
            head = str(path).split(".", 1)[0]
            if head not in allowed:
                raise ValueError(f"{key}: {self.event} events have no field {head!r} (they carry: {', '.join(allowed)}); "
                                 "the event kind goes in `event`, times in after/before")
        return self


class ResultSpec(Strict):
    winners_include: TeamIds | None = Field(None, description="team id(s) that must be among the winners")
    winners_exclude: TeamIds | None = Field(None, description="team id(s) that must not win")
    losers_include: TeamIds | None = Field(None, description="team id(s) that must be among the losers")
    losers_exclude: TeamIds | None = Field(None, description="team id(s) that must not lose")
    ended_by: Union[Literal["condition", "rule", "time_limit", "until", "error"],
                    list[Literal["condition", "rule", "time_limit", "until", "error"]], None] = Field(
        None, description="how the run ended (a list: any of them): condition = a declarative condition, rule = "
                          "win()/lose() in a rule, time_limit, until = a test's `until`, error = a rule error")
    reason_contains: str | None = Field(None, description="substring of the end reason")
    duration_min: float | None = Field(None, description="the run lasts at least this many game seconds")
    duration_max: float | None = Field(None, description="the run lasts at most this many game seconds")

    @model_validator(mode="after")
    def _not_empty(self) -> ResultSpec:
        if not self.model_dump(exclude_none=True):
            raise ValueError("`result` must be a non-empty mapping")
        return self


class ResultExpectation(Strict):
    """Checks the run's outcome; every key given must hold."""

    result: ResultSpec = Field(description="the outcome to check")


class Area(Strict):
    x: float = Field(description="circle centre x (tiles)")
    y: float = Field(description="circle centre y (tiles)")
    radius: float = Field(gt=0, description="circle radius (tiles)")


TEAM_COUNT_KEYS = ("teams_min", "teams_max", "alliances_min", "alliances_max", "alliance_size")


class StateSpec(Strict):
    """The engine state at game second `at` (the final state if the run ended before).

    Units counted are the living units matching every given filter (team, type, tag, within, hp). Teams
    counted are the teams owning at least one such unit; an alliance is a group of those teams allied
    with each other (a team without allies is an alliance of one)."""

    at: float = Field(ge=0, description="absolute game seconds")
    team: int | None = Field(None, description="owner of the units counted, and whose resources are read")
    type: str | None = Field(None, description="count only units of this type")
    tag: str | None = Field(None, description="count only units with this tag")
    within: Area | None = Field(None, description="count only units inside this circle")
    hp_min: float | None = Field(None, ge=0, description="count only units with at least this many hp")
    hp_max: float | None = Field(None, ge=0, description="count only units with at most this many hp")
    hp_share_min: float | None = Field(None, ge=0, le=1, description="count only units with at least this share of "
                                                                     "their max hp (0..1)")
    hp_share_max: float | None = Field(None, ge=0, le=1, description="count only units with at most this share of "
                                                                     "their max hp (0..1)")
    units_min: int | None = Field(None, ge=0, description="at least this many matching living units")
    units_max: int | None = Field(None, ge=0, description="at most this many matching living units")
    metal_min: float | None = Field(None, description="the team has at least this much metal")
    metal_max: float | None = Field(None, description="the team has at most this much metal")
    energy_min: float | None = Field(None, description="the team has at least this much energy")
    energy_max: float | None = Field(None, description="the team has at most this much energy")
    teams_min: int | None = Field(None, ge=0, description="at least this many teams own a matching living unit")
    teams_max: int | None = Field(None, ge=0, description="at most this many teams own a matching living unit")
    alliances_min: int | None = Field(None, ge=0, description="those teams form at least this many alliances")
    alliances_max: int | None = Field(None, ge=0, description="those teams form at most this many alliances")
    alliance_size: int | None = Field(None, ge=1, description="every alliance holds exactly this many of those "
                                                              "teams (1: nobody is allied)")

    @model_validator(mode="after")
    def _asks_something(self) -> StateSpec:
        counts = any(getattr(self, k) is not None for k in ("units_min", "units_max") + TEAM_COUNT_KEYS)
        money = [k for k in ("metal_min", "metal_max", "energy_min", "energy_max") if getattr(self, k) is not None]
        if not counts and not money:
            raise ValueError("`state` needs units_min/units_max, a teams_/alliances_ bound or a metal_/energy_ bound")
        if money and self.team is None:
            raise ValueError(f"`state` with {', '.join(money)} needs `team`")
        return self


class StateExpectation(Strict):
    """Asserts engine state (unit counts, ownership, positions, resources) at a given time."""

    state: StateSpec = Field(description="the state to check")


def expectation_family(value: Any) -> str | None:
    if isinstance(value, dict):
        found = [k for k in ("event", "result", "state") if k in value]
        return found[0] if len(found) == 1 else None
    return next((f for f, m in FAMILIES.items() if isinstance(value, m)), None)


FAMILIES = {"event": EventExpectation, "result": ResultExpectation, "state": StateExpectation}
_FAMILY_ERROR = dict(custom_error_type="expectation_family",
                     custom_error_message="an expectation needs exactly one of `event`, `result` or `state`")

# Any expectation, as rule tests and GDD requirements write them.
Expectation = Annotated[
    Union[Annotated[EventExpectation, Tag("event")], Annotated[ResultExpectation, Tag("result")],
          Annotated[StateExpectation, Tag("state")]],
    Discriminator(expectation_family, **_FAMILY_ERROR),
]
