"""Roles the reference strategy gives chosen own units (`metadata.reference.roles`): a scout, a unit
held back, an escorted unit, units kiting at their weapon range. The behaviour lives in `engine.agent.reference.roles`."""
from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from engine.schema.base import Strict

ROLE_NAMES = ("scout", "hold_back", "escort", "kite")
Point = tuple[float, float]


class RoleSpec(Strict):
    """One role for the own mobile units matching `tag` / `type` (the lowest ids first, `count` of
    them, none another role took): they leave the army and its strategy for good (an escort's guards
    rejoin the army once the escorted units are dead). Roles are given once, at the start: a role
    must match a start unit of team 0 (placed, or spawned by a rule at the start)."""

    role: Literal[ROLE_NAMES] = Field(description="what the units do (each role is described below)")
    tag: str | None = Field(None, description="tag of the own unit(s) taking the role")
    type: str | None = Field(None, description="unit type of the own unit(s) taking the role")
    count: int = Field(1, ge=1, le=32, description="how many matching units take it")
    waypoints: list[Point] = Field(default_factory=list, max_length=32, description=(
        "scout: [x, y] points to look at, in order, before the unseen rest of the map"))
    at: Point | None = Field(None, description="hold_back: the safe point to stay at (default: `behind` tiles "
                                               "behind the army, on the side away from the enemy it knows)")
    behind: float = Field(8.0, gt=0, le=40, description="hold_back: tiles behind the army's centre")
    margin: float | None = Field(None, ge=0, le=20, description=(
        "scout, hold_back, escort: tiles beyond a visible enemy's weapon range at which the unit backs off (default: "
        "the role's own, in its description); 0 lets it stand just outside that range (a spotter at stand-off)"))
    to: Point | None = Field(None, description="escort: [x, y] the escorted unit goes to (required unless to_label)")
    to_label: str | None = Field(None, max_length=80, description=(
        "escort: text of the label of a rule area (area_circle / area_rect) to go to instead, wherever the rule drew "
        "it (a destination drawn per seed); the newest such area that exists counts (remove_area on it makes the "
        "next newest count: a rule may lead the escort through several sites in turn); until one is drawn, `to` "
        "(else stay)"))
    guards: int | None = Field(None, ge=1, description="escort: how many army units (nearest first) escort it "
                                                       "(default: the whole army)")
    radius: float = Field(6.0, gt=0, le=30, description="escort: the escorted unit moves only while half its "
                                                        "guards are this close; enemies within twice this of it "
                                                        "are attacked")

    @model_validator(mode="after")
    def _complete(self) -> RoleSpec:
        if not self.tag and not self.type:
            raise ValueError("a role names its units by `tag` or `type`")
        if self.role == "escort" and self.to is None and not self.to_label:
            raise ValueError("an escort role needs `to`, the point the escorted unit goes to, or `to_label`")
        return self


def parse_roles(value) -> list[RoleSpec]:
    """The roles of a reference spec (`roles` may be missing or empty)."""
    if value is not None and not isinstance(value, list):
        raise ValueError("`roles` is a list of role objects")
    return [RoleSpec.model_validate(v) for v in value or []]
