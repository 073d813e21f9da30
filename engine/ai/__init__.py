"""Built-in behaviours for teams the level gives to the AI (controller type "ai").

`make_behaviour(controller, team)` returns an object with `update(sim)`, called once per game second,
or None for agent / "none" controllers. Behaviours command units only through `sim.command`, the
same validated order path agents use.
"""
from __future__ import annotations

from engine.ai.defend import Defend
from engine.ai.hold import Hold
from engine.ai.idle import Idle
from engine.ai.skirmish import Skirmish
from engine.ai.waves import Waves

BEHAVIOURS = {"idle": Idle, "hold": Hold, "waves": Waves, "defend": Defend, "skirmish": Skirmish}


def make_behaviour(controller, team: int):
    if getattr(controller, "type", None) != "ai":
        return None
    return BEHAVIOURS[controller.behaviour](controller, team)
