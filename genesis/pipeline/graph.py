"""Builds the LangGraph StateGraph: every node sets `route`, and one router follows it."""
from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from genesis.pipeline.context import RunContext
from genesis.pipeline.nodes import Nodes
from genesis.pipeline.state import PipelineState

ROUTED = ["clarify", "kb_match", "write_gdd", "review_gdd", "gate_gdd", "write_rules", "test_rules", "gate_rules",
          "assemble_level", "validate_level", "gate_level", "evolve"]


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
    g.add_node("gate_level", n.gate("level"))
    g.add_node("evolve", n.evolve)
    g.add_node("finalize", n.finalize)
    g.add_edge(START, "clarify")
    targets = {name: name for name in ROUTED + ["finalize"]}
    for name in ROUTED:
        g.add_conditional_edges(name, lambda s: s.get("route", "finalize"), targets)
    g.add_edge("finalize", END)
    return g.compile(checkpointer=checkpointer)
