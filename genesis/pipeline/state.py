"""Typed LangGraph state. Nodes return partial updates; list fields with reducers accumulate."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict


def merge(a: dict, b: dict) -> dict:
    return {**(a or {}), **(b or {})}


def add_times(a: dict, b: dict) -> dict:
    """Stage times accumulate: a retried stage counts every attempt, so generation time is honest."""
    out = dict(a or {})
    for stage, seconds in (b or {}).items():
        out[stage] = round(out.get(stage, 0.0) + seconds, 3)
    return out


class PipelineState(TypedDict, total=False):
    query: str
    run_id: str
    out_dir: str
    options: dict[str, Any]           # seed, interactive, budgets, kb/rubric roots
    clarifications: list[dict]
    brief: dict
    kb_match: dict | None
    fast_tracked: bool
    gdd: dict
    rules: list[dict]
    rule_tests: dict[str, list[dict]]
    level: dict
    verdicts: Annotated[dict[str, dict], merge]
    guidance: Annotated[dict[str, list[str]], merge]
    retry: Annotated[dict[str, dict], merge]      # per stage: the RetryContext its next writer sees
    attempts: Annotated[dict[str, int], merge]
    iterations: int
    feedback: Annotated[list[dict], operator.add]   # the run's feedback log F
    decisions: Annotated[list[dict], operator.add]
    runs: list[dict]
    evidence: list[dict]
    visual: dict
    stage_times: Annotated[dict[str, float], add_times]
    route: str
    status: str                        # running | playable | failed | refused
    stop_reason: str
    evolution: dict
