"""Developer: writes or reuses a Lua rule per GDD component (Stage 3) and assembles the level (Stage 4)."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from genesis.agents.base import Agent
from genesis.models import GDD, RuleArtifact, RuleComponent


class LevelDraft(BaseModel):
    level: dict[str, Any]


class Developer(Agent):
    role = "developer"

    def write_rule(self, component: RuleComponent, library: dict | None, guidance: list[str], api_doc: str) -> RuleArtifact:
        return self.ask("developer.write_rule", RuleArtifact, stage="rules", inputs={
            "component": component.model_dump(mode="json"), "library": library, "guidance": guidance,
            "api_doc": api_doc})

    def assemble_level(self, gdd: GDD, rules: list[RuleArtifact], guidance: list[str]) -> dict[str, Any]:
        return self.ask("developer.assemble_level", LevelDraft, stage="level", inputs={
            "gdd": gdd.model_dump(mode="json"), "rules": [r.model_dump(mode="json") for r in rules],
            "guidance": guidance}).level
