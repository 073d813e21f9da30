"""The records of the design that shipped: the last GDD as the last level.json plays it.

A retry or rollback replaces the GDD, and a level retry or the difficulty search may change the level
after its GDD (an army made stronger, a time limit extended); the brief keeps its stage-1 reading. The
scenario's records (gdd.md, validation.json, the report) are written from what this module returns."""
from __future__ import annotations

from collections import Counter
from typing import Any

from genesis.level_assembly import assemble_level
from genesis.models import GDD, Brief
from genesis.pipeline.docs import map_text, plain


def design_assumptions(brief: Brief | None, gdd: GDD | None) -> list[str]:
    """The assumptions on record: the last GDD's own (restated for its design), else the brief's."""
    if gdd is not None and gdd.assumptions:
        return list(gdd.assumptions)
    return list(brief.assumptions) if brief is not None else []


def _group_text(u: dict[str, Any]) -> str:
    where = f" at {u['at']}" if u.get("at") else (
        f" at ({u['x']:g}, {u['y']:g})" if u.get("x") is not None and u.get("y") is not None else "")
    return f"{u.get('count', 1)}x {u.get('type')}{where}" + (f" [{u['tag']}]" if u.get("tag") else "")


def _units_text(units: list[dict[str, Any]]) -> str:
    return ", ".join(_group_text(u) for u in units) or "none at start"


def _units_change(planned: list[dict[str, Any]], shipped: list[dict[str, Any]]) -> str:
    """The start groups the level adds to and drops from the GDD's ('' when it keeps them all)."""
    before, after = Counter(map(_group_text, planned)), Counter(map(_group_text, shipped))
    added, dropped = list((after - before).elements()), list((before - after).elements())
    return "; ".join(filter(None, [f"the level adds {', '.join(added)}" if added else "",
                                   f"the level drops {', '.join(dropped)}" if dropped else ""]))


def _resources_text(team: dict[str, Any]) -> str:
    r = team.get("resources") or {}
    return f"{r.get('metal', 0):g} metal, {r.get('energy', 0):g} energy"


def _switch_text(value: Any) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g} s" if isinstance(value, (int, float)) else plain(value)


def shipped_facts(level: dict[str, Any]) -> dict[str, Any]:
    """What level.json plays: map, switches, the description the agent reads and each team's start forces."""
    switches = level.get("switches") or {}
    return {
        "map": map_text(level.get("map")),
        "time_limit": switches.get("time_limit"),
        "fog_of_war": switches.get("fog_of_war"),
        "production": switches.get("production"),
        "agent_description": level.get("description", ""),
        "forces": {f"team {t.get('id')} {t.get('name', '')}".strip(): _units_text(t.get("units") or [])
                   for t in level.get("teams") or []},
    }


def level_changes(gdd: GDD, level: dict[str, Any]) -> list[str]:
    """Where the level departs from the GDD, one line each (empty when it plays the GDD as written)."""
    planned = assemble_level(gdd, [{"id": c.id, "params": c.params} for c in gdd.rule_components])
    out = []
    if planned["map"] != (level.get("map") or {}):
        out.append(f"map: {map_text(planned['map'])} in the GDD, {map_text(level.get('map'))} in the level")
    switches = level.get("switches") or {}
    for key, value in planned["switches"].items():
        if key in switches and switches[key] != value:
            out.append(f"{key.replace('_', ' ')}: {_switch_text(value)} in the GDD, {_switch_text(switches[key])} "
                       f"in the level")
    teams = {t.get("id"): t for t in level.get("teams") or []}
    for t in planned["teams"]:
        shipped = teams.pop(t["id"], None)
        if shipped is None:
            out.append(f"team {t['id']} {t['name']}: in the GDD, not in the level")
            continue
        change = _units_change(t["units"], shipped.get("units") or [])
        if change:
            out.append(f"team {t['id']} start units: {change}")
        if _resources_text(t) != _resources_text(shipped):
            out.append(f"team {t['id']} resources: {_resources_text(t)} in the GDD, {_resources_text(shipped)} "
                       f"in the level")
    out += [f"team {tid} {t.get('name', '')}: in the level, not in the GDD" for tid, t in teams.items()]
    rules = {r.get("id"): r.get("params") or {} for r in level.get("rules") or []}
    for r in planned["rules"]:
        if r["id"] in rules and rules[r["id"]] != r["params"]:
            changed = sorted(k for k in set(r["params"]) | set(rules[r["id"]])
                             if r["params"].get(k) != rules[r["id"]].get(k))
            out.append(f"rule {r['id']} params " + "; ".join(
                f"{k}: {plain(r['params'].get(k))} in the GDD, {plain(rules[r['id']].get(k))} in the level"
                for k in changed))
    return out
