"""The smoke test every new rule also runs in Stage 3: the GDD's map and teams, the player played by
the reference policy, and a standard raiding team that attacks the player in waves for several
minutes. Units move, fight, die and enter areas, so a callback that breaks on a dead unit or a nil
field fails here, before Stage 4, and not only in the cases the rule's own tests chose."""
from __future__ import annotations

import math
from typing import Any

from engine.maps import load_map
from genesis.level_assembly import level_teams
from genesis.models import GDD, RuleArtifact

SMOKE_SECONDS = 240.0
SMOKE_TEST_NAME = "smoke: the GDD's map and teams, reference player, no rule error"
NOT_ERROR = ["condition", "rule", "time_limit", "until"]
RAIDERS = [{"type": "light_bot", "count": 6}, {"type": "light_tank", "count": 2}]


def _raiding_team(gdd: GDD) -> dict[str, Any]:
    """A team that sends waves at the player from the map spawn farthest from the player's units."""
    m = load_map(gdd.map)
    spawns = {s.name: (s.x, s.y) for s in m.spawns}
    player = next(t for t in gdd.teams if t.role == "player")
    points = [spawns[u.at] if u.at in spawns else (u.x, u.y) for u in player.units if u.at in spawns or u.x is not None]
    home = (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)) if points else \
        (m.width / 2, m.height / 2)
    far = max(m.spawns, key=lambda s: math.dist((s.x, s.y), home)) if m.spawns else None
    at = {"at": far.name} if far else {"x": m.width - 2.0, "y": m.height - 2.0}
    return {"id": max(t.id for t in gdd.teams) + 1, "name": "smoke raiders",
            "controller": {"type": "ai", "behaviour": "waves", "target": {"team": player.id}, "first_at": 10,
                           "interval": 30},
            "units": [{**group, **at} for group in RAIDERS]}


def smoke_level(gdd: GDD) -> dict[str, Any]:
    teams = [*level_teams(gdd), _raiding_team(gdd)]
    return {"name": f"smoke test of {gdd.title}", "description": "smoke test", "teams": teams,
            "map": gdd.map.model_dump(mode="json", exclude_none=True),
            "switches": {"fog_of_war": gdd.fog_of_war, "production": gdd.production,
                         "time_limit": min(gdd.time_limit, SMOKE_SECONDS)},
            "conditions": [c.model_dump(mode="json", exclude_none=True) for c in gdd.conditions],
            "metadata": {"reference": {"strategy": gdd.reference_strategy, **gdd.strategy_params}}}


def smoke_test(gdd: GDD, rule: RuleArtifact) -> dict[str, Any]:
    """One rule test case (test.yaml form) running `rule` with the level's params in the smoke level."""
    players = {t.id: "reference" for t in gdd.teams if t.controller.type == "agent" and t.role == "player"}
    return {"name": SMOKE_TEST_NAME, "level": smoke_level(gdd), "params": rule.params, "seed": 0,
            "until": SMOKE_SECONDS, "policies": players, "expect": [{"result": {"ended_by": NOT_ERROR}}]}
