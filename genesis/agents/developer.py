"""Developer: writes or reuses a Lua rule per GDD component (Stage 3) and assembles the level (Stage 4)."""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict

from engine.schema.level import LevelConfig
from genesis.agents.base import Agent
from genesis.models import GDD, LevelDraft, RetryContext, RuleArtifact, RuleComponent, RuleDraft, RuleDrafts


# What a rule's developer needs of the design: where it runs, who plays, and what else the level holds.
DESIGN_CONTEXT = {"map", "teams", "rule_components", "requirements", "time_limit", "fog_of_war", "production"}


def design_context(gdd: GDD, *components: RuleComponent) -> dict[str, Any]:
    """The design rules are written in, without the components being written (the prompt shows them
    apart); the expectations only of the requirements they serve (their requirement_ids, and those whose
    expectations name one of their rule ids): the others keep their text, which says what the rest of the
    level must show. Components that name none see every expectation."""
    design = gdd.model_dump(mode="json", include=DESIGN_CONTEXT)
    asked = {c.id for c in components}
    design["rule_components"] = [c for c in design["rule_components"] if c["id"] not in asked]
    served = {i for c in components for i in c.requirement_ids} | {
        r["id"] for r in design["requirements"] if any(f'"{i}"' in json.dumps(r.get("expect")) for i in asked)}
    if served:
        design["requirements"] = [r if r["id"] in served else {k: v for k, v in r.items() if k != "expect"}
                                  for r in design["requirements"]]
    return design


class RuleReuseShown(BaseModel):
    """The answers the reuse prompt asks for (a part of RuleDraft's): reuse the offered rule, or ask to write one."""

    model_config = ConfigDict(extra="forbid", title="RuleDraft")

    id: str = RuleDraft.model_fields["id"]
    reuse: str | None = RuleDraft.model_fields["reuse"]
    params: dict[str, Any] = RuleDraft.model_fields["params"]
    write_new: bool = RuleDraft.model_fields["write_new"]


def _written_for(key: str, component: RuleComponent) -> str:
    """How the component an earlier rule was written for differs from `component` (which the prompt shows
    whole): the keys that changed, with their earlier values, compact; empty when nothing changed."""
    try:
        written = json.loads(key)
    except ValueError:
        return key
    now = component.model_dump(mode="json")
    if not isinstance(written, dict):
        return key
    # nulls stay: a key the earlier component lacked shows as null
    changed = {k: written.get(k) for k in sorted(written.keys() | now.keys()) if written.get(k) != now.get(k)}
    return json.dumps(changed, ensure_ascii=False, separators=(",", ":")) if changed else ""


class Developer(Agent):
    role = "developer"

    def write_rule(self, component: RuleComponent, library: dict[str, Any] | None, guidance: list[str],
                   example: dict[str, Any] | None = None, retry: RetryContext | None = None,
                   criteria: list[dict] | None = None, gdd: GDD | None = None,
                   verified: RuleArtifact | None = None, kept: list[str] | None = None) -> RuleDraft:
        """A draft that reuses `library` by reference, keeps the `verified` rule of an earlier visit,
        or holds a new rule with its tests. `kept`: other components kept unchanged from the last attempt."""
        design = design_context(gdd, component) if gdd else None
        shown = None
        if verified is not None:
            shown = {"params": verified.params, "reused_from": verified.reused_from,
                     "written_for": _written_for(verified.written_for, component),
                     "source": None if verified.reused_from else verified.source,
                     "tests": [] if verified.reused_from else [t.file_form() for t in verified.tests]}
        # a library rule offered (and no earlier rule to keep): the short prompt that reuses it or declines
        reuse_only = library is not None and verified is None
        return self.ask("developer.write_rule", RuleDraft, stage="rules",
                        template="developer.reuse_rule" if reuse_only else None,
                        shown=RuleReuseShown if reuse_only else None, inputs={
            "component": component.model_dump(mode="json"), "library": library, "guidance": guidance,
            "example": example, "retry": retry.model_dump() if retry else None, "criteria": criteria or [],
            "design": design, "verified": shown, "kept": kept or []})

    def write_rules(self, components: list[RuleComponent], gdd: GDD, guidance: list[str],
                    example: dict[str, Any] | None = None, criteria: list[dict] | None = None,
                    kept: list[str] | None = None) -> list[RuleDraft]:
        """New rules for several components in one call: the rule API, grammar and example are sent once,
        not once per component. Only for components with no library rule offered, no earlier rule to keep
        and no rejected rule of their own to fix (those are asked one by one)."""
        return self.ask("developer.write_rules", RuleDrafts, stage="rules", inputs={
            "components": [c.model_dump(mode="json") for c in components], "guidance": guidance,
            "example": example, "retry": None, "criteria": criteria or [],
            "design": design_context(gdd, *components), "kept": kept or []}).rules

    def assemble_level(self, gdd: GDD, rules: list[RuleArtifact], guidance: list[str],
                       retry: RetryContext | None = None, criteria: list[dict] | None = None) -> LevelConfig:
        return self.ask("developer.assemble_level", LevelDraft, stage="level", inputs={
            "gdd": gdd.model_dump(mode="json"), "rules": [{"id": r.id, "params": r.params, "declared": _declared(r)}
                                                         for r in rules],
            "guidance": guidance, "retry": retry.model_dump() if retry else None, "criteria": criteria or []}).level


def _declared(rule: RuleArtifact) -> dict[str, str]:
    """What each param the rule declares means: 'type = default: description' (the level may set any of them)."""
    declared = (rule.meta or {}).get("params") or {}
    return {name: f"{spec.get('type', '?')} = {json.dumps(spec.get('default'))}: {spec.get('description', '')}".rstrip(": ")
            for name, spec in declared.items() if isinstance(spec, dict)}
