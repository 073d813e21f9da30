"""Typed documents passed between the pipeline's stages and agents."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.schema.expect import Expectation
from engine.schema.level import Condition, Controller, LevelConfig, MapRef, StartUnit

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
    expect: list[Expectation] = Field(default_factory=list,
                                      description="expectations the validation runs of `on` must satisfy")


class Concepts(Doc):
    """What the request asks for, in the offline backend's vocabulary; "other" when no archetype fits."""

    archetype: Literal["defense", "production", "ffa", "teams", "siege", "capture", "raids", "other"] = "defense"
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
    """Start units of a GDD team; the level's StartUnit (`at` a spawn name, or x and y)."""

    type: str
    count: int = Field(1, ge=1, le=500)
    at: str | None = Field(None, description="name of a spawn point of the GDD's map, instead of x/y")
    x: float | None = None
    y: float | None = None
    spread: float = Field(2.0, ge=0, description=StartUnit.model_fields["spread"].description)
    tag: str | None = None


class TeamPlan(Doc):
    id: int
    name: str
    role: Literal["player", "enemy", "ally"]
    controller: Controller
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
    map: MapRef
    teams: list[TeamPlan]
    rule_components: list[RuleComponent]
    fog_of_war: bool
    production: bool
    time_limit: float
    conditions: list[Condition] = Field(default_factory=list, description="declarative engine win/loss conditions")
    requirements: list[Requirement]
    win_paths: list[str]
    loss_paths: list[str]
    reference_strategy: Strategy
    strategy_params: dict[str, Any] = Field(default_factory=dict)


class RuleTest(Doc):
    """One rule test: the rule under test runs in `level` (which lists no rules: the harness adds it)."""

    name: str
    level: LevelConfig
    params: dict[str, Any] = Field(default_factory=dict, description="the rule's params for this test")
    seed: int = 0
    until: float | None = Field(None, gt=0, description="stop after this many game seconds (default: the level's end)")
    policies: dict[int, Literal["idle", "random", "reference"]] | None = Field(
        None, description="policy per agent-controlled team; agent teams default to idle")
    expect: list[Expectation] = Field(min_length=1)

    def file_form(self) -> dict[str, Any]:
        """The test as test.yaml holds it: no null fields, and a level without `rules`."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"level": {"rules"}})

    @model_validator(mode="after")
    def _no_rules(self) -> RuleTest:
        if self.level.rules:
            raise ValueError("level: must not list `rules`; the harness inserts the rule under test")
        return self


class ParamDecl(Doc):
    type: Literal["int", "float", "bool", "string", "list", "table"]
    default: Any = None
    description: str


class RuleMetaDraft(Doc):
    title: str
    description: str = Field(description="what the rule does, its params and the rule_log events it writes")
    params: dict[str, ParamDecl] = Field(default_factory=dict, description="every param() the script reads")
    concepts: list[str] = Field(default_factory=list)


class RuleDraft(Doc):
    """The developer's answer for one rule component: reuse a library rule by id, or write a new one."""

    id: str = RULE_ID
    reuse: str | None = Field(None, description="id of the verified library rule to reuse unchanged; its source "
                                                "and tests carry over (give no source, tests or meta)")
    params: dict[str, Any] = Field(default_factory=dict, description="the params the level passes to the rule")
    source: str | None = Field(None, description="Lua 5.4 source of a new rule")
    tests: list[RuleTest] = Field(default_factory=list, description="tests of a new rule")
    meta: RuleMetaDraft | None = Field(None, description="metadata of a new rule")

    @model_validator(mode="after")
    def _reuse_or_new(self) -> RuleDraft:
        if self.reuse is not None:
            extra = [k for k in ("source", "meta") if getattr(self, k) is not None] + (["tests"] if self.tests else [])
            if extra:
                raise ValueError(f"a reused rule takes only id, reuse and params; drop {', '.join(extra)}")
        else:
            missing = [k for k in ("source", "meta") if getattr(self, k) is None] + ([] if self.tests else ["tests"])
            if missing:
                raise ValueError(f"a new rule needs {', '.join(missing)} (or set `reuse` to a library rule id)")
        return self


class LevelDraft(Doc):
    level: LevelConfig


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


class RetryContext(Doc):
    """What a stage's writer sees on a retry: its rejected answer and why it was rejected."""

    previous: str = Field("", description="the previous answer, as JSON")
    errors: list[str] = Field(default_factory=list, description="the failing checks' own messages")
    judge_feedback: list[str] = Field(default_factory=list, description="the analyst's and visual reviewer's feedback")


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
