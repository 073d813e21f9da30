"""The smoke test every new rule also runs in Stage 3: the GDD's map and teams, the player played by
the reference policy, for several minutes. Units move, fight, die and enter areas, so a callback
that breaks on a dead unit or a nil field fails here, before Stage 4, and not only in the cases the
rule's own tests chose."""
from __future__ import annotations

from typing import Any

from genesis.models import GDD, RuleArtifact

SMOKE_SECONDS = 240.0
SMOKE_TEST_NAME = "smoke: the GDD's map and teams, reference player, no rule error"
NOT_ERROR = ["condition", "rule", "time_limit", "until"]


def smoke_level(gdd: GDD) -> dict[str, Any]:
    teams = [{"id": t.id, "name": t.name, "allies": t.allies, "controller": t.controller.model_dump(mode="json"),
              "resources": {"metal": t.metal, "energy": t.energy},
              "units": [u.model_dump(mode="json", exclude_none=True) for u in t.units]} for t in gdd.teams]
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
