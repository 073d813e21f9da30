"""Which rules of an earlier Stage 3 visit the next visit keeps or shows.

A rule is verified when all its tests (its own and the smoke run) passed and no failing rules check
names it. After a failed rules verdict, or a rollback to the GDD that leaves a rule's component
unchanged, a verified rule is kept without asking again; after a rollback to the rules themselves a
verified rule is shown to the developer, who may keep it by reference. Kept rules are tested again
with the rest, so keeping never skips a check."""
from __future__ import annotations

import json

from genesis.kb.library import artifact_from_draft
from genesis.models import RuleArtifact, RuleComponent, RuleDraft, Verdict


def component_key(component: RuleComponent) -> str:
    return json.dumps(component.model_dump(mode="json"), sort_keys=True)


def verified_rules(state: dict) -> dict[str, RuleArtifact]:
    verdict: Verdict | None = (state.get("verdicts") or {}).get("rules")
    if verdict is None:
        return {}
    tests = state.get("rule_tests") or {}
    failing = [c.reason for c in verdict.criteria if not c.passed]
    return {a.id: a for a in state.get("rules") or []
            if tests.get(a.id) and all(t.get("passed") for t in tests[a.id]) and not any(a.id in r for r in failing)}


def _sent_back_to(state: dict) -> str | None:
    """The stage the last retry or rollback went to (None when no decision sent the run back)."""
    back = [d for d in state.get("decisions") or [] if d.get("decision") in ("retry", "rollback")]
    return back[-1].get("target_stage") if back else None


def _params_only(rule: RuleArtifact, component: RuleComponent) -> bool:
    """The component is the one the rule was written for but for its params, and the rule declares every
    param it is now given: a new value for a param the rule reads needs no new script."""
    try:
        was = json.loads(rule.written_for)
    except ValueError:
        return False
    now = component.model_dump(mode="json")
    declared = set((rule.meta or {}).get("params") or {})
    return {k: v for k, v in was.items() if k != "params"} == {k: v for k, v in now.items() if k != "params"} \
        and set(component.params) <= declared


def kept_unchanged(state: dict, components: list[RuleComponent], new_params: bool = False) -> dict[str, RuleArtifact]:
    """The verified rules a rules visit keeps without asking, only for unchanged components: after a failed
    rules verdict, or when the run was sent back before the rules (the GDD rewritten) and the new GDD left
    the component as it was (with `new_params`: or changed only params the rule declares, which the kept rule
    then gets). A run sent back to the rules themselves asks the developer again."""
    verdict: Verdict | None = (state.get("verdicts") or {}).get("rules")
    if verdict is None or (verdict.passed and _sent_back_to(state) not in ("brief", "gdd")):
        return {}
    verified = verified_rules(state)
    kept = {}
    for c in components:
        rule = verified.get(c.id)
        if rule is not None and rule.written_for == component_key(c):
            kept[c.id] = rule
        elif rule is not None and new_params and _params_only(rule, c):
            kept[c.id] = rule.model_copy(update={"params": c.params, "written_for": component_key(c)})
    return kept


class NothingToKeep(ValueError):
    """The developer asked to keep a rule no earlier visit verified."""


def keep_or_build(draft: RuleDraft, verified: RuleArtifact | None, kb) -> RuleArtifact:
    """The artifact a draft stands for: the verified rule it keeps (with the draft's params), else what it builds."""
    if draft.write_new:
        raise NothingToKeep(f"rule {draft.id}: `write_new` answers an offered library rule, and none was offered; "
                            "write the rule")
    if not draft.keep:
        return artifact_from_draft(draft, kb)
    if verified is None:
        raise NothingToKeep(f"rule {draft.id}: `keep` needs a previously verified script for this component, "
                            "and there is none; write the rule or reuse a library rule")
    return verified.model_copy(update={"params": draft.params})
