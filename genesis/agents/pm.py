"""PM: gates every stage with MetaFeedback and runs the retrospective that evolves the rubrics."""
from __future__ import annotations

from genesis.agents.base import Agent
from genesis.checks.messages import evidence_detail
from genesis.checks.registry import registry_facts
from genesis.models import MetaFeedback, Verdict
from genesis.pipeline.proposals import ProposalSet


# What a new visit of each stage can change, so the PM sends a fix to the stage that can make it.
STAGE_SCOPE = {
    "brief": "the request's reading: competency, requirements and what is unsupported",
    "gdd": "the design: map, teams and army composition, controllers, rule components and their params, "
           "conditions, requirements and their expectations, reference strategy and strategy_params",
    "rules": "the Lua rule scripts, their declared params and tests; the GDD stays as it is",
    "level": "the level assembled from the GDD and rules: unit placement, counts (they may differ from the GDD's), "
             "rule params, switches, conditions and metadata.reference; it cannot rewrite rule scripts",
}
EVIDENCE_DETAIL_CHARS = 400
RETRO_FAILURES = 50   # the most recent failed verdicts the retrospective reads


def evidence_digest(evidence: list[dict], passed: bool = False) -> list[dict]:
    """Per requirement: status, the deciding expectations with their observed numbers, and each seed's pass.
    On a `passed` verdict a verified requirement's numbers decide nothing (the stage advances): they are left out."""
    return [{"id": e["id"], "on": e.get("on"), "status": e.get("status"),
             **({} if passed and e.get("status") == "verified" else {"detail": evidence_detail(e, EVIDENCE_DETAIL_CHARS)}),
             "seeds": {str(r["seed"]): r["passed"] for r in e.get("per_run", [])}} for e in evidence]


class PM(Agent):
    role = "pm"

    def gate(self, stage: str, verdict: Verdict, history: list[dict], attempts: int, budget: int,
             total: int, total_budget: int, signatures: list[str], evidence: list[dict] | None = None,
             runs: list[dict] | None = None, query: str = "", summary: str = "") -> MetaFeedback:
        """`query` and `summary`: the request and the brief's summary (the GDD's once a design stands, at the rules
        and level stages), so guidance can name the design."""
        return self.ask("pm.meta_feedback", MetaFeedback, stage=stage, inputs={
            "stage": stage, "query": query, "summary": summary, "verdict": verdict.model_dump(mode="json"), "history": history[-8:],
            "signatures": signatures, "evidence": evidence_digest(evidence or [], verdict.passed), "runs": runs or [],
            "scope": STAGE_SCOPE,
            "attempts": attempts, "budget": budget, "total_iterations": total, "total_budget": total_budget})

    def retrospective(self, records: list, rubrics: dict, recurring: dict[str, int],
                      min_occurrences: int) -> ProposalSet:
        """Rubric proposals from the feedback log, bounded by the check registry (see the prompt)."""
        failures = [r.model_dump(mode="json", include={"run_id", "stage", "iteration", "failed", "signatures"})
                    for r in records if r.kind == "verdict" and r.outcome == "failed"]
        return self.ask("pm.retrospective", ProposalSet, stage="evolve", inputs={
            "failures": failures[-RETRO_FAILURES:], "recurring": recurring, "min_occurrences": min_occurrences,
            "rubrics": {s: [c.model_dump(include={"id", "kind", "params", "text"}) for c in r.criteria]
                        for s, r in rubrics.items()},
            "registry": registry_facts()})
