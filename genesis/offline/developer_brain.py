"""Stages 3 and 4 offline: reuse verified library rules, and assemble the level config."""
from __future__ import annotations

from typing import Any

from genesis.models import GDD, RuleArtifact, RuleComponent, RuleTest


class NoImplementation(ValueError):
    """The offline backend can only reuse library rules; a real model can write new ones."""


def write_rule(component: RuleComponent, library: dict[str, Any] | None) -> RuleArtifact:
    if not library:
        raise NoImplementation(
            f"rule component {component.id!r} ({component.purpose}) has no verified library rule, and the offline "
            "backend does not write new Lua: use a real model (--model) or rephrase the request")
    declared = (library.get("meta") or {}).get("params") or {}
    unknown = sorted(set(component.params) - set(declared))
    if unknown:
        raise ValueError(f"rule component {component.id!r}: library rule {library['id']!r} has no params {unknown}; "
                         f"it declares {sorted(declared)}")
    params = dict(component.params)
    tests = [RuleTest.model_validate(t) for t in library.get("tests", [])]
    return RuleArtifact(id=component.id, source=library["source"], params=params, tests=tests,
                        meta=library.get("meta") or {}, reused_from=library["id"])


def assemble_level(gdd: GDD, rules: list[RuleArtifact]) -> dict[str, Any]:
    teams = []
    for t in gdd.teams:
        units = []
        for u in t.units:
            entry: dict[str, Any] = {"type": u.type, "count": u.count}
            if u.at is not None:
                entry["at"] = u.at
            else:
                entry["x"], entry["y"] = u.x, u.y
            if u.tag:
                entry["tag"] = u.tag
            units.append(entry)
        teams.append({"id": t.id, "name": t.name, "allies": t.allies, "controller": t.controller,
                      "resources": {"metal": t.metal, "energy": t.energy}, "units": units})
    return {
        "schema_version": 1,
        "name": gdd.title,
        "description": gdd.agent_description,
        "map": gdd.map,
        "teams": teams,
        "rules": [{"id": r.id, "script": f"rules/{r.id}.lua", "params": r.params} for r in rules],
        "switches": {"fog_of_war": gdd.fog_of_war, "production": gdd.production, "time_limit": gdd.time_limit},
        "conditions": gdd.conditions,
        "metadata": {"reference": {"strategy": gdd.reference_strategy, **gdd.strategy_params}},
    }
