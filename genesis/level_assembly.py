"""The level config a GDD describes: the first assembly of every level (stage 4; a model is asked only to
correct a level the gate sent back) and the balance preview that simulates a GDD before any rule is written."""
from __future__ import annotations

import re
from typing import Any

from genesis.models import GDD


def level_teams(gdd: GDD) -> list[dict[str, Any]]:
    """The GDD's teams as the level's `teams` entries."""
    teams = []
    for t in gdd.teams:
        units = []
        for u in t.units:
            entry: dict[str, Any] = {"type": u.type, "count": u.count, "spread": u.spread}
            if u.at is not None:
                entry["at"] = u.at
            else:
                entry["x"], entry["y"] = u.x, u.y
            if u.tag:
                entry["tag"] = u.tag
            if u.health < 1:
                entry["health"] = u.health
            units.append(entry)
        teams.append({"id": t.id, "name": t.name, "allies": t.allies,
                      "controller": t.controller.model_dump(mode="json"),
                      "resources": {"metal": t.metal, "energy": t.energy}, "units": units,
                      **({"neutral": True} if t.role == "neutral" else {}), **({"color": t.color} if t.color else {})})
    return teams


_SPAWN_JITTER = re.compile(r"switches\.spawn_jitter\s*=\s*([0-9]+(?:\.[0-9]+)?)")


def spawn_jitter(gdd: GDD) -> float | None:
    """The tiles of start jitter the GDD's variation names ('switches.spawn_jitter=<tiles>' in a `how`), if any."""
    for v in gdd.variation.varies:
        m = _SPAWN_JITTER.search(v.how)
        if m:
            return float(m.group(1))
    return None


def assemble_level(gdd: GDD, rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The level from the GDD; `rules` are the stage-3 rules as {id, params}."""
    jitter = spawn_jitter(gdd)
    return {
        "schema_version": 1,
        "name": gdd.title,
        "description": gdd.agent_description,
        "map": gdd.map.model_dump(mode="json", exclude_none=True),
        "teams": level_teams(gdd),
        "rules": [{"id": r["id"], "script": f"rules/{r['id']}.lua", "params": r["params"]} for r in rules],
        "switches": {"fog_of_war": gdd.fog_of_war, "production": gdd.production, "time_limit": gdd.time_limit,
                     **({"spawn_jitter": jitter} if jitter is not None else {})},
        "conditions": [c.model_dump(mode="json", exclude_none=True) for c in gdd.conditions],
        "metadata": {"reference": {"strategy": gdd.reference_strategy, **gdd.strategy_params}},
    }
