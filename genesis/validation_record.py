"""validation.json: the verdict of one generation, as a typed document."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from genesis.models import Verdict


class RequirementEvidence(BaseModel):
    """One GDD requirement against the validation runs (see genesis.evidence)."""

    model_config = ConfigDict(extra="forbid")

    id: str
    text: str
    testable: bool
    on: str                   # reference, idle, rush or probe:<name>
    passed: bool | None
    status: Literal["verified", "failed", "unverified", "untestable"]
    detail: str
    per_run: list[dict[str, Any]] = Field(default_factory=list)


class Decision(BaseModel):
    """A PM gate decision as the pipeline followed it."""

    model_config = ConfigDict(extra="forbid")

    stage: str
    attempt: int
    iteration: int = 0  # absent from decisions recorded before the total budget was reported per decision
    decision: Literal["advance", "retry", "rollback", "stop"]
    target_stage: str
    guidance: list[str] = Field(default_factory=list)
    reason: str = ""
    override: str | None = None


class ClauseRecord(BaseModel):
    """One clause of the request: honoured, partly honoured, assumed or not honoured, with the evidence
    the validation runs gave its requirements."""

    model_config = ConfigDict(extra="forbid")

    text: str
    status: Literal["honoured", "partial", "assumed", "not_honoured"]
    requirement_ids: list[str] = Field(default_factory=list)
    built: str = ""
    why: str = ""
    evidence: dict[str, str] = Field(default_factory=dict)   # requirement id -> verified | failed | unverified | ...


class ShippedDesign(BaseModel):
    """The design as the shipped level.json plays it (genesis.pipeline.shipped)."""

    model_config = ConfigDict(extra="forbid")

    title: str
    map: str
    time_limit: float | None
    fog_of_war: bool | None
    production: bool | None
    agent_description: str
    forces: dict[str, str]           # "team <id> <name>" -> its start units
    level_changes: list[str] = Field(default_factory=list)   # where the level departs from the last GDD


class ValidationRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    playable: bool                  # the level plays (every stage criterion but the certificate passed)
    certified: bool = False         # ... and its validity certificate holds
    verdict: str = ""               # CERTIFIED | PLAYABLE (certificate skipped) | NOT CERTIFIED | NOT PLAYABLE | REFUSED
    status: str | None
    reason: str
    query: str | None
    run_id: str | None
    backend: dict[str, str]
    rubric_versions: dict[str, int]
    fast_tracked: bool
    kb_match: dict[str, Any] | None
    stages: dict[str, Verdict]
    decisions: list[Decision]
    simulation_runs: list[dict[str, Any]]
    validation_simulations: list[dict[str, Any]] = Field(default_factory=list)  # wall time and cache hits per validation
    requirements: list[RequirementEvidence]
    visual_review: dict[str, Any]
    certificate: dict[str, Any] | None = None  # the validity certificate (genesis.certificate), or why it was skipped
    difficulty: dict[str, Any] | None = None   # the band asked for, the band reached and the knob search
    assumptions: list[str]          # of the design on record: the last GDD's own, else the brief's
    design: ShippedDesign | None = None   # the last GDD as the last level plays it (None before a level)
    unsupported: list[str]
    clauses: list[ClauseRecord] = Field(default_factory=list)
    evolution: dict[str, Any] | None
    stage_times_s: dict[str, float]
    generation_time_s: float
    usage: dict[str, Any]
    written: str
