"""PM: gates every stage with MetaFeedback and runs the retrospective that evolves the rubrics."""
from __future__ import annotations

from genesis.agents.base import Agent
from genesis.models import MetaFeedback, Retrospective, Verdict


# What a new visit of each stage can change, so the PM sends a fix to the stage that can make it.
STAGE_SCOPE = {
    "brief": "the request's reading: competency, requirements and what is unsupported",
    "gdd": "the design: map, teams and army composition, controllers, rule components and their params, "
           "conditions, requirements and their expectations, reference strategy and strategy_params",
    "rules": "the Lua rule scripts, their declared params and tests; the GDD stays as it is",
    "level": "the level assembled from the GDD and rules: unit placement, counts, rule params, switches, "
             "conditions and metadata.reference; it cannot rewrite rule scripts",
}
EVIDENCE_DETAIL_CHARS = 400


def evidence_digest(evidence: list[dict]) -> list[dict]:
    """Per requirement: status, the deciding expectations with their observed numbers, and each seed's pass."""
    return [{"id": e["id"], "on": e.get("on"), "status": e.get("status"),
             "detail": str(e.get("detail", ""))[:EVIDENCE_DETAIL_CHARS],
             "seeds": {str(r["seed"]): r["passed"] for r in e.get("per_run", [])}} for e in evidence]


class PM(Agent):
    role = "pm"

    def gate(self, stage: str, verdict: Verdict, history: list[dict], attempts: int, budget: int,
             total: int, total_budget: int, signatures: list[str], evidence: list[dict] | None = None,
             runs: list[dict] | None = None) -> MetaFeedback:
        return self.ask("pm.meta_feedback", MetaFeedback, stage=stage, inputs={
            "stage": stage, "verdict": verdict.model_dump(mode="json"), "history": history[-8:],
            "signatures": signatures, "evidence": evidence_digest(evidence or []), "runs": runs or [],
            "scope": STAGE_SCOPE,
            "attempts": attempts, "budget": budget, "total_iterations": total, "total_budget": total_budget})

    def retrospective(self, feedback_log: list[dict], rubrics: dict[str, list[dict]]) -> Retrospective:
        return self.ask("pm.retrospective", Retrospective, stage="evolve", inputs={
            "feedback_log": feedback_log[-50:], "rubrics": rubrics})
