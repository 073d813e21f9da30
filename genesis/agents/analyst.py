"""Analyst: judges the model-judged rubric criteria and reviews simulation frames with a VLM."""
from __future__ import annotations

from pathlib import Path

from genesis.agents.base import Agent
from genesis.models import GDD, Brief, JudgedReview, VisualVerdict


class Analyst(Agent):
    role = "analyst"

    def judge_gdd(self, brief: Brief, gdd: GDD, criteria: list[dict]) -> JudgedReview:
        if not criteria:
            return JudgedReview(results=[])
        return self.ask("analyst.review_gdd", JudgedReview, stage="gdd", inputs={
            "brief": brief.model_dump(mode="json"), "criteria": criteria,
            # the expectations are the automated checks' to verify (requirement evidence); the judged criteria read prose
            "gdd": gdd.model_dump(mode="json", exclude={"requirements": {"__all__": {"expect"}}})})

    def visual_review(self, query: str, description: str, frames: list[str], context: dict | None = None) -> VisualVerdict:
        """VLM review of the frames; only called when a VLM model is configured. `context` (captions,
        end, duration, legend) is stated in the prompt beside the pictures."""
        verdict = self.ask("analyst.visual_review", VisualVerdict, stage="level", role="vlm",
                           inputs={"query": query, "description": description, "n_frames": len(frames), **(context or {})},
                           images=[Path(f) for f in frames])
        return verdict.model_copy(update={"judged_by": f"VLM {self.client.config.for_role('vlm').model}"})
