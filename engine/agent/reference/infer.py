"""Which strategy the reference policy plays on a level: its `metadata.reference`, or one read off
its conditions and rules."""
from __future__ import annotations

from typing import Any

STRATEGIES = ("defend", "produce", "attack", "fight", "hold_zone")


def infer_strategy(config) -> dict:
    """A strategy for a level without `metadata.reference`, read off its conditions and rules."""
    ref = config.metadata.get("reference")
    if isinstance(ref, dict) and ref.get("strategy") in STRATEGIES:
        return dict(ref)
    for cond in config.conditions:
        if cond.kind == "produce_composition":
            return {"strategy": "produce", "target": dict(cond.units)}
    for rule in config.rules:
        p = rule.params
        if "units" in p and rule.id.startswith(("production", "produce")):
            return {"strategy": "produce", "target": dict(p["units"])}
    for cond in config.conditions:
        if cond.kind == "destroy_target":
            return {"strategy": "attack", "target_tag": cond.target.tag, "target_team": cond.target.team,
                    "target_type": cond.target.type}
        if cond.kind == "protect_target":
            return {"strategy": "defend", "protect_tag": cond.target.tag}
    for rule in config.rules:
        p = rule.params
        if "core_tag" in p or "static_fortification" in rule.id:
            return {"strategy": "attack", "target_tag": p.get("core_tag", "core")}
        if rule.id.startswith("protect") or "capture" in rule.id:
            if "zone" in p or "x" in p:
                return {"strategy": "hold_zone", "zone": p.get("zone") or [p.get("x"), p.get("y")]}
            return {"strategy": "defend", "protect_tag": p.get("tag", "objective")}
    if any(c.kind in ("last_survivor", "rank_by_score") for c in config.conditions):
        return {"strategy": "fight"}
    return {"strategy": "defend"}


def xy(v: Any) -> tuple[float, float] | None:
    if isinstance(v, dict) and "x" in v:
        return float(v["x"]), float(v["y"])
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return float(v[0]), float(v[1])
    return None
