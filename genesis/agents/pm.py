"""PM: gates every stage with MetaFeedback and runs the retrospective that evolves the rubrics."""
from __future__ import annotations

from genesis.agents.base import Agent
from genesis.models import MetaFeedback, Retrospective, Verdict


class PM(Agent):
    role = "pm"

    def gate(self, stage: str, verdict: Verdict, history: list[dict], attempts: int, budget: int,
             total: int, total_budget: int, signatures: list[str]) -> MetaFeedback:
        return self.ask("pm.meta_feedback", MetaFeedback, stage=stage, inputs={
            "stage": stage, "verdict": verdict.model_dump(mode="json"), "history": history[-8:],
            "signatures": signatures,
            "attempts": attempts, "budget": budget, "total_iterations": total, "total_budget": total_budget})

    def retrospective(self, feedback_log: list[dict], rubrics: dict[str, list[dict]]) -> Retrospective:
        return self.ask("pm.retrospective", Retrospective, stage="evolve", inputs={
            "feedback_log": feedback_log[-50:], "rubrics": rubrics})
