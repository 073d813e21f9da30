"""Designer: clarifies the request into a brief (Stage 1) and writes the GDD (Stage 2)."""
from __future__ import annotations

from pydantic import BaseModel

from genesis.agents.base import Agent
from genesis.models import GDD, Brief, Clarification


class Questions(BaseModel):
    questions: list[str]


class Designer(Agent):
    role = "designer"

    def questions(self, query: str, answered: list[Clarification] | None = None) -> list[str]:
        """Clarifying questions; given the answers so far, only those to ask again ([] when done)."""
        return self.ask("designer.questions", Questions, stage="brief", inputs={
            "query": query, "clarifications": [c.model_dump() for c in answered or []]}).questions

    def clarify(self, query: str, clarifications: list[Clarification], guidance: list[str]) -> Brief:
        return self.ask("designer.clarify", Brief, stage="brief", inputs={
            "query": query, "clarifications": [c.model_dump() for c in clarifications], "guidance": guidance})

    def write_gdd(self, brief: Brief, similar: list[dict], guidance: list[str], catalog: str, maps: list[str],
                  library: list[dict]) -> GDD:
        return self.ask("designer.write_gdd", GDD, stage="gdd", inputs={
            "brief": brief.model_dump(mode="json"), "similar": similar, "guidance": guidance,
            "catalog": catalog, "maps": maps, "library": library})
