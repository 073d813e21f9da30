"""Designer: clarifies the request into a brief (Stage 1) and writes the GDD (Stage 2)."""
from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, model_validator

from genesis.agents.base import Agent
from genesis.checks.clause_checks import clause_problems, relocate
from genesis.models import ARCHETYPES, GDD, Brief, Clarification, Competency, Requirement, RetryContext, RuleComponent


def brief_shown(brief: Brief) -> dict:
    """The brief as a designer reads it: its concepts only where they differ from their defaults, and no empty
    `expect` (the GDD writes the expectations); the same Brief again once validated."""
    shown = brief.model_dump(mode="json")
    shown["concepts"] = brief.concepts.model_dump(mode="json", exclude_defaults=True)
    for req in shown["requirements"]:
        if not req.get("expect"):
            req.pop("expect", None)
    return shown


class Questions(BaseModel):
    questions: list[str] = Field(description="clarifying questions for the user, one each")


class AccountedBrief(Brief):
    """The brief as Stage 1 accepts it: its clauses account for the whole request (a reply that does not
    is rejected with the problems, and the writer answers again)."""

    model_config = ConfigDict(extra="forbid", title="Brief")

    @model_validator(mode="after")
    def _clauses_account(self) -> AccountedBrief:
        self.clauses = relocate(self.query, self.clauses)
        problems = clause_problems(self)
        if problems:
            raise ValueError("clause accounting: " + "; ".join(problems))
        return self


class _BriefRequirement(Requirement):
    expect: list[Any] = Field(default_factory=list, max_length=0,
                              description="leave empty: the GDD adds the expectations")


class BriefShown(AccountedBrief):
    """The brief as its prompt shows it: requirements come without expectations."""

    model_config = ConfigDict(title="Brief")

    requirements: list[_BriefRequirement] = Brief.model_fields["requirements"]


# The GDD as its prompt and response_format show it: without the rule recipe, a typed form of a rule that
# only the offline developer composes Lua from (a model's GDD may still carry one: the reply is a GDD).
_RuleComponentShown = create_model(
    "RuleComponent", __base__=BaseModel,
    **{name: (f.annotation, f) for name, f in RuleComponent.model_fields.items() if name != "recipe"})
_RuleComponentShown.model_config["extra"] = "forbid"


class GDDShown(GDD):
    model_config = ConfigDict(title="GDD")

    rule_components: list[_RuleComponentShown] = GDD.model_fields["rule_components"]


class Designer(Agent):
    role = "designer"

    def questions(self, query: str, answered: list[Clarification] | None = None) -> list[str]:
        """Clarifying questions; given the answers so far, only those to ask again ([] when done)."""
        return self.ask("designer.questions", Questions, stage="brief", inputs={
            "query": query, "clarifications": [c.model_dump() for c in answered or []]}).questions

    def clarify(self, query: str, clarifications: list[Clarification], guidance: list[str],
                retry: RetryContext | None = None) -> Brief:
        reply = self.ask("designer.clarify", AccountedBrief, stage="brief", shown=BriefShown, inputs={
            "query": query, "clarifications": [c.model_dump() for c in clarifications], "guidance": guidance,
            "retry": retry.model_dump() if retry else None,
            "archetypes": list(ARCHETYPES), "competencies": list(typing.get_args(Competency))})
        return Brief.model_validate(reply.model_dump())   # the state and its checkpoints hold plain briefs

    def write_gdd(self, brief: Brief, similar: list[dict], guidance: list[str], library: list[dict],
                  retry: RetryContext | None = None, criteria: list[dict] | None = None) -> GDD:
        """`criteria`: the rubric criteria ({stage, id, text}) the design is judged by, GDD and level."""
        return self.ask("designer.write_gdd", GDD, stage="gdd", shown=GDDShown, inputs={
            "brief": brief_shown(brief), "similar": similar, "guidance": guidance,
            "library": library, "retry": retry.model_dump() if retry else None, "criteria": criteria or []})
