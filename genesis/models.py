"""Typed documents passed between the pipeline's stages and agents."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Competency = Literal[
    "resource_management",
    "spatial_temporal_reasoning",
    "opponent_modelling",
    "collaboration",
    "adversarial_planning",
]
Strategy = Literal["defend", "produce", "attack", "fight", "hold_zone"]


class Doc(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Requirement(Doc):
    """One checkable demand of the request, e.g. "attacks come from two fronts"."""

    id: str
    text: str
    testable: bool = True
    on: Literal["reference", "idle"] = Field("reference", description="which validation run carries the evidence")
    expect: list[dict[str, Any]] = Field(default_factory=list, description="engine.expect expectations over the reference run")


class Concepts(Doc):
    """What the request asks for, in the offline backend's vocabulary (see README)."""

    archetype: Literal["defense", "production", "ffa", "teams", "siege", "capture", "raids"] = "defense"
    fronts: int | None = None
    objectives: int | None = None
    objective_type: str | None = None
    waves: int | None = None
    wave_times: list[float] = Field(default_factory=list)
    wave_interval: float | None = None
    staggered: bool = False
    escalating: bool = False
    random_side: bool = False
    random_timing: bool = False
    air: bool = False
    ground: bool = True
    unit_kinds: list[str] = Field(default_factory=list)
    teams: int = 2
    team_size: int = 1
    production: bool | None = None
    fog: bool | None = None
    time_limit: float | None = None
    target_composition: dict[str, int] = Field(default_factory=dict)
    ranking: str | None = None
    map_hint: str | None = None
    scouting: bool = False
    raids: bool = False
    allied_bases: int | None = None


class Clarification(Doc):
    question: str
    answer: str | None = None


class Brief(Doc):
    query: str
    title: str
    competency: Competency
    summary: str
    composition: str = Field(description="who fights with what")
    enemy_behaviour: list[str]
    win_conditions: list[str]
    loss_conditions: list[str]
    requirements: list[Requirement]
    concepts: Concepts
    assumptions: list[str] = Field(default_factory=list)
    unsupported: list[str] = Field(default_factory=list, description="parts of the request that cannot be honoured, and why")
    clarifications: list[Clarification] = Field(default_factory=list)
    is_game: bool = True
    refusal: str | None = Field(None, description="why no scenario can be made, when is_game is false")


class UnitPlacement(Doc):
    type: str
    count: int = 1
    at: str | None = None
    x: float | None = None
    y: float | None = None
    tag: str | None = None


class TeamPlan(Doc):
    id: int
    name: str
    role: Literal["player", "enemy", "ally"]
    controller: dict[str, Any]
    allies: list[int] = Field(default_factory=list)
    metal: float = 0
    energy: float = 0
    units: list[UnitPlacement] = Field(default_factory=list)


# Rule ids name files in the scenario folder and level rules: the engine's RuleRef pattern, so a
# model cannot write outside the folder (e.g. id "../../x").
RULE_ID = Field(pattern=r"^[a-z][a-z0-9_]*$", description="snake_case rule id")


class RuleComponent(Doc):
    id: str = RULE_ID
    purpose: str
    kind: Literal["spawn", "termination", "setup", "economy", "objective"]
    library_rule: str | None = Field(None, description="id of a verified library rule to reuse, if any")
    params: dict[str, Any] = Field(default_factory=dict)
    requirement_ids: list[str] = Field(default_factory=list)


class GDD(Doc):
    title: str
    competency: Competency
    summary: str
    agent_description: str
    map: dict[str, Any] = Field(description="an engine MapRef: {name}, {file} or {generate}")
    teams: list[TeamPlan]
    rule_components: list[RuleComponent]
    fog_of_war: bool
    production: bool
    time_limit: float
    conditions: list[dict[str, Any]] = Field(default_factory=list, description="declarative engine conditions")
    requirements: list[Requirement]
    win_paths: list[str]
    loss_paths: list[str]
    reference_strategy: Strategy
    strategy_params: dict[str, Any] = Field(default_factory=dict)


class RuleTest(Doc):
    name: str
    level: dict[str, Any]
    params: dict[str, Any] = Field(default_factory=dict)
    seed: int = 0
    until: float | None = None
    policies: dict[int, str] | None = None
    expect: list[dict[str, Any]]


class RuleArtifact(Doc):
    id: str = RULE_ID
    source: str
    params: dict[str, Any]
    tests: list[RuleTest]
    meta: dict[str, Any] = Field(default_factory=dict)
    reused_from: str | None = None


class CriterionResult(Doc):
    id: str
    passed: bool
    mandatory: bool = True
    kind: str = ""
    reason: str = ""


class Verdict(Doc):
    stage: Literal["brief", "gdd", "rules", "level"]
    passed: bool
    criteria: list[CriterionResult] = Field(default_factory=list)
    feedback: list[str] = Field(default_factory=list)
    judged_by: str = ""
    unrecoverable: str = ""  # why no retry can pass (e.g. the model's context is too small); the PM must stop


class JudgedReview(Doc):
    """A model's judgement of the judged rubric criteria."""

    results: list[CriterionResult]
    feedback: list[str] = Field(default_factory=list)


class MetaFeedback(Doc):
    decision: Literal["advance", "retry", "rollback", "stop"]
    target_stage: Literal["brief", "gdd", "rules", "level", "done"]
    guidance: list[str] = Field(default_factory=list)
    reason: str = ""


class VisualVerdict(Doc):
    playable: bool
    aligned: bool
    observations: list[str]
    problems: list[str] = Field(default_factory=list)
    judged_by: str = ""
    unrecoverable: str = ""  # the VLM call cannot succeed as configured (see Verdict.unrecoverable)


class RubricChange(Doc):
    op: Literal["add", "modify", "remove"]
    criterion: dict[str, Any]
    rationale: str


class Retrospective(Doc):
    changes: list[RubricChange] = Field(default_factory=list)
    stage: Literal["gdd", "rules", "level"] = "level"
    summary: str = ""
