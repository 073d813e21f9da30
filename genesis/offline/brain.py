"""Dispatches the offline backend's skills; registered with genesis.llm as the litellm custom provider's brain."""
from __future__ import annotations

from typing import Any

from genesis.level_assembly import assemble_level
from genesis.models import GDD, Brief, Clarification, CriterionResult, JudgedReview, RuleComponent
from genesis.offline import brief_writer, developer_brain, gdd_writer, pm_brain
from genesis.offline.concepts import read


def _clarify(inputs: dict[str, Any]) -> dict:
    answers = [Clarification.model_validate(c) for c in inputs.get("clarifications", [])]
    brief = brief_writer.write_brief(inputs["query"], read(inputs["query"]), answers)
    unbuilt = pm_brain.unbuilt_requirements(inputs.get("guidance") or [])
    return brief_writer.without_requirements(brief, unbuilt).model_dump(mode="json")


def _questions(inputs: dict[str, Any]) -> dict:
    """The first questions, or (with the answers so far) the ones to ask again."""
    answers = [Clarification.model_validate(c) for c in inputs.get("clarifications") or []]
    if answers:
        return {"questions": brief_writer.follow_up_questions(answers)}
    reading = read(inputs["query"])
    return {"questions": brief_writer.questions(reading.concepts) if reading.is_game else []}


def _write_gdd(inputs: dict[str, Any]) -> dict:
    brief = Brief.model_validate(inputs["brief"])
    return gdd_writer.design(brief, inputs.get("guidance", [])).model_dump(mode="json")


def _review_gdd(inputs: dict[str, Any]) -> dict:
    gdd = GDD.model_validate(inputs["gdd"])
    results = []
    for crit in inputs.get("criteria", []):
        desc = gdd.agent_description
        if crit["id"].endswith("competency_clear"):
            mechanics = len(gdd.rule_components) + len(gdd.conditions)
            ok = bool(gdd.competency) and mechanics > 0
            why = f"targets {gdd.competency.replace('_', ' ')} through {mechanics} rule components and conditions"
        elif crit["id"].endswith("agent_description_clear"):
            mentions_end = any(w in desc.lower() for w in ("win", "lose", "destroy", "survive", "rank", "produce"))
            ok = 40 <= len(desc) <= 800 and mentions_end
            why = f"{len(desc)} characters; {'states' if mentions_end else 'does not state'} how the game ends"
        else:
            ok, why = True, "no offline heuristic for this criterion; not contested"
        results.append(CriterionResult(id=crit["id"], passed=ok, mandatory=crit.get("mandatory", True),
                                       kind=crit.get("kind", "judged"), reason=f"offline heuristic: {why}"))
    return JudgedReview(results=results).model_dump(mode="json")


def _write_rule(inputs: dict[str, Any]) -> dict:
    comp = RuleComponent.model_validate(inputs["component"])
    map_ref = (inputs.get("design") or {}).get("map")
    return developer_brain.write_rule(comp, inputs.get("library"), map_ref).model_dump(mode="json")


def _write_rules(inputs: dict[str, Any]) -> dict:
    map_ref = (inputs.get("design") or {}).get("map")
    return {"rules": [developer_brain.write_rule(RuleComponent.model_validate(c), None, map_ref).model_dump(mode="json")
                      for c in inputs["components"]]}


def _assemble_level(inputs: dict[str, Any]) -> dict:
    return {"level": assemble_level(GDD.model_validate(inputs["gdd"]), inputs["rules"])}


SKILLS = {
    "designer.clarify": _clarify,
    "designer.questions": _questions,
    "designer.write_gdd": _write_gdd,
    "analyst.review_gdd": _review_gdd,
    "developer.write_rule": _write_rule,
    "developer.write_rules": _write_rules,
    "developer.assemble_level": _assemble_level,
    "pm.meta_feedback": lambda i: pm_brain.meta_feedback(i).model_dump(mode="json"),
    "pm.retrospective": lambda i: pm_brain.retrospective(i).model_dump(mode="json"),
}


class OfflineBrain:
    """The embedded offline backend (see README, "Offline backend and its vocabulary")."""

    def respond(self, skill: str, inputs: dict, schema: dict) -> dict:
        try:
            fn = SKILLS[skill]
        except KeyError:
            raise ValueError(f"the offline backend has no skill {skill!r}") from None
        return fn(inputs)
