"""Builds the LangGraph StateGraph: every node sets `route`, and each node's path map lists the only
transitions it can take, so the compiled graph (and its drawing) shows the real pipeline."""
from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from genesis.pipeline.context import RunContext
from genesis.pipeline.nodes import Nodes
from genesis.pipeline.state import PipelineState

# node -> where it may go next. A gate advances, retries its stage, rolls back to an earlier
# stage's writer, or stops (finalize).
ROUTES: dict[str, tuple[str, ...]] = {
    "clarify": ("kb_match", "finalize"),
    "kb_match": ("write_gdd", "assemble_level"),
    "write_gdd": ("review_gdd", "gate_gdd"),
    "review_gdd": ("gate_gdd",),
    "gate_gdd": ("write_rules", "write_gdd", "clarify", "finalize"),
    "write_rules": ("test_rules", "gate_rules"),
    "test_rules": ("gate_rules",),
    "gate_rules": ("assemble_level", "write_rules", "write_gdd", "clarify", "finalize"),
    "assemble_level": ("validate_level", "gate_level"),
    "validate_level": ("gate_level", "tune_difficulty"),
    "tune_difficulty": ("validate_level",),
    "gate_level": ("evolve", "assemble_level", "write_rules", "write_gdd", "clarify", "finalize"),
    "evolve": ("finalize",),
}


def _router(name: str):
    allowed = ROUTES[name]

    def route(state: dict) -> str:
        target = state.get("route", "finalize")
        if target not in allowed:
            raise RuntimeError(f"node {name} routed to {target!r}, which is not one of its transitions {allowed}")
        return target
    return route


def build(ctx: RunContext, checkpointer):
    n = Nodes(ctx)
    g = StateGraph(PipelineState)
    g.add_node("clarify", n.clarify)
    g.add_node("kb_match", n.kb_match)
    g.add_node("write_gdd", n.write_gdd)
    g.add_node("review_gdd", n.review_gdd)
    g.add_node("gate_gdd", n.gate("gdd"))
    g.add_node("write_rules", n.write_rules)
    g.add_node("test_rules", n.test_rules)
    g.add_node("gate_rules", n.gate("rules"))
    g.add_node("assemble_level", n.assemble_level)
    g.add_node("validate_level", n.validate_level)
    g.add_node("tune_difficulty", n.tune_difficulty)
    g.add_node("gate_level", n.gate("level"))
    g.add_node("evolve", n.evolve)
    g.add_node("finalize", n.finalize)
    g.add_edge(START, "clarify")
    for name, targets in ROUTES.items():
        g.add_conditional_edges(name, _router(name), {t: t for t in targets})
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)
