"""Typed LangGraph state. Nodes return partial updates; list fields with reducers accumulate.

The stage documents are held as their models (a node reads them without re-validating); the
checkpointer stores them through the serializer `checkpoint_serializer` allows them in."""
from __future__ import annotations

import operator
from typing import Annotated, Any, TypedDict

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from genesis.models import GDD, Brief, RetryContext, RuleArtifact, Verdict

STATE_MODELS = (Brief, GDD, RetryContext, RuleArtifact, Verdict)


def checkpoint_serializer() -> JsonPlusSerializer:
    """Restores exactly the state's models from a checkpoint, and nothing else."""
    return JsonPlusSerializer(allowed_msgpack_modules=[(m.__module__, m.__name__) for m in STATE_MODELS])


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
    brief: Brief
    kb_match: dict | None
    fast_tracked: bool
    gdd: GDD
    rules: list[RuleArtifact]
    rule_tests: dict[str, list[dict]]
    level: dict
    verdicts: Annotated[dict[str, Verdict], merge]
    guidance: Annotated[dict[str, list[str]], merge]
    guidance_latest: Annotated[dict[str, int], merge]   # per stage: how many of its last guidance items the last gate gave
    retry: Annotated[dict[str, RetryContext | None], merge]   # per stage: what its next writer sees
    attempts: Annotated[dict[str, int], merge]
    iterations: int
    feedback: Annotated[list[dict], operator.add]   # the run's feedback log F
    decisions: Annotated[list[dict], operator.add]
    runs: list[dict]
    simulation: Annotated[list[dict], operator.add]   # per validation: wall time and cache use of its runs
    evidence: list[dict]
    certificate: dict | None           # the level's validity certificate, judged at stage 4
    difficulty_search: dict | None     # the balance knob search for the asked difficulty (genesis.difficulty)
    difficulty_target: list[str] | None   # [the band the level plays, the bands the search wants]
    visual: dict
    stage_times: Annotated[dict[str, float], add_times]
    route: str
    status: str                        # running | playable | not_certified | failed | refused
    stop_reason: str
    evolution: dict
